import dgram from 'node:dgram';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { eq } from 'drizzle-orm';
import {
  type ConnectedDevice,
  dataBytes,
  type DeviceHostCounters,
  type DeviceHostState,
  type RefusedRegistration,
} from '@cellhub/contract/device-hosts';
import type { DownKind } from '@cellhub/contract/protocol';
import type { DeviceGateway } from '../../gateway/device-gateway';
import type { DeviceLink } from '../../gateway/device-link';
import { startPeriodic, type Periodic } from '../../jobs/periodic';
import { AppError } from '../../lib/app-error';
import type { Deps } from '../../lib/deps';
import type { DeviceRef } from '../devices/device-ref';
import { devices } from '../devices/devices.table';
import { encodeCommand } from '../scripts/script-commands';
import { type DeviceHostRow, deviceHosts } from './device-hosts.table';

/** Refused registrations kept per host (memory only, newest first). */
export const REFUSED_KEPT = 50;
/** Packets a connection may send while its registration is being looked up; more are dropped and counted. */
const PENDING_MAX = 8;
const SWEEP_MS = 1000;

type Reason = RefusedRegistration['reason'];

/** One DTU's connection (TCP) or address (UDP) on a host; `device` once its registration was accepted. */
interface Conn {
  host: Listener;
  remote: string;
  since: number;
  lastSeen: number;
  bytesIn: number;
  bytesOut: number;
  framesIn: number;
  heartbeats: number;
  device?: DeviceRef;
  /** Its own connects whose `presence.changed` has not arrived yet (any other one is an MQTT takeover). */
  ownConnects: number;
  /** The registration is being looked up; packets meanwhile wait here. */
  pending?: Buffer[];
  closed: boolean;
  write(bytes: Buffer): Promise<void>;
  /** Ends the connection (TCP) or forgets the address (UDP). */
  end(): void;
}

/** A running (or failed) host on this server: its listener, connections and counters. */
interface Listener {
  row: DeviceHostRow;
  state: DeviceHostState;
  error: string | null;
  pattern: RegExp;
  heartbeat: Buffer | null;
  counters: DeviceHostCounters;
  refused: RefusedRegistration[];
  conns: Set<Conn>;
  /** UDP: connections by `address:port`. */
  byRemote?: Map<string, Conn>;
  close(): Promise<void>;
}

const zeroCounters = (): DeviceHostCounters => ({
  connections: 0,
  registrations: 0,
  refused: 0,
  bytes_in: 0,
  bytes_out: 0,
  frames_in: 0,
  frames_out: 0,
  heartbeats: 0,
  timeouts: 0,
  errors: 0,
});

export interface HostStatus {
  state: DeviceHostState;
  error: string | null;
  connected: number;
  counters: DeviceHostCounters;
  devices: ConnectedDevice[];
  refused: RefusedRegistration[];
}

/**
 * Runs the device hosts of this server (docs/device-hosts.md): one TCP or UDP listener per enabled host. A DTU's
 * first packet registers it (the host's pattern finds its sn or IMEI); from then on it is online through the
 * gateway's presence path (DeviceGateway.connected / disconnected, so device log, alerts and live events are those
 * of an MQTT device), each packet that is not a heartbeat is a `raw` uplink (DeviceGateway.uplink: limits, Modbus
 * poller, script, raw rows), and `link()` routes downlinks of socket-connected devices to their socket.
 */
export class DeviceHostManager {
  private listeners = new Map<number, Listener>();
  /** Registered connections by sn: one per device on this server (a second registration takes over). */
  private sessions = new Map<string, Conn>();
  private sweep: Periodic | undefined;
  private offPresence: (() => void) | undefined;
  private bench: { stored(frame: Buffer): void } | undefined;
  /** Changes of one host applied in order (create, update, delete may race). */
  private chains = new Map<number, Promise<unknown>>();

  constructor(
    private readonly deps: Deps,
    private readonly gateway: DeviceGateway,
  ) {}

  /** Starts the enabled hosts; a port that cannot be bound leaves its host `failed`, the others run. */
  async start(): Promise<void> {
    this.sweep = startPeriodic({
      name: 'device-host idle sweep',
      everyMs: SWEEP_MS,
      run: () => this.sweepIdle(),
      log: this.deps.log,
    });
    // An MQTT connection of a device held here takes the device over, as a second MQTT connection would.
    this.offPresence = this.deps.events.on('presence.changed', (e) => {
      if (e.online !== 1) return;
      const conn = this.sessions.get(e.device.sn);
      if (!conn) return;
      // The connection's own connect first (an MQTT session it took over may still be closing then).
      if (conn.ownConnects > 0) conn.ownConnects--;
      else if (this.gateway.brokerHolds(e.device.sn)) this.close(conn, 'takeover', false);
    });
    const rows = await this.deps.db.select().from(deviceHosts).where(eq(deviceHosts.enabled, true));
    await Promise.all(rows.map((row) => this.apply(row.id, row).catch(() => undefined)));
  }

