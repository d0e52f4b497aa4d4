import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, type WebSocket } from 'ws';
import {
  TUNNEL_HELLO,
  type TunnelDown,
  type TunnelExposure,
  type TunnelReason,
} from '@cellhub/contract/tunnels';
import { AppError } from '../../lib/app-error';
import type { Deps } from '../../lib/deps';

/**
 * The live side of remote tunnels (docs/tunnels.md), in memory on this instance.
 *
 * One reverse connection per user connection: each TCP connection a person makes to the exposed port (or each
 * WebSocket connection to the tunnel's path, for a `ws` tunnel) is paired with
 * one fresh connection the device opens to the tunnel endpoint, asked for with its own `down/tunnel` and single-use
 * token. No multiplexing, so a slow or stuck stream never holds up another, TCP's own flow control does the
 * backpressure, and closing one side closes exactly its pair. The connection that answers the opening request proves
 * the path and is kept as a spare for the first user connection.
 */

/** The first line of a reverse connection: `CELLHUB-TUNNEL <token>` or `CELLHUB-TUNNEL <token> REFUSED <why>`. */
const HELLO_MAX = 512;
const HELLO_TIMEOUT_MS = 10_000;
/** How long a token is valid (the device must connect within it). */
export const TOKEN_TTL_MS = 60_000;

export interface TunnelTarget {
  id: number;
  deviceId: number;
  /** Who opened it: their right is asked again when the device's shares change. */
  uid: number;
  productKey: string;
  sn: string;
  localIp: string;
  localPort: number;
  allowedIp: string;
  idleMs: number;
  maxMs: number;
}

interface Reverse {
  socket: net.Socket;
  /** Bytes the device sent after its hello line (a server that speaks first: SSH, FTP banners). */
  head: Buffer;
}

interface Waiter {
  tunnelId: number;
  expires: number;
  resolve(r: Reverse): void;
  reject(reason: TunnelReason, why?: string): void;
}

export class TunnelFailure extends Error {
  constructor(
    readonly reason: TunnelReason,
    readonly why = '',
  ) {
    super(`tunnel ${reason}${why ? `: ${why}` : ''}`);
  }
}

/** A person's WebSocket connection to a `ws` tunnel: its bytes are counted per message (no socket counters). */
interface WsUser {
  ws: WebSocket;
  bytesIn: number;
  bytesOut: number;
}

interface Live {
  target: TunnelTarget;
  exposure: TunnelExposure;
  /** tcp: the listener of the exposed port. */
  server: net.Server | undefined;
  port: number | undefined;
  /** ws: the path's secret (shown to those who may control the device) and its SHA-256 (compared in constant time). */
  secret: string | null;
  secretHash: Buffer | undefined;
  open: boolean;
  /** Bytes of user connections that ended; live ones are read from their sockets (no per-chunk work). */
  bytesIn: number;
  bytesOut: number;
  users: Set<net.Socket>;
  wsUsers: Set<WsUser>;
  connections: number;
  refused: number;
  lastActivity: number;
  /** Bytes both ways when the idle check last looked. */
  lastTotal: number;
  spare: Reverse | undefined;
  sockets: Set<net.Socket>;
  idleTimer: NodeJS.Timeout | undefined;
  maxTimer: NodeJS.Timeout | undefined;
  onClosed: (reason: TunnelReason, live: LiveCounts) => Promise<void>;
}

export interface LiveCounts {
  bytesIn: number;
  bytesOut: number;
  connections: number;
  /** Connections to the exposed port from another address, turned away. */
  refused: number;
}

/** `::ffff:1.2.3.4` is the IPv4 client of a dual-stack socket: compared as `1.2.3.4`. */
export const plainIp = (ip: string | undefined): string => (ip ?? '').replace(/^::ffff:/i, '');

/** Bytes from the device waiting to go out as frames before the device is paused. */
const WS_HIGH_WATER = 1024 * 1024;

const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();

/** What `open` gives: the exposed port (tcp) or the secret of the WebSocket path (ws, known only here). */
export interface Exposed {
  port: number | null;
  secret: string | null;
}

