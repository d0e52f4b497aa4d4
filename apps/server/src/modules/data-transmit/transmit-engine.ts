/**
 * The transmit engine of one instance (docs/data-transmit.md): holds the enabled rules in memory, indexed by device,
 * and for every raw uplink (`raw.received` on the bus) sends copies to the rule's other side through deps.link
 * (`P/down/raw`). Counters are kept per rule and device in memory and written as increments every second that had
 * traffic; the totals that write returns go to the browsers as `data-transmit.counters` owner events.
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { eq, inArray } from 'drizzle-orm';
import type { TransmitCounters, TransmitRole } from '@cellhub/contract/data-transmit';
import { type Periodic, startPeriodic } from '../../jobs/periodic';
import { AppError } from '../../lib/app-error';
import { type DeviceAccessRow, liveShare, ruleTransmitsDevice, type Subject } from '../../lib/authz';
import type { Deps } from '../../lib/deps';
import type { DeviceRef } from '../devices/device-ref';
import { devices } from '../devices/devices.table';
import { users } from '../users/users.table';
import { dataTransmitDevices, dataTransmitRules } from './data-transmit.table';
import type { LiveCounters } from './data-transmit.service';

export interface TransmitEngineOptions {
  /** Counters are written (and pushed to browsers) this often while there is traffic. */
  flushMs: number;
  /** The rules are read again this often (device owners change without a signal). */
  reloadMs: number;
}

export const DEFAULT_TRANSMIT_OPTIONS: TransmitEngineOptions = { flushMs: 1000, reloadMs: 30_000 };

/** Latencies kept per device for `latency_avg_ms`. */
const LATENCY_WINDOW = 16;

interface Target {
  id: number;
  sn: string;
  productKey: string;
  /** The device's owner when the rules were read. */
  uid: number | null;
}

interface Rule {
  id: number;
  owner: Subject;
  addressMode: 'all' | 'modbus';
  management: Target[];
  edges: Target[];
  /** Edge devices by Modbus slave address ("modbus" mode). */
  byAddress: Map<number, Target[]>;
}

interface Membership {
  rule: Rule;
  role: TransmitRole;
}

interface Counter {
  ruleId: number;
  ownerUid: number;
  deviceId: number;
  sn: string;
  // Increments since the last write.
  framesUp: number;
  bytesUp: number;
  framesDown: number;
  bytesDown: number;
  drops: number;
  lastError?: number;
  lastErrorAt?: Date;
  lastFrameAt?: Date;
  /** The last latencies (ms), newest last; kept across writes. */
  latencies: number[];
  latencyChanged: boolean;
  dirty: boolean;
}

export interface TransmitStats {
  frames: number;
  copies: number;
  drops: number;
}

const toBuffer = (p: Uint8Array): Buffer =>
  Buffer.isBuffer(p) ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength);

export class TransmitEngine implements LiveCounters {
  readonly options: TransmitEngineOptions;
  readonly stats: TransmitStats = { frames: 0, copies: 0, drops: 0 };
  private byDevice = new Map<number, Membership[]>();
  private counters = new Map<string, Counter>();
  private readonly reloader: Periodic;
  private readonly flusher: Periodic;
  private loaded = false;

  constructor(
    private readonly deps: Deps,
    options: Partial<TransmitEngineOptions> = {},
  ) {
    this.options = { ...DEFAULT_TRANSMIT_OPTIONS, ...options };
    this.reloader = startPeriodic({
      name: 'data transmit reload',
      everyMs: this.options.reloadMs,
      run: () => this.load(),
      log: deps.log,
    });
    this.flusher = startPeriodic({
      name: 'data transmit counters',
      everyMs: this.options.flushMs,
      run: () => this.flush(),
      log: deps.log,
    });
  }

  /** Reads the rules now; resolves once the index is current. */
  reload(): Promise<void> {
    return this.reloader.runNow();
  }

  /** Asks for a reload soon (a rule changed on some instance). */
  changed(): void {
    this.reloader.wake();
  }

  get ready(): boolean {
    return this.loaded;
  }

