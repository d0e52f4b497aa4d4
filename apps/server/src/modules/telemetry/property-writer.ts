import { sql } from 'drizzle-orm';
import { MAX_RAW_BYTES } from '@cellhub/contract/protocol';
import type { Db } from '../../db/client';
import type { PropertyItem } from '../../realtime/domain-events';

export type { PropertyItem };

export interface PropertyWriterOptions {
  /** Rows per statement; a message's rows never straddle two batches. */
  maxBatchRows: number;
  /**
   * How long the first queued row waits for company before a flush; 0 flushes as soon as the event loop has
   * handled the input at hand (under load, rows arriving during a flush form the next batch anyway).
   */
  maxDelayMs: number;
  /** Rows queued at most; beyond it callers wait (backpressure) instead of dropping. */
  maxQueueRows: number;
  /**
   * Daily message counts ride along with a batch at most this often (and on `flush()`), summed over the batches
   * in between: one count row per device and batch would cost up to a fifth of the writer's work when every
   * message in a batch comes from another device.
   */
  countsEveryMs: number;
  /**
   * Statements in flight at once. PostgreSQL overlaps one batch's commit with the next batch's insert (the latest
   * values are upserted in (device, key) order, so two statements never wait on each other in a cycle); PGlite has
   * one connection, where 1 is right.
   */
  maxInFlight?: number;
  /** The clock (ms) late rows are told by (deps.now in the server). */
  now?: () => number;
}

/**
 * A row at least this old may fall in an hour the maintenance job has rolled up (it rolls hours a day after they
 * end, telemetry-maintenance.service.ts ROLLUP_SETTLE_MS; four hours less for clocks that differ): its batch also
 * marks the row's hour against the rollup watermark.
 */
export const LATE_ROW_MS = 20 * 3_600_000;

export const DEFAULT_WRITER_OPTIONS: PropertyWriterOptions = {
  maxBatchRows: 8000,
  maxDelayMs: 10,
  maxQueueRows: 50_000,
  countsEveryMs: 5000,
  maxInFlight: 1,
};

/** Raw bytes one statement carries at most (raw uplinks of decoded messages, see `tryAdd`). */
const RAW_BYTES_PER_BATCH = 4 * 1024 * 1024;

interface DeviceSlot {
  messages: number;
  /** Row index of the newest value per key in this batch: an upsert may touch a row only once per statement. */
  latest: Map<string, number>;
}

/**
 * Rows of one statement, kept as columns from the start: messages are appended where they arrive, so a flush
 * builds no per-row objects. All messages of a batch share one promise, settled when the batch commits.
 */