  async stop(): Promise<void> {
    this.offPresence?.();
    await this.sweep?.stop();
    await Promise.all([...this.chains.values()].map((c) => c.catch(() => undefined)));
    await Promise.all([...this.listeners.keys()].map((id) => this.stopHost(id, 'server stopping')));
  }

  /**
   * Makes the running listener of host `id` match `row` (undefined: deleted). A host whose port, protocol, address
   * or rules changed is restarted, its connections closed (the DTUs reconnect and register again). Rejects with
   * 84002 when the port cannot be bound (in use by another program); the host is then `failed`.
   */
  apply(id: number, row: DeviceHostRow | undefined): Promise<void> {
    const prev = this.chains.get(id) ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(() => this.applyNow(id, row));
    this.chains.set(id, next);
    void next
      .catch(() => undefined)
      .then(() => {
        if (this.chains.get(id) === next) this.chains.delete(id);
      });
    return next;
  }

  private async applyNow(id: number, row: DeviceHostRow | undefined): Promise<void> {
    const running = this.listeners.get(id);
    if (running && row && running.state === 'listening' && sameListener(running.row, row)) {
      running.row = row;
      running.heartbeat = heartbeatOf(row);
      return;
    }
    await this.stopHost(id, row ? 'host changed' : 'host deleted');
    if (!row) return;
    if (!row.enabled) {
      this.listeners.set(id, this.idle(row, 'stopped', null));
      return;
    }
    await this.listen(row);
  }

  /** Whether `port` can be bound now (a probe, closed at once): 84002 when another program holds it. */
  async probe(protocol: 'tcp' | 'udp', bind: string, port: number): Promise<void> {
    const err = await (protocol === 'tcp' ? probeTcp(bind, port) : probeUdp(bind, port));
    if (err) throw new AppError(84002, 400, undefined, [{ field: 'port', message: err }]);
  }

  /** Whether a host of this server is listening on `port` (so a probe of it fails for a good reason). */
  holdsPort(port: number, exceptId?: number): boolean {
    for (const l of this.listeners.values()) {
      if (l.row.id !== exceptId && l.state === 'listening' && l.row.port === port) return true;
    }
    return false;
  }

  status(id: number): HostStatus {
    const l = this.listeners.get(id);
    if (!l) {
      return {
        state: 'stopped',
        error: null,
        connected: 0,
        counters: zeroCounters(),
        devices: [],
        refused: [],
      };
    }
    const iso = (ms: number) => new Date(ms).toISOString();
    const list: ConnectedDevice[] = [];
    for (const c of l.conns) {
      if (!c.device) continue;
      list.push({
        sn: c.device.sn,
        product_key: c.device.productKey,
        remote: c.remote,
        since: iso(c.since),
        last_seen: iso(c.lastSeen),
        bytes_in: c.bytesIn,
        bytes_out: c.bytesOut,
        frames_in: c.framesIn,
        heartbeats: c.heartbeats,
      });
    }
    list.sort((a, b) => a.sn.localeCompare(b.sn));
    return {
      state: l.state,
      error: l.error,
      connected: list.length,
      counters: { ...l.counters },
      devices: list,
      refused: [...l.refused],
    };
  }

  /** Connected devices of a host, without building the whole status (list pages). */
  connectedCount(id: number): number {
    const l = this.listeners.get(id);
    if (!l) return 0;
    let n = 0;
    for (const c of l.conns) if (c.device) n++;
    return n;
  }

  /** Whether the device is registered on a host of this server. */
  holds(sn: string): boolean {
    return this.sessions.has(sn);
  }

  /**
   * The server's device link: downlinks of a device registered on a host go to its socket, everything else to
   * `inner` (the MQTT gateway). Kicking a device closes its socket too.
   */
  link(inner: DeviceLink): DeviceLink {
    return {
      send: (productKey, sn, kind, payload) => {
        const conn = this.sessions.get(sn);
        return conn
          ? this.send(conn, productKey, sn, kind, payload)
          : inner.send(productKey, sn, kind, payload);
      },
      online: (sn, stored) => this.sessions.has(sn) || inner.online(sn, stored),
      kick: (sn, reason) => {
        const conn = this.sessions.get(sn);
        if (conn) this.close(conn, reason, true);
        inner.kick(sn, reason);
      },
      invalidate: (sn) => inner.invalidate(sn),
    };
  }