  private async load(): Promise<void> {
    const rules = await this.deps.db
      .select({
        id: dataTransmitRules.id,
        uid: dataTransmitRules.uid,
        role: users.role,
        addressMode: dataTransmitRules.addressMode,
      })
      .from(dataTransmitRules)
      .innerJoin(users, eq(users.id, dataTransmitRules.uid))
      .where(eq(dataTransmitRules.status, 1));
    const byId = new Map<number, Rule>();
    for (const r of rules)
      byId.set(r.id, {
        id: r.id,
        owner: { uid: r.uid, role: r.role },
        addressMode: r.addressMode,
        management: [],
        edges: [],
        byAddress: new Map(),
      });
    const members =
      byId.size === 0
        ? []
        : await this.deps.db
            .select({
              ruleId: dataTransmitDevices.ruleId,
              role: dataTransmitDevices.role,
              addresses: dataTransmitDevices.addresses,
              id: devices.id,
              sn: devices.sn,
              productKey: devices.productKey,
              uid: devices.uid,
            })
            .from(dataTransmitDevices)
            .innerJoin(devices, eq(devices.id, dataTransmitDevices.deviceId))
            .where(inArray(dataTransmitDevices.ruleId, [...byId.keys()]));
    const byDevice = new Map<number, Membership[]>();
    for (const m of members) {
      const rule = byId.get(m.ruleId);
      if (!rule) continue;
      const target: Target = { id: m.id, sn: m.sn, productKey: m.productKey, uid: m.uid };
      if (m.role === 'management') rule.management.push(target);
      else {
        rule.edges.push(target);
        for (const a of m.addresses) {
          const list = rule.byAddress.get(a);
          if (list) list.push(target);
          else rule.byAddress.set(a, [target]);
        }
      }
      const list = byDevice.get(m.id);
      const membership = { rule, role: m.role };
      if (list) list.push(membership);
      else byDevice.set(m.id, [membership]);
    }
    this.byDevice = byDevice;
    this.loaded = true;
  }

  /**
   * The device as the layer sees it for a rule of `ownerUid`: with the right of a live share the owner holds on it
   * (the share audience cache, emptied at once when a share changes), as the alert evaluator does.
   */
  private accessRow(ownerUid: number, device: { sn: string; uid: number | null }): DeviceAccessRow {
    if (device.uid === ownerUid || device.uid === null) return device;
    const grant = this.deps.caches.shares
      .grantsOf(device.sn)
      .find((g) => g.uid === ownerUid && g.ownerUid === device.uid);
    const shared = liveShare(grant, this.deps.now());
    return shared ? { uid: device.uid, shared } : device;
  }

  /** A raw uplink of `device` (called from the bus; returns at once, the copies go out asynchronously). */
  received(device: DeviceRef, payload: Uint8Array): void {
    const memberships = this.byDevice.get(device.id);
    if (!memberships || payload.byteLength === 0) return;
    const start = performance.now();
    const bytes = toBuffer(payload);
    for (const { rule, role } of memberships) {
      const source = this.counter(rule, device.id, device.sn);
      if (!ruleTransmitsDevice(rule.owner, this.accessRow(rule.owner.uid, device))) {
        this.drop(source, 10108);
        continue;
      }
      source.framesUp++;
      source.bytesUp += bytes.length;
      source.lastFrameAt = this.deps.now();
      source.dirty = true;
      this.stats.frames++;
      let targets: Target[];
      if (role === 'edge') targets = rule.management;
      else if (rule.addressMode === 'all' || bytes[0] === 0) targets = rule.edges;
      else {
        targets = rule.byAddress.get(bytes[0]!) ?? [];
        if (targets.length === 0) this.drop(source, 87005);
      }
      for (const target of targets) this.deliver(rule, target, bytes, start);
    }
    this.flusher.wake();
  }