class Batch {
  readonly ids: number[] = [];
  readonly keys: string[] = [];
  readonly tss: number[] = [];
  readonly nums: (number | null)[] = [];
  readonly txts: (string | null)[] = [];
  readonly bools: (boolean | null)[] = [];
  readonly devices = new Map<number, DeviceSlot>();
  /**
   * Raw uplinks whose decoded values are in this batch (`P/up/raw` through a product script): written by the same
   * statement, so the raw row and its values commit together in one round trip.
   */
  readonly rawIds: number[] = [];
  /** Base64: A-Z a-z 0-9 + / =, nothing an array literal would have to escape. */
  readonly rawData: string[] = [];
  readonly rawSizes: number[] = [];
  readonly rawTruncated: boolean[] = [];
  rawBytes = 0;
  messages = 0;
  readonly committed: Promise<void>;
  resolve!: () => void;
  reject!: (err: unknown) => void;

  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Settled whether or not anybody awaits it (a batch may hold only connects).
    this.committed.catch(() => undefined);
  }

  get rows(): number {
    return this.ids.length;
  }

  slot(deviceId: number): DeviceSlot {
    let s = this.devices.get(deviceId);
    if (!s) {
      s = { messages: 0, latest: new Map() };
      this.devices.set(deviceId, s);
    }
    return s;
  }

  addRaw(deviceId: number, bytes: Uint8Array): void {
    const kept = bytes.length > MAX_RAW_BYTES ? bytes.subarray(0, MAX_RAW_BYTES) : bytes;
    this.rawIds.push(deviceId);
    this.rawData.push(Buffer.from(kept.buffer, kept.byteOffset, kept.byteLength).toString('base64'));
    this.rawSizes.push(bytes.length);
    this.rawTruncated.push(bytes.length > MAX_RAW_BYTES);
    this.rawBytes += kept.byteLength;
  }

  add(deviceId: number, items: readonly PropertyItem[]): void {
    const slot = this.slot(deviceId);
    slot.messages++;
    this.messages++;
    for (const item of items) {
      const ts = item.ts;
      for (const key in item.params) {
        const value = item.params[key]!;
        const i = this.ids.length;
        this.ids.push(deviceId);
        this.keys.push(key);
        this.tss.push(ts);
        if (typeof value === 'number') {
          this.nums.push(value);
          this.txts.push(null);
          this.bools.push(null);
        } else if (typeof value === 'string') {
          this.nums.push(null);
          this.txts.push(value);
          this.bools.push(null);
        } else {
          this.nums.push(null);
          this.txts.push(null);
          this.bools.push(value);
        }
        const seen = slot.latest.get(key);
        if (seen === undefined || this.tss[seen]! <= ts) slot.latest.set(key, i);
      }
    }
  }
}

// Array literals for the history columns, built here: the drivers' generic array serialisers escape every element
// with regular expressions, a visible share of ingest CPU at tens of thousands of rows per second. Sent as text and
// cast in SQL, so both drivers pass them through unchanged.
const numbers = (a: readonly (number | null)[]): string => {
  let out = '{';
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    out += (i ? ',' : '') + (v === null || v === undefined ? 'NULL' : String(v));
  }
  return out + '}';
};
const NEEDS_ESCAPE = /["\\]/;
const texts = (a: readonly (string | null)[]): string => {
  let out = '{';
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    if (i) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else out += `"${NEEDS_ESCAPE.test(v) ? v.replace(/["\\]/g, '\\$&') : v}"`;
  }
  return out + '}';
};
const bools = (a: readonly (boolean | null)[]): string => {
  let out = '{';
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    out += (i ? ',' : '') + (v === null || v === undefined ? 'NULL' : v ? 't' : 'f');
  }
  return out + '}';
};

/** Values in a message (for-in: no array per item, this runs for every message). */
export function countValues(items: readonly PropertyItem[]): number {
  let n = 0;
  for (const item of items) {
    for (const _ in item.params) n++;
  }
  return n;
}

/**
 * Batches property rows into one statement per flush: the history rows, the upsert of the latest values and (every
 * `countsEveryMs`) the daily message counts of the batches committed since, as data-modifying CTEs of a single
 * INSERT, so a batch is atomic without BEGIN/COMMIT round trips. A message's promise resolves only after its batch
 * committed, so a caller that acknowledges on resolution acknowledges stored data. Counts are statistics: a crash
 * loses at most `countsEveryMs` of them, never a stored row. One flush runs at a time; rows arriving meanwhile form
 * the next batch.
 */
export class PropertyWriter {
  /** Sealed batches waiting for their turn, oldest first. */
  private sealed: Batch[] = [];
  private open: Batch | undefined;
  private queuedRows = 0;
  private flushing = false;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private waitingForRoom: (() => void)[] = [];
  private closed = false;
  /** Messages per device of committed batches (and connects, as 0) not yet in `device_daily_stats`. */
  private counts = new Map<number, number>();
  private countsAt = Date.now();
  private countsTimer: NodeJS.Timeout | undefined;
  /** Totals for metrics and benchmarks. */
  readonly stats = { rows: 0, messages: 0, batches: 0, failures: 0 };

  constructor(
    private readonly db: Db,
    private readonly options: PropertyWriterOptions = DEFAULT_WRITER_OPTIONS,
  ) {}

