import type { FastifyRequest } from 'fastify';
import { eq, inArray } from 'drizzle-orm';
import WebSocket from 'ws';
import type { DeviceEvent, OwnerEvent, WsServerMessage } from '@cellhub/contract/realtime';
import { WS_AUTH_TIMEOUT_MS, WS_CLOSE, wsClientMessage } from '@cellhub/contract/realtime';
import type { Actor, Deps } from '../lib/deps';
import { authenticate } from '../modules/auth/auth.service';
import { sessions } from '../modules/auth/auth.table';
import { users } from '../modules/users/users.table';
import { requestContext } from '../plugins/auth';
import { audienceUids, mayReceive } from './audience';
import type { Audience, SessionScope } from './event-bus';

export interface HubOptions {
  authTimeoutMs?: number;
  /** Protocol-level ping; a socket that has not answered the previous one by the next beat is cut. */
  heartbeatMs?: number;
  /** How often open sockets' sessions are re-read, so a sign-out on any instance closes them. */
  sessionCheckMs?: number;
  /** Events are dropped (and counted) for a socket with more than this many bytes not yet sent. */
  maxBufferedBytes?: number;
  /** Larger client messages close the socket (4400). */
  maxMessageBytes?: number;
}

export interface HubStats {
  connections: number;
  authenticated: number;
  eventsSent: number;
  /** Events not sent because the socket was too far behind. */
  eventsDropped: number;
  /** Sockets closed for no or a bad token (4401). */
  refused: number;
  /** Sockets closed because their session ended (4403). */
  revoked: number;
}

const OPEN = WebSocket.OPEN;

class Client {
  actor: Actor | undefined;
  /** Serial numbers to receive; null: every device the user may see. */
  filter: Set<string> | null = null;
  alive = true;
  dropped = 0;
  authTimer: NodeJS.Timeout | undefined;
  /** Messages are handled one after another: a subscribe sent right after auth waits for the auth check. */
  queue: Promise<void> = Promise.resolve();

  constructor(
    readonly socket: WebSocket,
    readonly request: FastifyRequest,
  ) {}
}

type HubDeps = Pick<Deps, 'db' | 'now' | 'log' | 'events' | 'caches'>;

/**
 * The browsers connected to this instance at /api/ws. Each signed-in socket receives the bus's device events its
 * user may see (`mayReceive`), narrowed by its own filter.
 */