  private deliver(rule: Rule, target: Target, bytes: Buffer, start: number): void {
    const c = this.counter(rule, target.id, target.sn);
    if (!ruleTransmitsDevice(rule.owner, this.accessRow(rule.owner.uid, target))) {
      this.drop(c, 10108);
      return;
    }
    this.deps.link.send(target.productKey, target.sn, 'raw', bytes).then(
      () => {
        const ms = Math.round((performance.now() - start) * 100) / 100;
        c.framesDown++;
        c.bytesDown += bytes.length;
        c.lastFrameAt = this.deps.now();
        c.latencies.push(ms);
        if (c.latencies.length > LATENCY_WINDOW) c.latencies.shift();
        c.latencyChanged = true;
        c.dirty = true;
        this.stats.copies++;
        this.flusher.wake();
      },
      (err: unknown) => {
        this.drop(c, err instanceof AppError && err.code === 20401 ? 20401 : 90002);
        this.flusher.wake();
      },
    );
  }

  private counter(rule: Rule, deviceId: number, sn: string): Counter {
    const key = `${rule.id}:${deviceId}`;
    let c = this.counters.get(key);
    if (!c) {
      c = {
        ruleId: rule.id,
        ownerUid: rule.owner.uid,
        deviceId,
        sn,
        framesUp: 0,
        bytesUp: 0,
        framesDown: 0,
        bytesDown: 0,
        drops: 0,
        latencies: [],
        latencyChanged: false,
        dirty: false,
      };
      this.counters.set(key, c);
    }
    return c;
  }

  private drop(c: Counter, code: number): void {
    c.drops++;
    c.lastError = code;
    c.lastErrorAt = this.deps.now();
    c.dirty = true;
    this.stats.drops++;
  }

  /** What this instance counted for a device of a rule and has not written yet (the detail route adds it). */
  pending(ruleId: number, deviceId: number): Partial<TransmitCounters> | undefined {
    const c = this.counters.get(`${ruleId}:${deviceId}`);
    if (!c) return undefined;
    const latency = latencyOf(c);
    return {
      frames_up: c.framesUp,
      bytes_up: c.bytesUp,
      frames_down: c.framesDown,
      bytes_down: c.bytesDown,
      drops: c.drops,
      ...(c.lastError !== undefined && c.dirty
        ? { last_error: c.lastError, last_error_at: c.lastErrorAt!.toISOString() }
        : {}),
      ...(c.dirty && c.lastFrameAt ? { last_frame_at: c.lastFrameAt.toISOString() } : {}),
      ...(c.latencyChanged ? latency : {}),
    };
  }

