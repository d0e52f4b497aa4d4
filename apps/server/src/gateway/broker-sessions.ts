import type { Aedes, Client } from 'aedes';
import memoryPersistence from 'aedes-persistence';

/**
 * The subscription a kept session without subscriptions shows Aedes when it is resumed. Aedes answers Session
 * Present 1 only when it restores at least one subscription (connect.js, restoreSubs), but a session exists once a
 * connection kept it, with or without subscriptions (MQTT-3.2.2-2). The gateway's authorizeSubscribe refuses this
 * filter silently, so nothing is ever subscribed to it.
 */
export const SESSION_MARKER = '$cellhub/session';

/** setTimeout's longest delay; longer expiry intervals are waited out in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** MQTT 5.0 Session Expiry Interval 0xFFFFFFFF: the session does not expire. */
const NEVER = 0xffffffff;

const SESSIONS = Symbol('cellhub.brokerSessions');

type Id = { id: string };
interface Message {
  messageId?: number;
}

/** The promise API of aedes-persistence 11 (its typings describe the callback one) that Aedes 1.2 calls. */
interface Store {
  setup(broker: Aedes): Promise<void>;
  subscriptionsByClient(client: Id): Promise<{ topic: string; qos: number }[]>;
  cleanSubscriptions(client: Id): Promise<unknown>;
  incomingDelPacket(client: Id, packet: Message): Promise<void>;
  cleanIncoming(client: Id): Promise<void>;
  outgoingStream(client: Id): AsyncIterable<Message>;
  outgoingClearMessageId(client: Id, packet: Message): Promise<unknown>;
}

interface KeptSession {
  /** Seconds the session outlives its connection; Infinity until a clean connect (3.1.1, 5.0 0xFFFFFFFF). */
  expirySeconds: number;
  /** The connection holding the session, while there is one. */
  owner?: Client;
  /** When the session ends if nobody resumes it (ms on the sessions' clock), while it is counting down. */
  expiresAt?: number;
  timer?: NodeJS.Timeout;
}

export interface BrokerSessionsOptions {
  /** Milliseconds clock for session expiry (tests). */
  now?: () => number;
}

/**
 * Session state of the embedded broker beyond what Aedes 1.2 keeps: which sessions exist (for Session Present),
 * MQTT 5.0 session lifetimes (Clean Start and Session Expiry Interval are separate in 5.0; Aedes knows only the
 * 3.1.1 clean flag), and inbound QoS 2 messages already handed to the gateway, so a PUBLISH resent with the same
 * packet id before its PUBREL is acknowledged again but not handled again, also after a reconnect to the session.
 *
 * It lives in the broker's persistence (Aedes' in-memory one, wrapped): Aedes asks the persistence when a session
 * is resumed (subscriptionsByClient), discarded (cleanSubscriptions, cleanIncoming) and when a QoS 2 exchange ends
 * (incomingDelPacket), which are exactly the moments this state changes. Like Aedes' own in-memory sessions it
 * does not outlive the process.
 *
 * The lifecycle of a session, per client id:
 * - `claim` (the gateway, after authenticating a CONNECT): a connection is about to take the session over. The
 *   previous connection's end does not count the session down then.
 * - `client` (Aedes registered the connection, before its CONNACK goes out): the connection holds the session;
 *   its expiry is the one its CONNECT asked for.
 * - `clientDisconnect`: the session ends now (expiry 0), counts down (5.0 expiry), or stays (3.1.1 clean 0).
 */
export class BrokerSessions {
  /** For tests and health: what the sessions did. */
  readonly stats = { qos2Resent: 0, expired: 0 };
  /** The persistence to give Aedes (`Aedes.createBroker({ persistence })`). */
  readonly persistence: object;
  private readonly base: Store;
  private readonly now: () => number;
  private readonly kept = new Map<string, KeptSession>();
  /** Authenticated connections waiting to take over their client id's session. */
  private readonly claims = new Map<string, Client>();
  /** MQTT 5.0 connections: the Session Expiry Interval their CONNECT asked for, in seconds. */
  private readonly expiries = new WeakMap<Client, number>();
  /** Inbound QoS 2 messages handed to the gateway and not yet released by PUBREL, per client id and packet id. */
  private readonly handed = new Map<string, Map<number, Promise<void>>>();

