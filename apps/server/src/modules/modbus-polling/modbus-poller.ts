// The platform polling engine (issue 16): for devices whose applied data template says the platform polls, it
// builds Modbus RTU requests with the read planner, sends them on `P/down/raw`, matches the answers arriving on
// `P/up/raw`, decodes them (byte order, capture formula, decimals) and stores the values as device properties.
// One request is in flight per DTU serial bus at any time; test reads and writes queue on the same bus, ahead of
// the scheduled reads.
import { and, eq, inArray, sql } from 'drizzle-orm';
import {
  checkControlFormula,
  compileFormula,
  type CompiledFormula,
  encodeRequest,
  exceptionName,
  type ModbusRequest,
  type ModbusResponse,
  planReads,
  type ReadBlock,
  readBlockValues,
  ResponseStream,
  roundDecimals,
  toHex,
  toProtocolAddress,
} from '@cellhub/contract/modbus';
import type { PropertyValue } from '@cellhub/contract/protocol';
import { type Periodic, startPeriodic } from '../../jobs/periodic';
import type { Deps } from '../../lib/deps';
import {
  dataTemplates,
  dataTemplateSlaves,
  dataTemplateVariables,
  deviceDataTemplates,
  productDataTemplates,
} from '../data-templates/data-templates.table';
import type { DeviceRef } from '../devices/device-ref';
import { devices } from '../devices/devices.table';
import { products } from '../products/products.table';
import type { PropertyWriter } from '../telemetry/property-writer';

export interface PollerOptions {
  /** How often the scheduler looks for reads that are due. */
  tickMs: number;
  /** How long a slave has to answer one request. */
  timeoutMs: number;
  /** How often the devices and templates to poll are read again (presence changes also ask for it). */
  reloadMs: number;
  /**
   * Status counters are written at most this often. The status route adds the counters not written yet, so this
   * only bounds what a crash loses; each flush upserts a row per polled variable (10,000 at 500 DTUs x 20).
   */
  flushMs: number;
  /** Unused registers allowed between two variables read in one request (read planner). */
  maxGap: number;
  /**
   * Silence kept on a bus after a timeout before the next request: a late answer to the request that timed out
   * then arrives while nothing is in flight and is dropped, instead of passing for the next request's answer.
   */
  guardMs: number;
}

export const DEFAULT_POLLER_OPTIONS: PollerOptions = {
  tickMs: 200,
  timeoutMs: 2000,
  reloadMs: 10_000,
  flushMs: 10_000,
  maxGap: 0,
  guardMs: 150,
};

/** One variable of a template, ready to poll. */
export interface PolledVariable {
  id: number;
  tag: string;
  name: string;
  unit: number;
  type: 'coil' | 'discrete_input' | 'holding' | 'input';
  /** Protocol address (the template's register number minus one). */
  address: number;
  format: 'bool' | 'int16' | 'uint16' | 'float16' | 'int32' | 'uint32' | 'float32' | 'double';
  order: 'AB' | 'BA' | 'ABCD' | 'CDAB' | 'BADC' | 'DCBA';
  decimals: number;
  access: 'r' | 'w' | 'rw';
  captureFormula: string;
  controlFormula: string;
  capture?: CompiledFormula;
  /** Why the capture formula cannot be used (the variable is then not polled). */
  formulaError?: string;
  reportMethod: 'cycle' | 'change';
  cycleMs: number;
}

export interface TemplatePlan {
  templateId: number;
  collectMode: 'dtu' | 'platform';
  variables: Map<string, PolledVariable>;
  /** Read requests per sampling cycle. */
  schedule: { cycleMs: number; block: ReadBlock }[];
}

/** How one request on the bus ended. `request` and `received` are the raw frames, for test reads. */
export type Exchange = { request: Uint8Array; received: Uint8Array[] } & (
  | { outcome: 'response'; response: ModbusResponse }
  | { outcome: 'exception'; code: number; name: string }
  | { outcome: 'crc' | 'invalid'; message: string }
  | { outcome: 'timeout' }
  | { outcome: 'offline'; message: string }
);