export class WsHub {
  private readonly clients = new Set<Client>();
  /** Non-admin sockets by uid; admins are kept apart since they receive everything. */
  private readonly byUid = new Map<number, Set<Client>>();
  private readonly admins = new Set<Client>();
  private readonly counters = { eventsSent: 0, eventsDropped: 0, refused: 0, revoked: 0 };
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly unsubscribe: () => void;
  private readonly unsubscribeTasks: () => void;
  private readonly unsubscribeSessions: () => void;
  private readonly unsubscribeAccess: () => void;
  private readonly opts: Required<HubOptions>;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly deps: HubDeps,
    options: HubOptions = {},
  ) {
    this.opts = {
      authTimeoutMs: options.authTimeoutMs ?? WS_AUTH_TIMEOUT_MS,
      heartbeatMs: options.heartbeatMs ?? 30_000,
      sessionCheckMs: options.sessionCheckMs ?? 10_000,
      maxBufferedBytes: options.maxBufferedBytes ?? 1024 * 1024,
      maxMessageBytes: options.maxMessageBytes ?? 128 * 1024,
    };
    this.unsubscribe = deps.events.subscribe((event, audience) => this.dispatch(event, audience));
    this.unsubscribeTasks = deps.events.subscribeTasks((event, audience) =>
      this.dispatchTask(event, audience),
    );
    this.unsubscribeSessions = deps.events.onSessionsEnded((scope) => this.endSessions(scope));
    this.unsubscribeAccess = deps.events.on('share.reread', (e) => this.accessChanged(e.sns));
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, ms);
      t.unref();
      this.timers.push(t);
    };
    every(this.opts.heartbeatMs, () => this.heartbeat());
    every(this.opts.sessionCheckMs, () => {
      this.checkSessions().catch((err: unknown) => deps.log.warn({ err }, 'realtime: session check failed'));
    });
  }

  stats(): HubStats {
    let authenticated = 0;
    for (const c of this.clients) if (c.actor) authenticated++;
    return { connections: this.clients.size, authenticated, ...this.counters };
  }

  accept(socket: WebSocket, request: FastifyRequest): void {
    const client = new Client(socket, request);
    this.clients.add(client);
    client.authTimer = setTimeout(
      () => this.refuse(client, 'no auth message in time'),
      this.opts.authTimeoutMs,
    );
    socket.on('pong', () => {
      client.alive = true;
    });
    socket.on('message', (data, isBinary) => {
      client.alive = true;
      const text = isBinary ? undefined : rawText(data);
      if (text === undefined || Buffer.byteLength(text) > this.opts.maxMessageBytes) {
        this.closeSocket(client, WS_CLOSE.badMessage, 'bad message');
        return;
      }
      client.queue = client.queue
        .then(() => this.handle(client, text))
        .catch((err: unknown) => {
          this.deps.log.warn({ err }, 'realtime: message handling failed');
          this.closeSocket(client, 1011, 'server error');
        });
    });
    socket.on('close', () => this.forget(client));
    socket.on('error', () => this.forget(client));
  }

  private async handle(client: Client, text: string): Promise<void> {
    if (client.socket.readyState !== OPEN) return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = wsClientMessage.safeParse(json);
    if (!client.actor) {
      // Before auth only `auth` is accepted; anything else is treated like a missing token.
      if (!parsed.success || parsed.data.type !== 'auth') {
        this.refuse(client, 'expected auth');
        return;
      }
      const actor = await authenticate(this.deps, parsed.data.token, requestContext(client.request));
      if (!actor) {
        this.refuse(client, 'bad token');
        return;
      }
      if (client.socket.readyState !== OPEN) return;
      clearTimeout(client.authTimer);
      client.actor = actor;
      this.index(client);
      this.send(client, { type: 'ready', uid: actor.uid });
      return;
    }
    if (!parsed.success) {
      this.send(client, { type: 'error', code: 10113, message: 'not a valid message' });
      return;
    }
    const msg = parsed.data;
    switch (msg.type) {
      case 'ping':
        this.send(client, { type: 'pong', id: msg.id });
        return;
      case 'subscribe':
        client.filter = msg.sns ? new Set(msg.sns) : null;
        this.send(client, { type: 'subscribed', sns: msg.sns });
        return;
      case 'auth':
        this.send(client, { type: 'error', code: 10113, message: 'already signed in' });
        return;
    }
  }

  /**
   * Who may see these devices changed (a share made, changed or ended): each socket that subscribed to some of them
   * by serial number hears which, and re-reads what it shows. Sockets without a device filter are not told: they
   * would learn serial numbers they never asked about.
   */
  private accessChanged(sns: readonly string[]): void {
    for (const c of this.clients) {
      if (!c.actor || !c.filter) continue;
      const named = sns.filter((sn) => c.filter!.has(sn));
      if (named.length > 0) this.send(c, { type: 'access', sns: named });
    }
  }

  private dispatch(event: DeviceEvent, audience: Audience): void {
    let text: string | undefined;
    // Shares of the device, as this instance knows them now; expiry is compared with the clock at this send.
    const shares = this.deps.caches.shares.grantsOf(event.sn);
    const now = shares.length > 0 ? this.deps.now() : undefined;
    const offer = (c: Client) => {
      if (!c.actor || !mayReceive(c.actor, audience, shares, now)) return;
      if (c.filter && !c.filter.has(event.sn)) return;
      if (c.socket.readyState !== OPEN) return;
      if (c.socket.bufferedAmount > this.opts.maxBufferedBytes) {
        c.dropped++;
        this.counters.eventsDropped++;
        return;
      }
      text ??= JSON.stringify({ type: 'event', event } satisfies WsServerMessage);
      c.socket.send(text);
      this.counters.eventsSent++;
    };
    for (const uid of audienceUids(audience, shares)) {
      const set = this.byUid.get(uid);
      if (set) for (const c of set) offer(c);
    }
    for (const c of this.admins) offer(c);
  }

  /**
   * OTA task progress and transmission counters: to the owner and every admin, whatever device filter their socket
   * has.
   */
  private dispatchTask(event: OwnerEvent, audience: Audience): void {
    let text: string | undefined;
    const offer = (c: Client) => {
      if (!c.actor || !mayReceive(c.actor, audience)) return;
      if (c.socket.readyState !== OPEN) return;
      if (c.socket.bufferedAmount > this.opts.maxBufferedBytes) {
        c.dropped++;
        this.counters.eventsDropped++;
        return;
      }
      text ??= JSON.stringify(event satisfies WsServerMessage);
      c.socket.send(text);
      this.counters.eventsSent++;
    };
    for (const uid of audienceUids(audience)) {
      const set = this.byUid.get(uid);
      if (set) for (const c of set) offer(c);
    }
    for (const c of this.admins) offer(c);
  }

  /**
   * Closes the sockets of sessions that just ended (4403), as announced on the bus after the revocation
   * committed, here or on another instance. The periodic check stays as the safety net.
   */
  endSessions(scope: SessionScope): void {
    const hit = (c: Client) =>
      c.actor !== undefined &&
      ('sessionId' in scope ? c.actor.sessionId === scope.sessionId : c.actor.uid === scope.uid);
    for (const c of [...this.clients]) {
      if (!hit(c)) continue;
      this.counters.revoked++;
      this.send(c, { type: 'error', code: 10102, message: 'session ended' });
      this.closeSocket(c, WS_CLOSE.revoked, 'session ended');
    }
  }

  /** Re-reads the sessions of every signed-in socket; closes those signed out, expired or disabled (4403). */
  checkSessions(): Promise<void> {
    // One check at a time; a caller arriving during one waits for it rather than starting a second.
    this.checking ??= this.runSessionCheck().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async runSessionCheck(): Promise<void> {
    const signedIn = [...this.clients].filter((c) => c.actor);
    if (signedIn.length === 0) return;
    const ids = [...new Set(signedIn.map((c) => c.actor!.sessionId))];
    const now = this.deps.now();
    const valid = new Map<number, Actor['role']>();
    for (let i = 0; i < ids.length; i += 1000) {
      const rows = await this.deps.db
        .select({
          id: sessions.id,
          expiresAt: sessions.expiresAt,
          revokedAt: sessions.revokedAt,
          role: users.role,
          disabled: users.disabled,
        })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.uid))
        .where(inArray(sessions.id, ids.slice(i, i + 1000)));
      for (const r of rows) {
        if (!r.revokedAt && !r.disabled && r.expiresAt > now) valid.set(r.id, r.role);
      }
    }
    for (const c of signedIn) {
      const role = valid.get(c.actor!.sessionId);
      if (role === undefined) {
        this.counters.revoked++;
        this.send(c, { type: 'error', code: 10102, message: 'session ended' });
        this.closeSocket(c, WS_CLOSE.revoked, 'session ended');
      } else if (role !== c.actor!.role) {
        // A role change (admin to user or back) takes effect on the open socket too.
        this.unindex(c);
        c.actor = { ...c.actor!, role };
        this.index(c);
      }
    }
  }

  /** Cuts sockets that did not answer the previous ping (their TCP connection is likely gone). */
  heartbeat(): void {
    for (const c of this.clients) {
      if (!c.alive) {
        c.socket.terminate();
        this.forget(c);
        continue;
      }
      c.alive = false;
      if (c.socket.readyState === OPEN) c.socket.ping();
    }
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.unsubscribe();
    this.unsubscribeTasks();
    this.unsubscribeSessions();
    this.unsubscribeAccess();
    for (const c of [...this.clients]) this.closeSocket(c, WS_CLOSE.goingAway, 'server shutting down');
    await this.checking;
  }

  private refuse(client: Client, reason: string): void {
    this.counters.refused++;
    this.send(client, { type: 'error', code: 10102, message: reason });
    this.closeSocket(client, WS_CLOSE.unauthorized, 'unauthorized');
  }

  private send(client: Client, msg: WsServerMessage): void {
    if (client.socket.readyState === OPEN) client.socket.send(JSON.stringify(msg));
  }

  private closeSocket(client: Client, code: number, reason: string): void {
    this.forget(client);
    const s = client.socket;
    if (s.readyState === WebSocket.OPEN || s.readyState === WebSocket.CONNECTING) s.close(code, reason);
  }

  private index(client: Client): void {
    const actor = client.actor!;
    if (actor.role === 'admin') {
      this.admins.add(client);
      return;
    }
    let set = this.byUid.get(actor.uid);
    if (!set) this.byUid.set(actor.uid, (set = new Set()));
    set.add(client);
  }

  private unindex(client: Client): void {
    this.admins.delete(client);
    if (!client.actor) return;
    const set = this.byUid.get(client.actor.uid);
    set?.delete(client);
    if (set?.size === 0) this.byUid.delete(client.actor.uid);
  }

  private forget(client: Client): void {
    clearTimeout(client.authTimer);
    if (!this.clients.delete(client)) return;
    this.unindex(client);
  }
}

function rawText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