  // --- downlinks ------------------------------------------------------------------------------------------------

  /**
   * What a socket carries down: raw bytes as they are; a command as its script's encoding, else its data (hex
   * bytes, or the text as UTF-8). Other kinds (configuration, OTA, replies) are MQTT messages: 84004.
   */
  private async send(
    conn: Conn,
    productKey: string,
    sn: string,
    kind: DownKind,
    payload: unknown,
  ): Promise<void> {
    if (kind !== 'raw' && kind !== 'cmd') throw new AppError(84004);
    let bytes: Buffer;
    if (Buffer.isBuffer(payload) || payload instanceof Uint8Array) bytes = Buffer.from(payload);
    else if (kind === 'cmd') {
      const encoded = await encodeCommand(this.gateway.telemetry.scripts, productKey, sn, payload);
      if (encoded) bytes = encoded;
      else {
        const p = (payload ?? {}) as { type?: unknown; data?: unknown };
        const data = String(p.data ?? '');
        bytes = p.type === 'hex' ? Buffer.from(data.replace(/\s+/g, ''), 'hex') : Buffer.from(data, 'utf8');
      }
    } else throw new AppError(84004);
    if (conn.closed) throw new AppError(20401);
    await conn.write(bytes);
    conn.bytesOut += bytes.length;
    conn.host.counters.bytes_out += bytes.length;
    conn.host.counters.frames_out++;
  }

  // --- listeners --------------------------------------------------------------------------------------------------

  private idle(row: DeviceHostRow, state: DeviceHostState, error: string | null): Listener {
    return {
      row,
      state,
      error,
      pattern: new RegExp(row.registerPattern),
      heartbeat: heartbeatOf(row),
      counters: zeroCounters(),
      refused: [],
      conns: new Set(),
      close: () => Promise.resolve(),
    };
  }

  private async listen(row: DeviceHostRow): Promise<void> {
    const l = this.idle(row, 'listening', null);
    this.listeners.set(row.id, l);
    try {
      if (row.protocol === 'tcp') await this.listenTcp(l);
      else await this.listenUdp(l);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      l.state = 'failed';
      l.error = `${e.code ?? 'error'}: ${e.message}`;
      this.deps.log.warn({ err, host: row.id, port: row.port }, 'device host could not listen');
      if (e.code === 'EADDRINUSE' || e.code === 'EACCES') {
        throw new AppError(84002, 400, undefined, [{ field: 'port', message: l.error }]);
      }
      throw err;
    }
  }