interface Job {
  request: ModbusRequest;
  done: (e: Exchange) => void;
}

interface InFlight {
  job: Job;
  frame: Uint8Array;
  received: Uint8Array[];
  timer: NodeJS.Timeout;
}

interface ScheduledRead {
  cycleMs: number;
  block: ReadBlock;
  nextDue: number;
  queued: boolean;
}

interface Bus {
  device: DeviceRef;
  templateId: number;
  /** Scheduled reads; empty for devices whose template is polled by the DTU itself. */
  reads: ScheduledRead[];
  queue: Job[];
  inFlight?: InFlight;
  stream: ResponseStream;
  /** Last stored value per tag (report method "change"). */
  stored: Map<string, PropertyValue>;
  /** Set while the bus keeps silent after a timeout (see PollerOptions.guardMs). */
  guard?: NodeJS.Timeout;
}

interface StatusDelta {
  reads: number;
  timeouts: number;
  exceptions: number;
  crcErrors: number;
  invalid: number;
  lastValue?: number;
  lastReadAt?: Date;
  lastError?: string;
  lastErrorAt?: Date;
}

/**
 * Running totals of the scheduler since start (bench/modbus.mjs reads them): variable reads scheduled, stored and
 * failed, and a histogram of milliseconds from when a read was due to when its values were stored (1 ms buckets,
 * the last one holds everything slower).
 */
export interface PollerStats {
  scheduledVariables: number;
  storedVariables: number;
  failedVariables: number;
  requests: number;
  latencyMs: number[];
}

const LATENCY_BUCKETS = 60_000;

const emptyDelta = (): StatusDelta => ({ reads: 0, timeouts: 0, exceptions: 0, crcErrors: 0, invalid: 0 });

/** Loads the plan of templates: variables with their slave address, compiled formulas and read requests. */
export async function loadTemplatePlans(
  db: Deps['db'],
  templateIds: number[],
  maxGap = 0,
): Promise<Map<number, TemplatePlan>> {
  const plans = new Map<number, TemplatePlan>();
  if (templateIds.length === 0) return plans;
  const templates = await db
    .select({ id: dataTemplates.id, collectMode: dataTemplates.collectMode })
    .from(dataTemplates)
    .where(inArray(dataTemplates.id, templateIds));
  for (const t of templates)
    plans.set(t.id, { templateId: t.id, collectMode: t.collectMode, variables: new Map(), schedule: [] });
  const rows = await db
    .select({ v: dataTemplateVariables, unit: dataTemplateSlaves.address })
    .from(dataTemplateVariables)
    .innerJoin(dataTemplateSlaves, eq(dataTemplateSlaves.id, dataTemplateVariables.slaveId))
    .where(inArray(dataTemplateVariables.templateId, templateIds))
    .orderBy(dataTemplateVariables.templateId, dataTemplateVariables.id);
  for (const { v, unit } of rows) {
    const plan = plans.get(v.templateId);
    if (!plan) continue;
    const pv: PolledVariable = {
      id: v.id,
      tag: v.tag,
      name: v.name,
      unit,
      type: v.registerType,
      address: toProtocolAddress(v.registerAddress),
      format: v.dataFormat,
      order: v.byteOrder,
      decimals: v.decimals,
      access: v.access,
      captureFormula: v.captureFormula,
      controlFormula: v.controlFormula,
      reportMethod: v.reportMethod,
      cycleMs: Math.max(1, v.samplingCycleS) * 1000,
    };
    if (v.captureFormula.trim() !== '') {
      try {
        pv.capture = compileFormula(v.captureFormula);
      } catch (err) {
        pv.formulaError = err instanceof Error ? err.message : String(err);
      }
    }
    plan.variables.set(pv.tag, pv);
  }
  for (const plan of plans.values()) {
    const byCycle = new Map<number, PolledVariable[]>();
    for (const v of plan.variables.values()) {
      if (v.access === 'w' || v.formulaError) continue;
      byCycle.set(v.cycleMs, [...(byCycle.get(v.cycleMs) ?? []), v]);
    }
    for (const [cycleMs, vars] of byCycle) {
      const blocks = planReads(
        vars.map((v) => ({
          key: v.tag,
          unit: v.unit,
          type: v.type,
          address: v.address,
          format: v.format,
          order: v.order,
        })),
        { maxGap },
      );
      for (const block of blocks) plan.schedule.push({ cycleMs, block });
    }
  }
  return plans;
}