  /**
   * Queues one device message and returns the promise of its commit, or undefined when the queue is full (wait
   * for `room()` and try again). Synchronous on purpose: the hot path of ingest awaits nothing but the commit.
   */
  tryAdd(deviceId: number, items: readonly PropertyItem[], raw?: Uint8Array): Promise<void> | undefined {
    if (this.closed) throw new Error('property writer closed');
    const n = countValues(items);
    if (n === 0 && !raw) return Promise.resolve();
    if (this.queuedRows > 0 && this.queuedRows + n > this.options.maxQueueRows) return undefined;
    let batch = this.open;
    if (
      batch &&
      (batch.rows > 0 || batch.rawIds.length > 0) &&
      (batch.rows + n > this.options.maxBatchRows ||
        (raw !== undefined && batch.rawBytes + raw.byteLength > RAW_BYTES_PER_BATCH))
    ) {
      this.sealed.push(batch);
      batch = undefined;
    }
    if (!batch) batch = this.open = new Batch();
    if (raw) batch.addRaw(deviceId, raw);
    batch.add(deviceId, items);
    this.queuedRows += n;
    this.schedule();
    return batch.committed;
  }

  /** Resolves when the queue has room again (or the writer closed). */
  room(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
  }

  /**
   * Queues one device message, waiting for room when the queue is full; resolves once it is committed. With `raw`,
   * the raw uplink the values were decoded from is stored by the same statement (raw_messages, cut at MAX_RAW_BYTES
   * as the raw writer does).
   */
  async write(deviceId: number, items: readonly PropertyItem[], raw?: Uint8Array): Promise<void> {
    for (;;) {
      const committed = this.tryAdd(deviceId, items, raw);
      if (committed) return committed;
      await this.room();
    }
  }

  /**
   * Marks a device active today (a `device_daily_stats` row with messages += 0), written with the next batch so a
   * connect storm costs one statement per flush, not one per device.
   */
  markActive(deviceId: number): void {
    if (this.closed) return;
    this.counts.set(deviceId, this.counts.get(deviceId) ?? 0);
    this.scheduleCounts();
  }

  /** Counts waiting without rows to carry them still go out within `countsEveryMs`. */
  private scheduleCounts(): void {
    if (this.countsTimer || this.counts.size === 0) return;
    const wait = Math.max(0, this.countsAt + this.options.countsEveryMs - Date.now());
    this.countsTimer = setTimeout(() => {
      this.countsTimer = undefined;
      void this.flush(true).then(() => this.scheduleCounts());
    }, wait);
    this.countsTimer.unref();
  }

  /** Rows waiting for a flush. */
  get backlog(): number {
    return this.queuedRows;
  }

  private schedule(): void {
    if (this.flushing) return;
    if (this.sealed.length > 0 || (this.open && this.open.rows >= this.options.maxBatchRows)) {
      void this.flush(false);
    } else if (!this.timer) {
      const flush = () => void this.flush(false);
      this.timer =
        this.options.maxDelayMs > 0 ? setTimeout(flush, this.options.maxDelayMs) : setImmediate(flush);
    }
  }

  private next(): Batch | undefined {
    const sealed = this.sealed.shift();
    if (sealed) return sealed;
    const open = this.open;
    this.open = undefined;
    return open;
  }

