import { sql } from 'drizzle-orm';
import type { PropertyValue } from '@cellhub/contract/protocol';
import type { Db } from '../../db/client';

export interface PropertyRowIn {
  deviceId: number;
  key: string;
  ts: Date;
  value: PropertyValue;
}

export interface PropertyWriterOptions {
  /** Rows per INSERT. */
  maxBatchRows: number;
  /** How long the first queued row waits for company before a flush. */
  maxDelayMs: number;
  /** Rows queued at most; beyond it `write` waits (backpressure) instead of dropping. */
  maxQueueRows: number;
}

export const DEFAULT_WRITER_OPTIONS: PropertyWriterOptions = {
  maxBatchRows: 5000,
  maxDelayMs: 10,
  maxQueueRows: 50_000,
};

interface Pending {
  rows: PropertyRowIn[];
  resolve(): void;
  reject(err: unknown): void;
}

const split = (v: PropertyValue) =>
  typeof v === 'number'
    ? { num: v, txt: null, bool: null }
    : typeof v === 'string'
      ? { num: null, txt: v, bool: null }
      : { num: null, txt: null, bool: v };

/**
 * Batches property rows into one multi-row INSERT per flush (history) plus one upsert of the latest values, in one
 * transaction. `write` resolves only after that transaction commits, so a caller that acknowledges on resolution
 * acknowledges stored data. One flush runs at a time; rows arriving meanwhile form the next batch.
 */
export class PropertyWriter {
  private queue: Pending[] = [];
  private queuedRows = 0;
  private flushing = false;
  private timer: NodeJS.Timeout | undefined;
  private waitingForRoom: (() => void)[] = [];
  private closed = false;
  /** Devices that connected since the last flush: they count as active today even before sending anything. */
  private active = new Set<number>();
  /** Totals for metrics and benchmarks. */
  readonly stats = { rows: 0, batches: 0, failures: 0 };

  constructor(
    private readonly db: Db,
    private readonly options: PropertyWriterOptions = DEFAULT_WRITER_OPTIONS,
  ) {}

  /** Queues rows and resolves once they are committed. */
  async write(rows: PropertyRowIn[]): Promise<void> {
    const { committed } = await this.enqueue(rows);
    return committed;
  }

  /**
   * Marks a device active today (a `device_daily_stats` row with messages += 0), written with the next batch so a
   * connect storm costs one statement per flush, not one per device.
   */
  markActive(deviceId: number): void {
    if (this.closed) return;
    this.active.add(deviceId);
    this.schedule();
  }

  /**
   * One call is one device message (it counts once in the daily statistics of the device of its first row).
   * Resolves once the rows are in the (bounded) queue, waiting for room when it is full; `committed` settles when
   * their batch commits. Callers that cannot wait for the commit (an MQTT client that acknowledges in order)
   * acknowledge on queueing and rely on `close()` to flush.
   */
  async enqueue(rows: PropertyRowIn[]): Promise<{ committed: Promise<void> }> {
    if (this.closed) throw new Error('property writer closed');
    if (rows.length === 0) return { committed: Promise.resolve() };
    while (this.queuedRows > 0 && this.queuedRows + rows.length > this.options.maxQueueRows) {
      await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
      if (this.closed) throw new Error('property writer closed');
    }
    const committed = new Promise<void>((resolve, reject) => {
      this.queue.push({ rows, resolve, reject });
    });
    this.queuedRows += rows.length;
    this.schedule();
    return { committed };
  }

  /** Rows waiting for a flush. */
  get backlog(): number {
    return this.queuedRows;
  }

  private schedule(): void {
    if (this.flushing) return;
    if (this.queuedRows >= this.options.maxBatchRows) {
      void this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.options.maxDelayMs);
    }
  }

  private take(): Pending[] {
    const batch: Pending[] = [];
    let n = 0;
    while (this.queue.length && (n === 0 || n + this.queue[0]!.rows.length <= this.options.maxBatchRows)) {
      const p = this.queue.shift()!;
      n += p.rows.length;
      batch.push(p);
    }
    this.queuedRows -= n;
    return batch;
  }

  /** Writes everything queued so far. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length || this.active.size) {
        const batch = this.take();
        for (const wake of this.waitingForRoom.splice(0)) wake();
        const active = this.active;
        this.active = new Set();
        try {
          await this.insert(batch, active);
          this.stats.batches++;
          for (const p of batch) p.resolve();
        } catch (err) {
          this.stats.failures++;
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    for (const wake of this.waitingForRoom.splice(0)) wake();
  }

  private async insert(batch: Pending[], active: Set<number>): Promise<void> {
    const rows = batch.length === 1 ? batch[0]!.rows : batch.flatMap((p) => p.rows);
    const perDevice = new Map<number, number>();
    for (const id of active) perDevice.set(id, 0);
    for (const p of batch) {
      const id = p.rows[0]!.deviceId;
      perDevice.set(id, (perDevice.get(id) ?? 0) + 1);
    }
    const ids: number[] = [];
    const keys: string[] = [];
    const tss: string[] = [];
    const nums: (number | null)[] = [];
    const txts: (string | null)[] = [];
    const bools: (boolean | null)[] = [];
    // The newest row per (device, key): an upsert may touch a row only once per statement.
    const latest = new Map<string, PropertyRowIn>();
    for (const r of rows) {
      const v = split(r.value);
      ids.push(r.deviceId);
      keys.push(r.key);
      tss.push(r.ts.toISOString());
      nums.push(v.num);
      txts.push(v.txt);
      bools.push(v.bool);
      const k = `${r.deviceId}\u0000${r.key}`;
      const seen = latest.get(k);
      if (!seen || seen.ts.getTime() <= r.ts.getTime()) latest.set(k, r);
    }
    const l = [...latest.values()];
    const lv = l.map((r) => split(r.value));
    // unnest() keeps the statement at six parameters whatever the batch size (no 65535-parameter ceiling).
    await this.db.transaction(async (tx) => {
      if (rows.length)
        await tx.execute(sql`
        insert into device_properties (device_id, key, ts, num, txt, bool)
        select * from unnest(${sql.param(ids)}::int[], ${sql.param(keys)}::text[],
          ${sql.param(tss)}::timestamptz[], ${sql.param(nums)}::float8[], ${sql.param(txts)}::text[],
          ${sql.param(bools)}::bool[])`);
      if (l.length)
        await tx.execute(sql`
        insert into device_property_latest (device_id, key, ts, num, txt, bool)
        select * from unnest(${sql.param(l.map((r) => r.deviceId))}::int[], ${sql.param(l.map((r) => r.key))}::text[],
          ${sql.param(l.map((r) => r.ts.toISOString()))}::timestamptz[], ${sql.param(lv.map((v) => v.num))}::float8[],
          ${sql.param(lv.map((v) => v.txt))}::text[], ${sql.param(lv.map((v) => v.bool))}::bool[])
        on conflict (device_id, key) do update
          set ts = excluded.ts, num = excluded.num, txt = excluded.txt, bool = excluded.bool
          where excluded.ts >= device_property_latest.ts`);
      // One aggregated upsert per batch; connects add 0 so the device counts as active that day.
      await tx.execute(sql`
        insert into device_daily_stats (device_id, day, messages)
        select id, current_date, n from unnest(${sql.param([...perDevice.keys()])}::int[],
          ${sql.param([...perDevice.values()])}::int[]) as t(id, n)
        on conflict (device_id, day) do update set messages = device_daily_stats.messages + excluded.messages`);
    });
    this.stats.rows += rows.length;
  }
}