export class TunnelManager {
  private endpoint: net.Server | undefined;
  private endpointStarting: Promise<number> | undefined;
  private readonly waiters = new Map<string, Waiter>();
  private readonly live = new Map<number, Live>();
  private readonly pending = new Set<net.Socket>();
  /** Rows of closed tunnels being written (stop waits for them). */
  private readonly writes = new Set<Promise<void>>();
  /** Hello lines refused (bad, reused or expired token), for tests and health. */
  readonly stats = { badTokens: 0 };

  constructor(private readonly deps: Deps) {}

  /** The endpoint devices connect back to, `host:port`; listens on first use (88004 when it cannot). */
  async endpointAddress(): Promise<{ host: string; port: number }> {
    const port = await this.startEndpoint();
    return { host: this.deps.config.tunnels.address, port };
  }

  private startEndpoint(): Promise<number> {
    this.endpointStarting ??= new Promise<number>((resolve, reject) => {
      const server = net.createServer((s) => this.reverse(s));
      server.once('error', (err) => {
        this.endpointStarting = undefined;
        reject(new AppError(88004, 503, undefined, { reason: (err as NodeJS.ErrnoException).code }));
      });
      server.listen(this.deps.config.tunnels.port, this.deps.config.host, () => {
        this.endpoint = server;
        server.on('error', (err) => this.deps.log.warn({ err }, 'tunnel endpoint error'));
        resolve((server.address() as net.AddressInfo).port);
      });
    });
    return this.endpointStarting;
  }