  /** Writes everything queued so far, the pending daily counts included (unless `countsDue` is false). */
  async flush(countsDue = true): Promise<void> {
    if (this.timer) {
      if ('hasRef' in this.timer && 'refresh' in this.timer) clearTimeout(this.timer);
      else clearImmediate(this.timer);
      this.timer = undefined;
    }
    if (this.flushing) {
      // Explicit flushes (tests, shutdown) wait for the running one, then write what is left.
      if (countsDue) {
        await this.running;
        return this.flush(true);
      }
      return;
    }
    this.flushing = true;
    let resolveRun!: () => void;
    this.running = new Promise<void>((r) => (resolveRun = r));
    const inFlight = new Set<Promise<void>>();
    // Only one statement at a time carries the daily counts, so a count is never written twice.
    let countsCarried = false;
    let countsTail = false;
    try {
      let batch = this.next();
      // Counts alone (connects, or the window elapsed with no rows) travel in an empty batch.
      if (!batch && countsDue && this.counts.size > 0) batch = new Batch();
      for (;;) {
        if (!batch) {
          if (inFlight.size === 0) break;
          // Rows that arrive while the last statements run form the next batch.
          await Promise.race(inFlight);
          batch = this.next();
          // Counts left by batches that ran beside the carrier go out in one last statement.
          if (!batch && inFlight.size === 0 && countsDue && !countsTail && this.counts.size > 0) {
            countsTail = true;
            batch = new Batch();
          }
          continue;
        }
        this.queuedRows -= batch.rows;
        for (const wake of this.waitingForRoom.splice(0)) wake();
        const withCounts =
          !countsCarried && (countsDue || Date.now() - this.countsAt >= this.options.countsEveryMs);
        if (withCounts) countsCarried = true;
        const done: Promise<void> = this.commit(batch, withCounts).finally(() => {
          inFlight.delete(done);
          if (withCounts) countsCarried = false;
        });
        inFlight.add(done);
        if (inFlight.size >= (this.options.maxInFlight ?? 1)) await Promise.race(inFlight);
        batch = this.next();
      }
    } finally {
      this.flushing = false;
      resolveRun();
    }
    this.scheduleCounts();
  }

  /** Writes one batch (with the pending daily counts when `withCounts`) and settles its messages' promise. */
  private async commit(batch: Batch, withCounts: boolean): Promise<void> {
    // This batch's own messages count only once it committed, so they join the pending counts either in this
    // statement or after it succeeded.
    const carried = withCounts ? new Map(this.counts) : undefined;
    let counts: Map<number, number> | undefined;
    if (carried) {
      counts = new Map(carried);
      for (const [id, slot] of batch.devices) counts.set(id, (counts.get(id) ?? 0) + slot.messages);
    }
    try {
      await this.insert(batch, counts).catch((err: unknown) => {
        // A deadlock cannot arise from our lock order, but if PostgreSQL reports one the statement is retried once.
        if ((err as { code?: string }).code === '40P01') return this.insert(batch, counts);
        throw err;
      });
      if (carried) {
        // Subtract what was written: other batches may have added to the same devices meanwhile.
        for (const [id, n] of carried) {
          const now = this.counts.get(id) ?? 0;
          if (now <= n) this.counts.delete(id);
          else this.counts.set(id, now - n);
        }
        this.countsAt = Date.now();
      } else {
        for (const [id, slot] of batch.devices)
          this.counts.set(id, (this.counts.get(id) ?? 0) + slot.messages);
      }
      if (batch.rows > 0) this.stats.batches++;
      this.stats.rows += batch.rows;
      this.stats.messages += batch.messages;
      batch.resolve();
    } catch (err) {
      this.stats.failures++;
      batch.reject(err);
    }
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    clearTimeout(this.countsTimer);
    for (const wake of this.waitingForRoom.splice(0)) wake();
  }