/** The template that applies to a device: its own, else its product's default; undefined when none. */
export async function templateOfDevice(db: Deps['db'], deviceId: number): Promise<number | undefined> {
  const [row] = await db
    .select({
      own: deviceDataTemplates.templateId,
      product: productDataTemplates.templateId,
    })
    .from(devices)
    .innerJoin(products, eq(products.productKey, devices.productKey))
    .leftJoin(deviceDataTemplates, eq(deviceDataTemplates.deviceId, devices.id))
    .leftJoin(productDataTemplates, eq(productDataTemplates.productId, products.id))
    .where(eq(devices.id, deviceId));
  return row?.own ?? row?.product ?? undefined;
}

export class ModbusPoller {
  readonly options: PollerOptions;
  private readonly buses = new Map<number, Bus>();
  private plans = new Map<number, TemplatePlan>();
  private readonly deltas = new Map<number, Map<string, StatusDelta>>();
  private readonly periodic: Periodic;
  private lastReload = 0;
  private lastFlush = 0;
  private reloadWanted = true;
  private closed = false;
  private readonly off: (() => void)[] = [];
  private flushing: Promise<void> = Promise.resolve();
  readonly stats: PollerStats = {
    scheduledVariables: 0,
    storedVariables: 0,
    failedVariables: 0,
    requests: 0,
    latencyMs: [],
  };

  constructor(
    private readonly deps: Pick<Deps, 'db' | 'link' | 'events' | 'log' | 'now'>,
    private readonly writer: PropertyWriter,
    options: Partial<PollerOptions> = {},
  ) {
    this.options = { ...DEFAULT_POLLER_OPTIONS, ...options };
    this.off.push(
      deps.events.on('presence.changed', (e) => {
        if (e.online === 0) this.dropBus(e.device.id, 'the device went offline');
        this.invalidate();
      }),
    );
    this.periodic = startPeriodic({
      name: 'modbus polling',
      everyMs: this.options.tickMs,
      log: deps.log,
      run: () => this.tick(),
    });
  }

  /** Templates or their application changed: read them again on the next tick. */
  invalidate(): void {
    this.reloadWanted = true;
    this.periodic.wake();
  }

  /** Runs one scheduler pass now (tests, and callers that changed a template). */
  runNow(): Promise<void> {
    return this.periodic.runNow();
  }

  /** Devices polled by this instance now. */
  get polledDevices(): number {
    return [...this.buses.values()].filter((b) => b.reads.length > 0).length;
  }

  private async tick(): Promise<void> {
    if (this.closed) return;
    const now = Date.now();
    if (this.reloadWanted || now - this.lastReload >= this.options.reloadMs) await this.reload();
    for (const bus of this.buses.values()) {
      for (const read of bus.reads) {
        if (read.queued || now < read.nextDue) continue;
        read.queued = true;
        const due = read.nextDue;
        this.stats.scheduledVariables += read.block.variables.length;
        this.stats.requests++;
        // Next due one cycle after this one was due, or after now when the bus fell behind by more than a cycle.
        read.nextDue = Math.max(read.nextDue + read.cycleMs, now);
        this.enqueue(bus, read.block.request, false).then(
          (e) => {
            read.queued = false;
            return this.stored(bus, read.block, e, due);
          },
          () => (read.queued = false),
        );
      }
    }
    if (now - this.lastFlush >= this.options.flushMs) await this.flush();
  }