  constructor(options: BrokerSessionsOptions = {}) {
    this.now = options.now ?? Date.now;
    const store = memoryPersistence() as unknown as Store & Record<PropertyKey, unknown>;
    const base: Store = {
      setup: store.setup.bind(store),
      subscriptionsByClient: store.subscriptionsByClient.bind(store),
      cleanSubscriptions: store.cleanSubscriptions.bind(store),
      incomingDelPacket: store.incomingDelPacket.bind(store),
      cleanIncoming: store.cleanIncoming.bind(store),
      outgoingStream: store.outgoingStream.bind(store),
      outgoingClearMessageId: store.outgoingClearMessageId.bind(store),
    };
    this.base = base;
    // Aedes requires an async setup; it hands over the broker, whose events the lifecycle follows.
    store.setup = async (broker: Aedes) => {
      await base.setup(broker);
      this.attach(broker);
    };
    store.subscriptionsByClient = async (client: Id) => {
      const subs = await base.subscriptionsByClient(client);
      return subs.length === 0 && this.kept.has(client.id) ? [{ topic: SESSION_MARKER, qos: 0 }] : subs;
    };
    store.incomingDelPacket = async (client: Id, packet: Message) => {
      try {
        await base.incomingDelPacket(client, packet);
      } finally {
        this.release(client.id, packet.messageId);
      }
    };
    // Aedes discards a session's inbound QoS 2 state with this on a clean connect (after taking over the previous
    // connection) and when a clean session's connection ends; the rest of the session's delivery state goes too.
    store.cleanIncoming = (client: Id) => this.discard(client.id);
    store[SESSIONS] = this;
    this.persistence = store;
  }

  /** The sessions of a broker created with their persistence, if it was. */
  static of(aedes: Aedes): BrokerSessions | undefined {
    const p = (aedes as unknown as { persistence?: Record<PropertyKey, unknown> }).persistence;
    const sessions = p?.[SESSIONS];
    return sessions instanceof BrokerSessions ? sessions : undefined;
  }

  /** Whether a session is kept for this client id (held by a connection or waiting for one). */
  has(clientId: string): boolean {
    return this.kept.has(clientId);
  }

  /**
   * MQTT 5.0: the Session Expiry Interval (seconds) a connection's CONNECT asked for, or its DISCONNECT set. Read
   * when Aedes registers the connection and when it ends; 3.1.1 connections have none (clean 0 keeps the session
   * until a clean connect, clean 1 ends it with the connection).
   */
  setExpiry(client: Client, seconds: number): void {
    this.expiries.set(client, seconds >= NEVER ? Infinity : seconds);
    const s = this.kept.get(client.id);
    if (s?.owner === client) s.expirySeconds = seconds >= NEVER ? Infinity : seconds;
  }

  /** An authenticated CONNECT: this connection takes over its client id's session once Aedes registers it. */
  claim(client: Client): void {
    this.claims.set(client.id, client);
    client.conn.once('close', () => {
      if (this.claims.get(client.id) !== client) return;
      // It never got registered (closed while connecting): a session it would have resumed counts down again.
      this.claims.delete(client.id);
      const s = this.kept.get(client.id);
      if (s && !s.owner) this.countDown(client.id, s);
    });
  }