  /** Writes the increments of every counter that changed, and pushes the totals the write returns. */
  async flush(): Promise<void> {
    const batch = [...this.counters.values()].filter((c) => c.dirty);
    if (batch.length === 0) return;
    const taken = batch.map((c) => {
      const t = {
        c,
        framesUp: c.framesUp,
        bytesUp: c.bytesUp,
        framesDown: c.framesDown,
        bytesDown: c.bytesDown,
        drops: c.drops,
        lastError: c.lastError ?? null,
        lastErrorAt: c.lastErrorAt?.toISOString() ?? null,
        lastFrameAt: c.lastFrameAt?.toISOString() ?? null,
        latency: c.latencyChanged ? latencyOf(c) : { latency_ms: null, latency_avg_ms: null },
      };
      c.framesUp = c.bytesUp = c.framesDown = c.bytesDown = c.drops = 0;
      c.lastError = undefined;
      c.lastErrorAt = undefined;
      c.lastFrameAt = undefined;
      c.latencyChanged = false;
      c.dirty = false;
      return t;
    });
    const json = JSON.stringify(
      taken.map((t) => ({
        r: t.c.ruleId,
        d: t.c.deviceId,
        fu: t.framesUp,
        bu: t.bytesUp,
        fd: t.framesDown,
        bd: t.bytesDown,
        dr: t.drops,
        le: t.lastError,
        lea: t.lastErrorAt,
        lf: t.lastFrameAt,
        l: t.latency.latency_ms,
        la: t.latency.latency_avg_ms,
      })),
    );
    let rows: Record<string, unknown>[];
    try {
      const res = await this.deps.db.execute(sql`
        update data_transmit_devices m set
          frames_up = m.frames_up + v.fu,
          bytes_up = m.bytes_up + v.bu,
          frames_down = m.frames_down + v.fd,
          bytes_down = m.bytes_down + v.bd,
          drops = m.drops + v.dr,
          last_error = coalesce(v.le, m.last_error),
          last_error_at = coalesce(v.lea, m.last_error_at),
          last_frame_at = greatest(v.lf, m.last_frame_at),
          latency_ms = coalesce(v.l, m.latency_ms),
          latency_avg_ms = coalesce(v.la, m.latency_avg_ms)
        from jsonb_to_recordset(${json}::jsonb) as v(r int, d int, fu bigint, bu bigint, fd bigint, bd bigint,
          dr bigint, le int, lea timestamptz, lf timestamptz, l float8, la float8)
        where m.rule_id = v.r and m.device_id = v.d
        returning m.rule_id, m.device_id, m.frames_up, m.bytes_up, m.frames_down, m.bytes_down, m.drops,
          m.last_error, m.last_error_at, m.latency_ms, m.latency_avg_ms, m.last_frame_at`);
      rows = (res as unknown as { rows: Record<string, unknown>[] }).rows;
    } catch (err) {
      // Put the increments back; the next write carries them.
      for (const t of taken) {
        t.c.framesUp += t.framesUp;
        t.c.bytesUp += t.bytesUp;
        t.c.framesDown += t.framesDown;
        t.c.bytesDown += t.bytesDown;
        t.c.drops += t.drops;
        t.c.dirty = true;
      }
      throw err;
    }
    this.push(
      taken.map((t) => t.c),
      rows,
    );
    // Counters of rules or devices that are gone (rule deleted, device removed) are forgotten.
    for (const t of taken) {
      const alive = this.byDevice.get(t.c.deviceId)?.some((m) => m.rule.id === t.c.ruleId);
      if (!alive && !t.c.dirty) this.counters.delete(`${t.c.ruleId}:${t.c.deviceId}`);
    }
  }

  private push(written: Counter[], rows: Record<string, unknown>[]): void {
    const sns = new Map(written.map((c) => [`${c.ruleId}:${c.deviceId}`, c]));
    const byRule = new Map<number, { ownerUid: number; devices: (TransmitCounters & { sn: string })[] }>();
    const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    const time = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string).toISOString());
    for (const r of rows) {
      const c = sns.get(`${Number(r.rule_id)}:${Number(r.device_id)}`);
      if (!c) continue;
      let entry = byRule.get(c.ruleId);
      if (!entry) byRule.set(c.ruleId, (entry = { ownerUid: c.ownerUid, devices: [] }));
      entry.devices.push({
        sn: c.sn,
        frames_up: Number(r.frames_up),
        bytes_up: Number(r.bytes_up),
        frames_down: Number(r.frames_down),
        bytes_down: Number(r.bytes_down),
        drops: Number(r.drops),
        last_error: num(r.last_error),
        last_error_at: time(r.last_error_at),
        latency_ms: num(r.latency_ms),
        latency_avg_ms: num(r.latency_avg_ms),
        last_frame_at: time(r.last_frame_at),
      });
    }
    const at = this.deps.now().toISOString();
    for (const [id, e] of byRule)
      this.deps.events.publishTask(
        { type: 'data-transmit.counters', id, devices: e.devices, at },
        { uid: e.ownerUid },
      );
  }

  async close(): Promise<void> {
    await this.reloader.stop();
    await this.flusher.stop();
    await this.flush().catch((err: unknown) =>
      this.deps.log.warn({ err }, 'data transmit: last counter write failed'),
    );
  }
}

function latencyOf(c: Counter): { latency_ms: number | null; latency_avg_ms: number | null } {
  if (c.latencies.length === 0) return { latency_ms: null, latency_avg_ms: null };
  const sum = c.latencies.reduce((a, b) => a + b, 0);
  return {
    latency_ms: c.latencies[c.latencies.length - 1]!,
    latency_avg_ms: Math.round((sum / c.latencies.length) * 100) / 100,
  };
}