  /** Reads which online devices have a template polled by the platform and (re)builds their buses. */
  async reload(): Promise<void> {
    this.reloadWanted = false;
    this.lastReload = Date.now();
    const templateId = sql<number>`coalesce(${deviceDataTemplates.templateId}, ${productDataTemplates.templateId})`;
    const rows = await this.deps.db
      .select({
        id: devices.id,
        sn: devices.sn,
        productKey: devices.productKey,
        uid: devices.uid,
        online: devices.online,
        templateId,
      })
      .from(devices)
      .innerJoin(products, eq(products.productKey, devices.productKey))
      .leftJoin(deviceDataTemplates, eq(deviceDataTemplates.deviceId, devices.id))
      .leftJoin(productDataTemplates, eq(productDataTemplates.productId, products.id))
      .innerJoin(dataTemplates, eq(dataTemplates.id, templateId))
      .where(and(eq(devices.online, 1), eq(dataTemplates.collectMode, 'platform')));
    const targets = rows.filter((r) => this.deps.link.online(r.sn, r.online));
    this.plans = await loadTemplatePlans(
      this.deps.db,
      [...new Set(targets.map((r) => r.templateId))],
      this.options.maxGap,
    );
    const keep = new Set<number>();
    const now = Date.now();
    for (const r of targets) {
      const plan = this.plans.get(r.templateId);
      if (!plan) continue;
      keep.add(r.id);
      const device: DeviceRef = { id: r.id, sn: r.sn, productKey: r.productKey, uid: r.uid };
      const bus = this.buses.get(r.id);
      if (bus && bus.templateId === r.templateId && bus.reads.length > 0) {
        bus.device = device;
        // Same template: keep the schedule of requests that still exist, add new ones due now.
        const old = new Map(bus.reads.map((x) => [this.readKey(x), x]));
        bus.reads = plan.schedule.map(
          (s) => old.get(this.readKey(s)) ?? { ...s, nextDue: now, queued: false },
        );
        continue;
      }
      const fresh = bus ?? this.newBus(device, r.templateId);
      fresh.device = device;
      fresh.templateId = r.templateId;
      fresh.reads = plan.schedule.map((s) => ({ ...s, nextDue: now, queued: false }));
      this.buses.set(r.id, fresh);
    }
    for (const [id, bus] of this.buses) {
      if (!keep.has(id) && bus.reads.length > 0) {
        bus.reads = [];
        if (!bus.inFlight && bus.queue.length === 0) this.buses.delete(id);
      }
    }
  }

  private readKey(s: { cycleMs: number; block: ReadBlock }): string {
    const r = s.block.request;
    return `${s.cycleMs}:${r.unit}:${r.fc}:${r.address}:${r.quantity}:${s.block.variables.map((v) => v.key).join(',')}`;
  }

  private newBus(device: DeviceRef, templateId: number): Bus {
    return { device, templateId, reads: [], queue: [], stream: new ResponseStream(), stored: new Map() };
  }

  private dropBus(deviceId: number, reason: string): void {
    const bus = this.buses.get(deviceId);
    if (!bus) return;
    this.buses.delete(deviceId);
    bus.reads = [];
    for (const job of bus.queue.splice(0))
      job.done({ outcome: 'offline', message: reason, request: new Uint8Array(), received: [] });
  }

  /**
   * Sends one request on the device's bus (after the request in flight and, unless `first`, after the queue)
   * and resolves with how it ended; never rejects.
   */
  exchange(device: DeviceRef, templateId: number, request: ModbusRequest): Promise<Exchange> {
    let bus = this.buses.get(device.id);
    if (!bus) {
      bus = this.newBus(device, templateId);
      this.buses.set(device.id, bus);
    }
    return this.enqueue(bus, request, true);
  }

  private enqueue(bus: Bus, request: ModbusRequest, first: boolean): Promise<Exchange> {
    return new Promise<Exchange>((done) => {
      const job = { request, done };
      if (first) bus.queue.unshift(job);
      else bus.queue.push(job);
      this.pump(bus);
    });
  }