  /**
   * Hands the first copy of an inbound QoS 2 message to `handle`; a copy resent with the same packet id (DUP,
   * or after a reconnect to the session) before the PUBREL released it waits for that first one and is not handled
   * again. `handle` must not reject.
   */
  once(clientId: string, messageId: number, handle: () => Promise<void>): Promise<void> {
    let ids = this.handed.get(clientId);
    if (!ids) this.handed.set(clientId, (ids = new Map()));
    const pending = ids.get(messageId);
    if (pending) {
      this.stats.qos2Resent++;
      return pending;
    }
    const done = handle();
    ids.set(messageId, done);
    return done;
  }

  // --- lifecycle ----------------------------------------------------------------------------------------

  private attach(aedes: Aedes): void {
    aedes.on('client', (client) => this.opened(client));
    aedes.on('clientDisconnect', (client) => this.closed(client));
    aedes.on('closed', () => {
      for (const s of this.kept.values()) clearTimeout(s.timer);
    });
  }

  /** Aedes registered a connection (its CONNACK follows): it holds its client id's session now. */
  private opened(client: Client): void {
    if (this.claims.get(client.id) === client) this.claims.delete(client.id);
    const previous = this.kept.get(client.id);
    if (previous) clearTimeout(previous.timer);
    const expiry = this.expiries.get(client) ?? (client.clean ? 0 : Infinity);
    if (client.clean && expiry === 0) {
      // A clean session: Aedes discarded what was there and ends it with the connection.
      this.kept.delete(client.id);
      return;
    }
    // MQTT 5.0 Clean Start 1 with an expiry reached Aedes as a clean session, so it discarded the old session;
    // the new one must be kept from now on (subscriptions stored, messages queued while offline).
    if (client.clean) (client as { clean: boolean }).clean = false;
    this.kept.set(client.id, { expirySeconds: expiry, owner: client });
  }

  private closed(client: Client): void {
    const s = this.kept.get(client.id);
    if (!s || s.owner !== client) return;
    s.owner = undefined;
    const next = this.claims.get(client.id);
    // Taken over: the new connection decides what becomes of the session when Aedes registers it.
    if (next && next !== client && !next.closed) return;
    this.countDown(client.id, s);
  }

  private countDown(clientId: string, s: KeptSession): void {
    if (s.expirySeconds === Infinity) return;
    s.expiresAt ??= this.now() + s.expirySeconds * 1000;
    this.arm(clientId, s);
  }

  private arm(clientId: string, s: KeptSession): void {
    clearTimeout(s.timer);
    s.timer = undefined;
    // A connection holding the session, or about to, decides again when it ends.
    if (this.kept.get(clientId) !== s || s.owner || this.claims.has(clientId)) return;
    const left = (s.expiresAt ?? 0) - this.now();
    if (left <= 0) {
      void this.end(clientId, s);
      return;
    }
    s.timer = setTimeout(
      () => {
        s.timer = undefined;
        this.arm(clientId, s);
      },
      Math.min(left, MAX_TIMER_MS),
    );
    s.timer.unref();
  }

  /** The session is over: its subscriptions, queued messages and QoS 2 state go. */
  private async end(clientId: string, s: KeptSession): Promise<void> {
    if (this.kept.get(clientId) !== s) return;
    this.kept.delete(clientId);
    if (s.expirySeconds > 0) this.stats.expired++;
    try {
      await this.base.cleanSubscriptions({ id: clientId });
      await this.discard(clientId);
    } catch {
      // In memory nothing fails; a session that could not be wiped is resumed without Session Present.
    }
  }

  /** Inbound QoS 2 state and queued outbound messages of a session, and what the gateway was handed. */
  private async discard(clientId: string): Promise<void> {
    this.handed.delete(clientId);
    await this.base.cleanIncoming({ id: clientId });
    for await (const packet of this.base.outgoingStream({ id: clientId })) {
      await this.base.outgoingClearMessageId({ id: clientId }, packet);
    }
  }

  private release(clientId: string, messageId: number | undefined): void {
    const ids = this.handed.get(clientId);
    if (!ids || messageId === undefined) return;
    ids.delete(messageId);
    if (ids.size === 0) this.handed.delete(clientId);
  }
}