  /** A reverse connection from a device: its first line names the token. */
  private reverse(socket: net.Socket): void {
    this.pending.add(socket);
    socket.setNoDelay(true);
    socket.setTimeout(HELLO_TIMEOUT_MS, () => socket.destroy());
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const nl = buf.indexOf(0x0a);
      if (nl < 0) {
        if (buf.length > HELLO_MAX) socket.destroy();
        return;
      }
      socket.off('data', onData);
      socket.pause();
      socket.setTimeout(0);
      this.pending.delete(socket);
      const line = buf.subarray(0, nl).toString('utf8').replace(/\r$/, '');
      this.hello(socket, line, buf.subarray(nl + 1));
    };
    socket.on('data', onData);
    socket.on('error', () => undefined);
    socket.on('close', () => this.pending.delete(socket));
  }

  private hello(socket: net.Socket, line: string, head: Buffer): void {
    const [magic, token, verdict, ...why] = line.split(' ');
    const waiter = magic === TUNNEL_HELLO && token ? this.waiters.get(token) : undefined;
    // Single use: the token is gone whatever this connection turns out to be.
    if (token) this.waiters.delete(token);
    if (!waiter || waiter.expires < this.deps.now().getTime()) {
      this.stats.badTokens += 1;
      socket.destroy();
      return;
    }
    if (verdict === 'REFUSED') {
      socket.destroy();
      waiter.reject('refused', why.join(' ').slice(0, 200));
      return;
    }
    waiter.resolve({ socket, head });
  }

  /**
   * Asks the device for one reverse connection: `down/tunnel` with a fresh single-use token, then waits for it to
   * connect (TunnelFailure `timeout`, `refused`, or `offline` when the message cannot be delivered).
   */
  private async askDevice(target: TunnelTarget, waitMs: number): Promise<Reverse> {
    const { host, port } = await this.endpointAddress();
    const token = randomBytes(24).toString('base64url');
    const expires = this.deps.now().getTime() + TOKEN_TTL_MS;
    const answer = new Promise<Reverse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(token);
        reject(new TunnelFailure('timeout'));
      }, waitMs);
      this.waiters.set(token, {
        tunnelId: target.id,
        expires,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (reason, why) => {
          clearTimeout(timer);
          reject(new TunnelFailure(reason, why));
        },
      });
    });
    const message: TunnelDown = {
      id: target.id,
      token,
      host,
      port,
      local_ip: target.localIp,
      local_port: target.localPort,
      expires,
    };
    try {
      await this.deps.link.send(target.productKey, target.sn, 'tunnel', message);
    } catch (err) {
      this.waiters.get(token)?.reject('offline', err instanceof Error ? err.message : '');
      this.waiters.delete(token);
    }
    return answer;
  }

  /** A free port of TUNNEL_PORTS this instance can listen on (88003 when none). */
  private async listen(live: Live): Promise<{ server: net.Server; port: number }> {
    const { min, max } = this.deps.config.tunnels.ports;
    const taken = new Set([...this.live.values()].map((l) => l.port));
    for (let port = min; port <= max; port += 1) {
      if (taken.has(port)) continue;
      const server = net.createServer((s) => this.user(live, s));
      const ok = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(port, this.deps.config.host, () => resolve(true));
      });
      if (ok) {
        server.on('error', (err) => this.deps.log.warn({ err, port }, 'tunnel port error'));
        return { server, port };
      }
    }
    throw new AppError(88003);
  }

  /**
   * Opens a tunnel: takes a port (tcp) or makes the secret of its WebSocket path (ws), asks the device for its first
   * reverse connection and waits up to `waitMs` for it. Rejects with TunnelFailure (device) or AppError 88003 (no
   * port). `onClosed` runs once, whenever it closes later (idle, max duration, a person, the server stopping).
   */
  async open(
    target: TunnelTarget,
    waitMs: number,
    onClosed: (reason: TunnelReason, counts: LiveCounts) => Promise<void>,
    exposure: TunnelExposure = 'tcp',
  ): Promise<Exposed> {
    const secret = exposure === 'ws' ? randomBytes(24).toString('base64url') : null;
    const live: Live = {
      target,
      exposure,
      server: undefined,
      port: undefined,
      secret,
      secretHash: secret === null ? undefined : sha256(secret),
      open: false,
      bytesIn: 0,
      bytesOut: 0,
      users: new Set<net.Socket>(),
      wsUsers: new Set<WsUser>(),
      connections: 0,
      refused: 0,
      lastActivity: Date.now(),
      lastTotal: 0,
      spare: undefined,
      sockets: new Set<net.Socket>(),
      idleTimer: undefined,
      maxTimer: undefined,
      onClosed,
    };
    if (exposure === 'tcp') Object.assign(live, await this.listen(live));
    this.live.set(target.id, live);
    try {
      const first = await this.askDevice(target, waitMs);
      if (this.live.get(target.id) !== live) {
        first.socket.destroy();
        throw new TunnelFailure('server_stop');
      }
      this.keepSpare(live, first);
    } catch (err) {
      this.live.delete(target.id);
      live.server?.close();
      throw err;
    }
    live.open = true;
    live.lastActivity = Date.now();
    this.armIdle(live, target.idleMs);
    live.maxTimer = setTimeout(() => void this.close(target.id, 'max_duration'), target.maxMs);
    live.maxTimer.unref();
    return { port: live.port ?? null, secret };
  }

  private keepSpare(live: Live, r: Reverse): void {
    live.spare = r;
    live.sockets.add(r.socket);
    r.socket.once('close', () => {
      live.sockets.delete(r.socket);
      if (live.spare === r) live.spare = undefined;
    });
  }

  /**
   * Idle: no byte either way for `idleMs`. Bytes are read from the sockets' own counters at each look (a quarter of
   * the timeout apart), so piping costs nothing per chunk; a tunnel closes between 1 and 1.25 timeouts after its
   * last byte.
   */
  private armIdle(live: Live, idleMs: number): void {
    live.idleTimer = setTimeout(
      () => {
        if (this.live.get(live.target.id) !== live) return;
        const c = this.snapshot(live);
        const total = c.bytesIn + c.bytesOut;
        if (total !== live.lastTotal) {
          live.lastTotal = total;
          live.lastActivity = Date.now();
        }
        if (Date.now() - live.lastActivity >= idleMs) void this.close(live.target.id, 'idle');
        else this.armIdle(live, idleMs);
      },
      Math.max(10, Math.floor(idleMs / 4)),
    );
    live.idleTimer.unref();
  }

  /** A person's connection to the exposed port: the opener's address only, then paired with a reverse connection. */
  private user(live: Live, socket: net.Socket): void {
    socket.on('error', () => undefined);
    if (!live.open || plainIp(socket.remoteAddress) !== live.target.allowedIp) {
      live.refused += 1;
      socket.destroy();
      return;
    }
    socket.pause();
    socket.setNoDelay(true);
    live.sockets.add(socket);
    live.connections += 1;
    live.lastActivity = Date.now();
    socket.once('close', () => live.sockets.delete(socket));
    this.reverseFor(
      live,
      () => socket.destroyed,
      (r) => this.pair(live, socket, r),
      () => socket.destroy(),
    );
  }

  /** The spare, or a fresh reverse connection asked of the device, for one person connection. */
  private reverseFor(
    live: Live,
    gone: () => boolean,
    paired: (r: Reverse) => void,
    failed: () => void,
  ): void {
    const spare = live.spare;
    live.spare = undefined;
    const reverse =
      spare && !spare.socket.destroyed
        ? Promise.resolve(spare)
        : this.askDevice(live.target, this.deps.config.tunnels.openTimeoutMs);
    reverse.then(
      (r) => {
        if (gone() || this.live.get(live.target.id) !== live) {
          r.socket.destroy();
          return;
        }
        paired(r);
      },
      (err: unknown) => {
        this.deps.log.info({ err, tunnel: live.target.id }, 'tunnel connection not answered');
        failed();
      },
    );
  }

  /**
   * The tunnel a WebSocket path names, when it is open here and `secret` is its secret (constant-time compare of
   * hashes, so neither the length nor a prefix leaks). The caller checks the address and the opener's right.
   */
  wsTarget(id: number, secret: string): TunnelTarget | undefined {
    const live = this.live.get(id);
    if (!live?.open || !live.secretHash) return undefined;
    return timingSafeEqual(live.secretHash, sha256(secret)) ? live.target : undefined;
  }

  /** The secret of a `ws` tunnel open on this instance. */
  wsSecret(id: number): string | null {
    const live = this.live.get(id);
    return live?.open ? live.secret : null;
  }

  /** A WebSocket connection turned away before the upgrade (another address): counted like a TCP one. */
  refuse(id: number): void {
    const live = this.live.get(id);
    if (live) live.refused += 1;
  }

  /**
   * A person's WebSocket connection to a `ws` tunnel, already checked (wsTarget, address, right): paired with one
   * reverse connection like a TCP connection. Binary and text frames both carry bytes to the device; the device's
   * bytes go back as binary frames. Messages sent before the device connected back wait in the stream.
   */
  wsUser(id: number, ws: WebSocket): void {
    const live = this.live.get(id);
    if (!live?.open || live.exposure !== 'ws') {
      ws.close(1008, 'tunnel closed');
      return;
    }
    const user: WsUser = { ws, bytesIn: 0, bytesOut: 0 };
    live.connections += 1;
    live.lastActivity = Date.now();
    live.wsUsers.add(user);
    ws.once('close', () => {
      live.wsUsers.delete(user);
      live.bytesIn += user.bytesIn;
      live.bytesOut += user.bytesOut;
    });
    ws.on('error', () => undefined);
    // The stream pauses the socket when its buffer is full: WebSocket frames get TCP's backpressure too.
    const stream = createWebSocketStream(ws);
    stream.on('error', () => undefined);
    stream.pause();
    this.reverseFor(
      live,
      () => ws.readyState !== ws.OPEN,
      (r) => this.pairWs(live, stream, user, r),
      () => ws.close(1011, 'device did not answer'),
    );
  }

  /**
   * Person to device through the stream (it pauses the WebSocket when the device is slow); device to person as one
   * binary frame per chunk, pausing the device while more than WS_HIGH_WATER bytes wait to be sent. The device side
   * ending closes the WebSocket with 1000 after its last frame (a WebSocket has no half-close).
   */
  private pairWs(live: Live, stream: Duplex, user: WsUser, r: Reverse): void {
    const device = r.socket;
    const ws = user.ws;
    live.sockets.add(device);
    device.setNoDelay(true);
    device.on('error', () => undefined);
    const ended = () => {
      if (ws.readyState === ws.OPEN) ws.close(1000);
    };
    device.once('end', ended);
    device.once('close', () => {
      live.sockets.delete(device);
      ended();
    });
    ws.once('close', () => device.destroy());
    const toPerson = (chunk: Buffer) => {
      user.bytesOut += chunk.length;
      if (ws.readyState !== ws.OPEN) return;
      ws.send(chunk, { binary: true }, () => {
        if (device.isPaused() && ws.bufferedAmount < WS_HIGH_WATER / 2) device.resume();
      });
      if (ws.bufferedAmount > WS_HIGH_WATER) device.pause();
    };
    if (r.head.length > 0) toPerson(r.head);
    device.on('data', toPerson);
    stream.on('data', (chunk: Buffer) => (user.bytesIn += chunk.length));
    stream.pipe(device, { end: false });
    device.resume();
  }

  private pair(live: Live, user: net.Socket, r: Reverse): void {
    const device = r.socket;
    live.sockets.add(device);
    device.once('close', () => {
      live.sockets.delete(device);
      user.destroy();
    });
    user.once('close', () => device.destroy());
    device.on('error', () => undefined);
    device.setNoDelay(true);
    live.users.add(user);
    user.once('close', () => {
      // Ended: its counts move to the tunnel's (a socket's counters stay readable after close).
      live.users.delete(user);
      live.bytesIn += user.bytesRead;
      live.bytesOut += user.bytesWritten;
    });
    if (r.head.length > 0) user.write(r.head);
    user.pipe(device);
    device.pipe(user);
  }

  /** Running counts of an open tunnel on this instance. */
  counts(id: number): LiveCounts | undefined {
    const l = this.live.get(id);
    return l ? this.snapshot(l) : undefined;
  }

  /** The live tunnels of this instance on these devices. */
  liveOn(deviceIds: readonly number[]): TunnelTarget[] {
    return [...this.live.values()].map((l) => l.target).filter((t) => deviceIds.includes(t.deviceId));
  }

  has(id: number): boolean {
    return this.live.has(id);
  }

  /** Closes a live tunnel: its port and every connection; resolves once its row is written. False: not live here. */
  async close(id: number, reason: TunnelReason): Promise<boolean> {
    const live = this.live.get(id);
    if (!live) return false;
    this.live.delete(id);
    clearTimeout(live.idleTimer);
    clearTimeout(live.maxTimer);
    live.server?.close();
    for (const s of live.sockets) s.destroy();
    // 1001 "going away", the tunnel's reason as the close reason (a stuck peer is cut after ws's close timeout).
    for (const u of live.wsUsers) u.ws.close(1001, reason);
    for (const [token, w] of this.waiters) {
      if (w.tunnelId === id) {
        this.waiters.delete(token);
        w.reject(reason);
      }
    }
    if (live.open) {
      const write = live.onClosed(reason, this.snapshot(live)).catch((err: unknown) => {
        this.deps.log.warn({ err, tunnel: id }, 'tunnel close not written');
      });
      this.writes.add(write);
      await write;
      this.writes.delete(write);
    }
    return true;
  }

  private snapshot(l: Live): LiveCounts {
    let bytesIn = l.bytesIn;
    let bytesOut = l.bytesOut;
    for (const u of l.users) {
      bytesIn += u.bytesRead;
      bytesOut += u.bytesWritten;
    }
    for (const u of l.wsUsers) {
      bytesIn += u.bytesIn;
      bytesOut += u.bytesOut;
    }
    return { bytesIn, bytesOut, connections: l.connections, refused: l.refused };
  }

  /** Closes every tunnel and the endpoint (server stop). */
  async stop(): Promise<void> {
    await Promise.all([...this.live.keys()].map((id) => this.close(id, 'server_stop')));
    await Promise.all([...this.writes]);
    for (const s of this.pending) s.destroy();
    const endpoint = this.endpoint;
    this.endpoint = undefined;
    this.endpointStarting = undefined;
    if (endpoint) await new Promise<void>((resolve) => endpoint.close(() => resolve()));
  }
}