  private pump(bus: Bus): void {
    if (bus.inFlight || bus.guard || this.closed) return;
    const job = bus.queue.shift();
    if (!job) {
      // An idle bus with nothing scheduled (test reads of a DTU-polled device, a device gone) is forgotten, unless
      // a new bus took its place meanwhile.
      if (bus.reads.length === 0 && this.buses.get(bus.device.id) === bus) this.buses.delete(bus.device.id);
      return;
    }
    let frame: Uint8Array;
    try {
      frame = encodeRequest(job.request);
    } catch (err) {
      job.done({
        outcome: 'invalid',
        message: (err as Error).message,
        request: new Uint8Array(),
        received: [],
      });
      this.pump(bus);
      return;
    }
    bus.stream.expect(job.request);
    const inFlight: InFlight = {
      job,
      frame,
      received: [],
      timer: setTimeout(() => this.finish(bus, inFlight, { outcome: 'timeout' }), this.options.timeoutMs),
    };
    bus.inFlight = inFlight;
    this.deps.link
      .send(bus.device.productKey, bus.device.sn, 'raw', Buffer.from(frame))
      .catch((err: unknown) => {
        this.finish(bus, inFlight, {
          outcome: 'offline',
          message: err instanceof Error ? err.message : String(err),
        });
      });
  }

  private finish(
    bus: Bus,
    inFlight: InFlight,
    end:
      | { outcome: 'response'; response: ModbusResponse }
      | { outcome: 'exception'; code: number; name: string }
      | { outcome: 'crc' | 'invalid'; message: string }
      | { outcome: 'timeout' }
      | { outcome: 'offline'; message: string },
  ): void {
    if (bus.inFlight !== inFlight) return;
    clearTimeout(inFlight.timer);
    bus.inFlight = undefined;
    inFlight.job.done({ ...end, request: inFlight.frame, received: inFlight.received });
    if (end.outcome === 'timeout' && this.options.guardMs > 0 && !this.closed) {
      bus.guard = setTimeout(() => {
        bus.guard = undefined;
        this.pump(bus);
      }, this.options.guardMs);
      return;
    }
    this.pump(bus);
  }

  /**
   * Bytes from a device's serial port (`P/up/raw`, handed over by telemetry ingest before anything else looks at
   * them). Bytes arriving while a request is in flight on the device's bus are its answer: they are taken (true) and
   * become values and counters, not raw messages. Outside an exchange they are not ours (false).
   */
  received(device: DeviceRef, payload: Uint8Array): boolean {
    const bus = this.buses.get(device.id);
    const inFlight = bus?.inFlight;
    if (!bus || !inFlight) return false;
    const bytes = new Uint8Array(payload);
    inFlight.received.push(bytes);
    const [r] = bus.stream.push(bytes);
    if (!r) return true;
    if (r.kind === 'response') this.finish(bus, inFlight, { outcome: 'response', response: r.response });
    else if (r.kind === 'exception')
      this.finish(bus, inFlight, { outcome: 'exception', code: r.code, name: r.name });
    else this.finish(bus, inFlight, { outcome: r.error === 'crc' ? 'crc' : 'invalid', message: r.message });
    return true;
  }

  /** The decoded value of a variable from a raw one: capture formula, then decimal places. */
  static decode(v: PolledVariable, raw: number | boolean): { value: PropertyValue } | { error: string } {
    if (typeof raw === 'boolean') return { value: raw };
    let value = raw;
    if (v.capture) value = v.capture.evaluate(raw);
    if (!Number.isFinite(value)) return { error: `the capture formula gave ${value} for ${raw}` };
    return { value: roundDecimals(value, v.decimals) };
  }