  private listenTcp(l: Listener): Promise<void> {
    const server = net.createServer({ noDelay: true }, (socket) => this.acceptTcp(l, socket));
    server.on('error', (err) => {
      l.counters.errors++;
      this.deps.log.warn({ err, host: l.row.id }, 'device host error');
    });
    l.close = () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      });
    return new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: l.row.port, host: l.row.bind, exclusive: true }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  }

  private acceptTcp(l: Listener, socket: net.Socket): void {
    const now = Date.now();
    const conn: Conn = {
      host: l,
      remote: `${socket.remoteAddress ?? ''}:${socket.remotePort ?? 0}`,
      since: now,
      lastSeen: now,
      bytesIn: 0,
      bytesOut: 0,
      framesIn: 0,
      heartbeats: 0,
      ownConnects: 0,
      closed: false,
      write: (bytes) =>
        new Promise<void>((resolve, reject) => {
          if (socket.destroyed || !socket.writable) {
            reject(new AppError(20401));
            return;
          }
          socket.write(bytes, (err) => (err ? reject(new AppError(20401)) : resolve()));
        }),
      end: () => {
        socket.end();
        socket.destroySoon();
      },
    };
    l.conns.add(conn);
    l.counters.connections++;
    socket.setKeepAlive(true, 60_000);
    socket.on('data', (chunk: Buffer) => this.packet(conn, chunk));
    socket.on('error', () => {
      l.counters.errors++;
    });
    socket.on('close', () => this.close(conn, 'connection lost', true));
  }

  private listenUdp(l: Listener): Promise<void> {
    const sock = dgram.createSocket({ type: 'udp4' });
    const byRemote = new Map<string, Conn>();
    l.byRemote = byRemote;
    sock.on('message', (msg, rinfo) => {
      const key = `${rinfo.address}:${rinfo.port}`;
      let conn = byRemote.get(key);
      if (!conn) {
        const now = Date.now();
        const c: Conn = {
          host: l,
          remote: key,
          since: now,
          lastSeen: now,
          bytesIn: 0,
          bytesOut: 0,
          framesIn: 0,
          heartbeats: 0,
          ownConnects: 0,
          closed: false,
          write: (bytes) =>
            new Promise<void>((resolve, reject) => {
              sock.send(bytes, rinfo.port, rinfo.address, (err) =>
                err ? reject(new AppError(20401)) : resolve(),
              );
            }),
          end: () => {
            if (byRemote.get(key) === c) byRemote.delete(key);
          },
        };
        conn = c;
        byRemote.set(key, conn);
        l.conns.add(conn);
        l.counters.connections++;
      }
      this.packet(conn, msg);
    });
    sock.on('error', (err) => {
      l.counters.errors++;
      this.deps.log.warn({ err, host: l.row.id }, 'device host error');
    });
    l.close = () =>
      new Promise<void>((resolve) => {
        sock.close(() => resolve());
      });
    return new Promise<void>((resolve, reject) => {
      sock.once('error', reject);
      sock.bind({ port: l.row.port, address: l.row.bind, exclusive: true }, () => {
        sock.off('error', reject);
        resolve();
      });
    });
  }

  private async stopHost(id: number, reason: string): Promise<void> {
    const l = this.listeners.get(id);
    if (!l) return;
    this.listeners.delete(id);
    for (const c of [...l.conns]) this.close(c, reason, true);
    if (l.state === 'listening') await l.close().catch(() => undefined);
  }

  // --- packets ----------------------------------------------------------------------------------------------------

  private packet(conn: Conn, chunk: Buffer): void {
    if (conn.closed) return;
    const l = conn.host;
    conn.lastSeen = Date.now();
    conn.bytesIn += chunk.length;
    l.counters.bytes_in += chunk.length;
    if (conn.pending) {
      if (conn.pending.length >= PENDING_MAX) l.counters.errors++;
      else conn.pending.push(chunk);
      return;
    }
    const device = conn.device;
    if (!device) {
      conn.pending = [];
      void this.register(conn, chunk);
      return;
    }
    if (l.heartbeat && chunk.equals(l.heartbeat)) {
      conn.heartbeats++;
      l.counters.heartbeats++;
      return;
    }
    conn.framesIn++;
    l.counters.frames_in++;
    const stored = this.gateway.uplink(device, 'raw', chunk);
    if (this.bench) void stored.then(() => this.bench?.stored(chunk));
  }

  /**
   * DEVICE_HOST_STATS_FILE (benchmarks, bench/sockets.mjs): frames stored and the time from each frame's send to its
   * commit, written as JSON every second. A frame that starts with `T` and 13 digits carries its send time (ms).
   */
  enableBenchStats(file: string): void {
    const latency = new Array<number>(10_001).fill(0);
    const stats = { stored: 0, timed: 0 };
    this.bench = {
      stored: (frame) => {
        stats.stored++;
        if (frame.length < 14 || frame[0] !== 0x54) return;
        const sent = Number(frame.subarray(1, 14).toString('latin1'));
        if (!Number.isFinite(sent)) return;
        stats.timed++;
        latency[Math.max(0, Math.min(10_000, Date.now() - sent))]!++;
      },
    };
    const timer = setInterval(() => {
      const hist: Record<number, number> = {};
      latency.forEach((n, ms) => {
        if (n) hist[ms] = n;
      });
      writeFileSync(file, JSON.stringify({ ...stats, latencyMs: hist, at: Date.now() }));
    }, 1000);
    timer.unref();
  }

  /** The first packet: find the id, look the device up, take over an earlier connection of it, go online. */
  private async register(conn: Conn, packet: Buffer): Promise<void> {
    const l = conn.host;
    const row = l.row;
    const seen =
      row.registerFormat === 'hex' ? packet.toString('hex').toUpperCase() : packet.toString('utf8');
    const id = l.pattern.exec(seen)?.[1]?.trim() ?? '';
    let refusal: Reason | undefined;
    let device: DeviceRef | undefined;
    if (!id) refusal = 'no_match';
    else {
      try {
        const found = await this.lookup(row.registerBy, id);
        if (found === 'ambiguous') refusal = 'ambiguous';
        else if (!found) refusal = 'unknown';
        else if (found.disabled) refusal = 'disabled';
        else device = { id: found.id, sn: found.sn, productKey: found.productKey, uid: found.uid };
      } catch (err) {
        this.deps.log.warn({ err, host: row.id }, 'device host registration lookup failed');
        refusal = 'error';
      }
    }
    if (conn.closed) return;
    if (!device) {
      l.counters.refused++;
      l.refused.unshift({
        at: new Date().toISOString(),
        remote: conn.remote,
        reason: refusal ?? 'unknown',
        id: id.slice(0, 64),
        packet: packet.subarray(0, 64).toString('hex').toUpperCase(),
      });
      if (l.refused.length > REFUSED_KEPT) l.refused.length = REFUSED_KEPT;
      conn.pending = undefined;
      this.close(conn, 'refused', false);
      return;
    }
    const previous = this.sessions.get(device.sn);
    if (previous && previous !== conn) this.close(previous, 'takeover', false);
    // An MQTT connection of the same device is taken over too (its disconnect leaves the device online).
    if (this.gateway.brokerHolds(device.sn)) this.gateway.kick(device.sn, 'takeover');
    conn.device = device;
    this.sessions.set(device.sn, conn);
    l.counters.registrations++;
    conn.ownConnects++;
    void this.gateway.connected(device, {
      ip: conn.remote.slice(0, conn.remote.lastIndexOf(':')),
      protocol: `${row.protocol} (device host ${row.id})`,
      keepalive: row.heartbeatInterval,
    });
    const pending = conn.pending ?? [];
    conn.pending = undefined;
    for (const p of pending) this.packet(conn, p);
  }

  private async lookup(
    by: 'sn' | 'imei',
    id: string,
  ): Promise<
    | { id: number; sn: string; productKey: string; uid: number | null; disabled: boolean }
    | 'ambiguous'
    | undefined
  > {
    let sn = id;
    if (by === 'imei') {
      const rows = await this.deps.db
        .select({ sn: devices.sn })
        .from(devices)
        .where(eq(devices.imei, id))
        .limit(2);
      if (rows.length > 1) return 'ambiguous';
      const only = rows[0];
      if (!only) return undefined;
      sn = only.sn;
    }
    return this.gateway.auth.get(sn);
  }

  /**
   * Ends a connection. A registered one's device goes offline through the gateway, unless `setOffline` is false
   * (a takeover: the new connection keeps it online, and the log says why the old one ended).
   */
  private close(conn: Conn, reason: string, setOffline: boolean): void {
    if (conn.closed) return;
    conn.closed = true;
    conn.host.conns.delete(conn);
    conn.end();
    const device = conn.device;
    if (!device) return;
    if (this.sessions.get(device.sn) === conn) this.sessions.delete(device.sn);
    else setOffline = false;
    void this.gateway.disconnected(device, reason, setOffline);
  }

  private sweepIdle(): void {
    const now = Date.now();
    for (const l of this.listeners.values()) {
      const limit = l.row.idleTimeout * 1000;
      for (const c of l.conns) {
        if (now - c.lastSeen >= limit) {
          l.counters.timeouts++;
          this.close(c, 'idle timeout', true);
        }
      }
    }
  }
}

function heartbeatOf(row: DeviceHostRow): Buffer | null {
  return row.heartbeatData ? Buffer.from(dataBytes(row.heartbeatFormat, row.heartbeatData)) : null;
}

/** Whether a change needs a new listener (otherwise rules and timeouts apply to the running one). */
function sameListener(a: DeviceHostRow, b: DeviceHostRow): boolean {
  return (
    a.enabled === b.enabled &&
    a.protocol === b.protocol &&
    a.port === b.port &&
    a.bind === b.bind &&
    a.registerBy === b.registerBy &&
    a.registerFormat === b.registerFormat &&
    a.registerPattern === b.registerPattern
  );
}

function probeTcp(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', (err: NodeJS.ErrnoException) => resolve(`${err.code ?? 'error'}: ${err.message}`));
    s.listen({ port, host, exclusive: true }, () => s.close(() => resolve(undefined)));
  });
}

function probeUdp(address: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    s.once('error', (err: NodeJS.ErrnoException) => {
      s.close();
      resolve(`${err.code ?? 'error'}: ${err.message}`);
    });
    s.bind({ port, address, exclusive: true }, () => s.close(() => resolve(undefined)));
  });
}