  private async insert(b: Batch, counts: Map<number, number> | undefined): Promise<void> {
    // The latest values are few (devices x keys) and picked here, so the statement reads the history rows once.
    const l = { ids: [] as number[], keys: [] as string[], tss: [] as number[] };
    const lNums: (number | null)[] = [];
    const lTxts: (string | null)[] = [];
    const lBools: (boolean | null)[] = [];
    // (device, key) order: two statements in flight lock the rows they share in the same order.
    const deviceIds = [...b.devices.keys()].sort((x, y) => x - y);
    for (const id of deviceIds) {
      const slot = b.devices.get(id)!;
      const keys = [...slot.latest.keys()].sort();
      for (const key of keys) {
        const i = slot.latest.get(key)!;
        l.ids.push(id);
        l.keys.push(key);
        l.tss.push(b.tss[i]!);
        lNums.push(b.nums[i]!);
        lTxts.push(b.txts[i]!);
        lBools.push(b.bools[i]!);
      }
    }
    const sIds = counts ? [...counts.keys()].sort((x, y) => x - y) : [];
    const sCounts = sIds.map((id) => counts!.get(id)!);
    // Raw uplinks of decoded messages ride along as one more CTE (only when there are any: plain batches keep
    // the statement they had).
    const raws =
      b.rawIds.length === 0
        ? sql``
        : sql`raws as (
        insert into raw_messages (device_id, direction, data, size, truncated)
        select device_id, 'up', data, size, truncated
        from unnest(${numbers(b.rawIds)}::text::int[], ${texts(b.rawData)}::text::text[],
          ${numbers(b.rawSizes)}::text::int[], ${bools(b.rawTruncated)}::text::bool[])
          as r(device_id, data, size, truncated)
      ),`;
    // A late row (a device's buffer sent after an outage) may belong to an hour already rolled up: its hour is marked
    // for the maintenance job to roll up again, in this statement, so a stored row is never missing from its hour.
    // The watermark is read FOR SHARE: a rollup moving it meanwhile (it takes the row FOR UPDATE first) either ends
    // before this reads it, or starts its aggregation after this commits.
    const lateBefore = (this.options.now ?? Date.now)() - LATE_ROW_MS;
    const late = b.tss.some((ms) => ms < lateBefore)
      ? sql`late as (
        insert into telemetry_rollup_dirty (device_id, hour)
        select distinct t.device_id, date_bin('1 hour', to_timestamp(t.ms / 1000), '2000-01-01T00:00:00Z'::timestamptz)
        from unnest(${numbers(b.ids)}::text::int[], ${numbers(b.tss)}::text::float8[]) as t(device_id, ms),
          (select rolled_to from telemetry_rollup_state where id = 1 for share) s
        where to_timestamp(t.ms / 1000) < s.rolled_to
        on conflict (device_id, hour) do update set marked_at = now()
      ),`
      : sql``;
    // unnest() keeps the statement at a fixed number of parameters whatever the batch size (no 65535 ceiling);
    // timestamps travel as Unix ms, which to_timestamp turns back into the exact millisecond.
    await this.db.execute(sql`
      with ${raws} ${late} history as (
        insert into device_properties (device_id, key, ts, num, txt, bool)
        select device_id, key, to_timestamp(ms / 1000), num, txt, bool
        from unnest(${numbers(b.ids)}::text::int[], ${texts(b.keys)}::text::text[],
          ${numbers(b.tss)}::text::float8[], ${numbers(b.nums)}::text::float8[], ${texts(b.txts)}::text::text[],
          ${bools(b.bools)}::text::bool[])
          as t(device_id, key, ms, num, txt, bool)
      ),
      latest as (
        insert into device_property_latest (device_id, key, ts, num, txt, bool)
        select device_id, key, to_timestamp(ms / 1000), num, txt, bool
        from unnest(${sql.param(l.ids)}::int[], ${sql.param(l.keys)}::text[], ${sql.param(l.tss)}::float8[],
          ${sql.param(lNums)}::float8[], ${sql.param(lTxts)}::text[], ${sql.param(lBools)}::bool[])
          as t(device_id, key, ms, num, txt, bool)
        on conflict (device_id, key) do update
          set ts = excluded.ts, num = excluded.num, txt = excluded.txt, bool = excluded.bool
          where excluded.ts >= device_property_latest.ts
      )
      insert into device_daily_stats (device_id, day, messages)
      select id, current_date, n from unnest(${sql.param(sIds)}::int[], ${sql.param(sCounts)}::int[]) as s(id, n)
      on conflict (device_id, day) do update set messages = device_daily_stats.messages + excluded.messages`);
  }
}