  /** Counts a scheduled read's outcome per variable and stores the values. */
  private async stored(bus: Bus, block: ReadBlock, e: Exchange, due: number): Promise<void> {
    const plan = this.plans.get(bus.templateId);
    if (!plan) return;
    const at = this.deps.now();
    if (e.outcome !== 'response') {
      this.stats.failedVariables += block.variables.length;
      for (const v of block.variables) this.count(bus.device.id, v.key, e, at);
      return;
    }
    let good = 0;
    const params: Record<string, PropertyValue> = {};
    for (const r of readBlockValues(block, e.response)) {
      const v = plan.variables.get(r.key);
      if (!v) continue;
      const delta = this.delta(bus.device.id, r.key);
      const decoded = 'error' in r ? { error: r.error } : ModbusPoller.decode(v, r.value);
      if ('error' in decoded) {
        delta.invalid++;
        delta.lastError = decoded.error;
        delta.lastErrorAt = at;
        continue;
      }
      delta.reads++;
      good++;
      delta.lastReadAt = at;
      delta.lastValue =
        typeof decoded.value === 'boolean' ? Number(decoded.value) : (decoded.value as number);
      if (v.reportMethod === 'change' && bus.stored.get(r.key) === decoded.value) continue;
      params[r.key] = decoded.value;
    }
    this.stats.failedVariables += block.variables.length - good;
    if (Object.keys(params).length === 0) {
      this.stats.storedVariables += good;
      return;
    }
    const items = [{ ts: at.getTime(), params }];
    await this.writer.write(bus.device.id, items);
    this.stats.storedVariables += good;
    const ms = Math.min(LATENCY_BUCKETS - 1, Math.max(0, Math.round(Date.now() - due)));
    this.stats.latencyMs[ms] = (this.stats.latencyMs[ms] ?? 0) + 1;
    for (const [k, value] of Object.entries(params)) bus.stored.set(k, value);
    this.deps.events.emit({ type: 'property.committed', device: bus.device, items });
  }

  private delta(deviceId: number, tag: string): StatusDelta {
    let m = this.deltas.get(deviceId);
    if (!m) this.deltas.set(deviceId, (m = new Map()));
    let d = m.get(tag);
    if (!d) m.set(tag, (d = emptyDelta()));
    return d;
  }

  /** Counts a failed exchange against a variable (test reads and writes count too). */
  count(deviceId: number, tag: string, e: Exchange, at: Date): void {
    const d = this.delta(deviceId, tag);
    switch (e.outcome) {
      case 'response':
        return;
      case 'timeout':
        d.timeouts++;
        d.lastError = 'the slave did not answer in time';
        break;
      case 'exception':
        d.exceptions++;
        d.lastError = `exception ${e.code}: ${e.name || exceptionName(e.code)}`;
        break;
      case 'crc':
        d.crcErrors++;
        d.lastError = 'CRC check failed';
        break;
      case 'invalid':
        d.invalid++;
        d.lastError = e.message;
        break;
      case 'offline':
        d.lastError = e.message;
        break;
    }
    d.lastErrorAt = at;
  }

  /** A read or write outside the schedule counts like a scheduled one. */
  recordRead(deviceId: number, tag: string, value: number | undefined, at: Date): void {
    const d = this.delta(deviceId, tag);
    d.reads++;
    d.lastReadAt = at;
    if (value !== undefined) d.lastValue = value;
  }

  /** Pending counter changes of a device, not yet written (the status route adds them to the stored rows). */
  pending(deviceId: number): ReadonlyMap<string, Readonly<StatusDelta>> {
    return this.deltas.get(deviceId) ?? new Map();
  }

  /** Writes the counters gathered since the last flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing
      .then(() => this.flushNow())
      .catch((err: unknown) => {
        this.deps.log.warn({ err }, 'modbus status flush failed');
      });
    return this.flushing;
  }

  private async flushNow(): Promise<void> {
    this.lastFlush = Date.now();
    if (this.deltas.size === 0) return;
    const taken = [...this.deltas];
    this.deltas.clear();
    const rows = taken.flatMap(([deviceId, m]) =>
      [...m].map(([tag, d]) => ({
        deviceId,
        tag,
        reads: d.reads,
        timeouts: d.timeouts,
        exceptions: d.exceptions,
        crcErrors: d.crcErrors,
        invalid: d.invalid,
        lastValue: d.lastValue ?? null,
        lastReadAt: d.lastReadAt ?? null,
        lastError: d.lastError ?? '',
        lastErrorAt: d.lastErrorAt ?? null,
      })),
    );
    // One statement per 5,000 rows, arrays passed as text literals and unnested: at 500 DTUs x 20 variables this
    // runs with 10,000 rows every flush, where drizzle's per-value builder cost more CPU than the polling itself.
    // Rows of devices deleted meanwhile are skipped by the join.
    const str = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    const num = (v: number | null) => (v === null || !Number.isFinite(v) ? 'NULL' : String(v));
    const time = (v: Date | null) => (v === null ? 'NULL' : str(v.toISOString()));
    for (let i = 0; i < rows.length; i += 5000) {
      const part = rows.slice(i, i + 5000);
      const list = <T>(f: (r: (typeof rows)[number]) => T, fmt: (v: T) => string) =>
        `{${part.map((r) => fmt(f(r))).join(',')}}`;
      await this.deps.db.execute(sql`
        insert into modbus_variable_status as s (device_id, tag, reads, timeouts, exceptions, crc_errors, invalid,
          last_value, last_read_at, last_error, last_error_at)
        select r.device_id, r.tag, r.reads, r.timeouts, r.exceptions, r.crc_errors, r.invalid, r.last_value,
          r.last_read_at, r.last_error, r.last_error_at
        from unnest(
          ${list((r) => r.deviceId, num)}::text::int[],
          ${list((r) => r.tag, str)}::text::text[],
          ${list((r) => r.reads, num)}::text::bigint[],
          ${list((r) => r.timeouts, num)}::text::bigint[],
          ${list((r) => r.exceptions, num)}::text::bigint[],
          ${list((r) => r.crcErrors, num)}::text::bigint[],
          ${list((r) => r.invalid, num)}::text::bigint[],
          ${list((r) => r.lastValue, num)}::text::double precision[],
          ${list((r) => r.lastReadAt, time)}::text::timestamptz[],
          ${list((r) => r.lastError, str)}::text::text[],
          ${list((r) => r.lastErrorAt, time)}::text::timestamptz[]
        ) as r(device_id, tag, reads, timeouts, exceptions, crc_errors, invalid, last_value, last_read_at,
          last_error, last_error_at)
        join devices d on d.id = r.device_id
        on conflict (device_id, tag) do update set
          reads = s.reads + excluded.reads,
          timeouts = s.timeouts + excluded.timeouts,
          exceptions = s.exceptions + excluded.exceptions,
          crc_errors = s.crc_errors + excluded.crc_errors,
          invalid = s.invalid + excluded.invalid,
          last_value = coalesce(excluded.last_value, s.last_value),
          last_read_at = coalesce(excluded.last_read_at, s.last_read_at),
          last_error = case when excluded.last_error_at is null then s.last_error else excluded.last_error end,
          last_error_at = coalesce(excluded.last_error_at, s.last_error_at),
          updatedat = now()`);
    }
  }

  /** Control formula of a writable variable: the given one, or the inverse of a linear capture formula. */
  static controlOf(
    v: PolledVariable,
  ): { ok: true; control?: CompiledFormula } | { ok: false; reason: string } {
    const r = checkControlFormula(v.captureFormula, v.controlFormula);
    return r.ok ? { ok: true, control: r.control } : { ok: false, reason: r.reason };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const off of this.off) off();
    await this.periodic.stop();
    for (const bus of this.buses.values()) {
      clearTimeout(bus.guard);
      if (bus.inFlight)
        this.finish(bus, bus.inFlight, { outcome: 'offline', message: 'the server is stopping' });
      for (const job of bus.queue.splice(0))
        job.done({
          outcome: 'offline',
          message: 'the server is stopping',
          request: new Uint8Array(),
          received: [],
        });
    }
    this.buses.clear();
    await this.flush();
  }
}

export const hex = toHex;
