/**
 * Telemetry at scale (docs/telemetry-scale.md): the weekly partitions of device_properties, the hourly rollups that
 * charts older than a week read, and per-product retention. One recurring job (`telemetry_maintenance`, jobs
 * table) runs the three steps in that order, so one instance at a time does it; every step is idempotent and
 * commits in small transactions, so a pass cut off midway is simply continued by the next one.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { QueuedJobDefinition } from '../../jobs/queue';
import { queuedJobKind } from '../../jobs/queue';
import { JobWorker } from '../../jobs/worker';
import type { Deps } from '../../lib/deps';

export const MAINTENANCE_KIND = 'telemetry_maintenance';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const WEEK_MS = 7 * DAY_MS;
/** Partitions made ahead of the current week, so ingest never lands in the default partition. */
export const PARTITIONS_AHEAD = 2;
/** Rows of the default partition older than this stay there (a device clock in 1970 must not make 2,800 tables). */
export const BACKFILL_MAX_MS = 2 * 366 * DAY_MS;
/** Charts read raw rows for this long back, rollups before (telemetry-history.service.ts). */
export const RAW_CHART_MS = 7 * DAY_MS;
/**
 * An hour is rolled up once it ended this long ago, so values a device buffered and sent late (up to a day) are in
 * it. Charts need an hour's rollup only when it is a week old; rows arriving later than this stay in the raw history.
 */
export const ROLLUP_SETTLE_MS = DAY_MS;
/** Hours per rollup statement (one transaction each, with the watermark). */
const ROLLUP_CHUNK_MS = DAY_MS;
/** Rows per retention delete statement in the default partition (weekly ones go a day per statement). */
export const RETENTION_BATCH = 50_000;

export const PARTITION_PREFIX = 'device_properties_p';
export const DEFAULT_PARTITION = 'device_properties_default';

/** Monday 00:00 UTC of the week holding `ms`. */
export function weekStart(ms: number): number {
  const day = Math.floor(ms / DAY_MS);
  // 1970-01-01 was a Thursday: (day + 3) % 7 is the days since Monday.
  return (day - ((((day + 3) % 7) + 7) % 7)) * DAY_MS;
}

export const partitionName = (startMs: number): string =>
  PARTITION_PREFIX + new Date(startMs).toISOString().slice(0, 10).replaceAll('-', '');

/** The start of a partition named by `partitionName`, or undefined for another name. */
export function partitionStart(name: string): number | undefined {
  const m = /^device_properties_p(\d{4})(\d{2})(\d{2})$/.exec(name);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : undefined;
}

const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
const iso = (ms: number) => new Date(ms).toISOString();
const rowsOf = <T>(res: unknown): T[] => (res as { rows: T[] }).rows;

/** Weekly partitions attached to device_properties (the default one left out), by start time. */
export async function listPartitions(db: Db): Promise<{ name: string; start: number; end: number }[]> {
  const rows = rowsOf<{ name: string }>(
    await db.execute(sql`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'device_properties'::regclass`),
  );
  return rows
    .map((r) => ({ name: r.name, start: partitionStart(r.name) }))
    .filter((p): p is { name: string; start: number } => p.start !== undefined)
    .map((p) => ({ ...p, end: p.start + WEEK_MS }))
    .sort((a, b) => a.start - b.start);
}

/**
 * Creates the week starting at `start` as a partition, moving the rows the default partition holds for it (a
 * partition cannot be attached while the default one has rows in its range). One transaction: the default
 * partition is locked first, so rows arriving meanwhile wait and then land in the new partition.
 */
async function createPartition(db: Db, start: number): Promise<number> {
  const name = partitionName(start);
  const lo = iso(start);
  const hi = iso(start + WEEK_MS);
  return db.transaction(async (tx) => {
    await tx.execute(sql.raw(`LOCK TABLE ${DEFAULT_PARTITION} IN ACCESS EXCLUSIVE MODE`));
    await tx.execute(sql.raw(`CREATE TABLE ${name} (LIKE device_properties)`));
    const moved = rowsOf<{ n: number }>(
      await tx.execute(
        sql.raw(`with moved as (
          delete from ${DEFAULT_PARTITION} where ts >= '${lo}' and ts < '${hi}'
          returning device_id, key, ts, num, txt, bool)
        , ins as (insert into ${name} select * from moved returning 1)
        select count(*)::int as n from ins`),
      ),
    );
    // Attaching builds the partition's (device_id, key, ts) index from the parent's.
    await tx.execute(
      sql.raw(
        `ALTER TABLE device_properties ATTACH PARTITION ${name} FOR VALUES FROM ('${lo}') TO ('${hi}')`,
      ),
    );
    return Number(moved[0]?.n ?? 0);
  });
}

export interface PartitionRun {
  created: string[];
  /** Rows moved out of the default partition. */
  moved: number;
}

/**
 * The current week and PARTITIONS_AHEAD weeks after it, and every week (within BACKFILL_MAX_MS) that still has rows
 * in the default partition (rows from before the migration, or from a device whose clock ran ahead).
 */
export async function ensurePartitions(deps: Pick<Deps, 'db' | 'now'>, extend?: () => Promise<boolean>) {
  const now = deps.now().getTime();
  const current = weekStart(now);
  const wanted = new Set<number>();
  for (let i = 0; i <= PARTITIONS_AHEAD; i++) wanted.add(current + i * WEEK_MS);
  const pending = rowsOf<{ week: string | Date }>(
    await deps.db.execute(sql`
      select distinct date_bin('7 days', ts, '2000-01-03T00:00:00Z'::timestamptz) as week
      from ${sql.raw(DEFAULT_PARTITION)}
      where ts >= ${iso(now - BACKFILL_MAX_MS)}::timestamptz`),
  );
  for (const r of pending) wanted.add(new Date(r.week).getTime());
  const existing = new Set((await listPartitions(deps.db)).map((p) => p.start));
  const out: PartitionRun = { created: [], moved: 0 };
  for (const start of [...wanted].sort((a, b) => a - b)) {
    if (existing.has(start)) continue;
    if (extend && !(await extend())) break;
    out.moved += await createPartition(deps.db, start);
    out.created.push(partitionName(start));
  }
  return out;
}

/** An hour rolled up again replaces its row: the aggregate is over every raw row of the hour. */
const replaceHour = sql`on conflict (device_id, key, hour) do update set count = excluded.count,
  "values" = excluded."values", sum = excluded.sum, min = excluded.min, max = excluded.max`;

/** Hours before this are in device_property_hourly. */
export async function rolledTo(db: Db): Promise<Date | null> {
  const [row] = rowsOf<{ rolled_to: string | Date | null }>(
    await db.execute(sql`select rolled_to from telemetry_rollup_state where id = 1`),
  );
  return row?.rolled_to ? new Date(row.rolled_to) : null;
}

/**
 * Rolls up every settled hour (ended ROLLUP_SETTLE_MS ago) after the watermark, a day per transaction that also
 * moves the watermark, so a crash leaves whole days done and none twice. The first run starts at the oldest row.
 */
export async function rollUp(deps: Pick<Deps, 'db' | 'now'>, extend?: () => Promise<boolean>) {
  const target = floorHour(deps.now().getTime() - ROLLUP_SETTLE_MS);
  let from = (await rolledTo(deps.db))?.getTime();
  if (from === undefined) {
    const [oldest] = rowsOf<{ ts: string | Date | null }>(
      await deps.db.execute(sql`select min(ts) as ts from device_properties`),
    );
    from = oldest?.ts ? floorHour(new Date(oldest.ts).getTime()) : target;
  }
  let hours = 0;
  if (from >= target) {
    await deps.db.execute(
      sql`update telemetry_rollup_state set rolled_to = ${iso(Math.max(from, target))}::timestamptz
          where id = 1 and rolled_to is null`,
    );
    return { hours, rolledTo: new Date(Math.max(from, target)) };
  }
  while (from < target) {
    if (extend && !(await extend())) break;
    const to = Math.min(target, from + ROLLUP_CHUNK_MS);
    await deps.db.transaction(async (tx) => {
      // The watermark first, FOR UPDATE: a batch of late rows reads it FOR SHARE (property-writer.ts), so it either
      // committed before the aggregation below (which then sees its rows) or reads the moved watermark and marks
      // its hours for `reRollLate`.
      await tx.execute(sql`select rolled_to from telemetry_rollup_state where id = 1 for update`);
      await tx.execute(sql`
        insert into device_property_hourly (device_id, key, hour, count, "values", sum, min, max)
        select device_id, key, hour, count(*)::int, count(v)::int, sum(v), min(v), max(v)
        from (
          select device_id, key, date_bin('1 hour', ts, '2000-01-01T00:00:00Z'::timestamptz) as hour,
            coalesce(num, bool::int::float8) as v
          from device_properties
          where ts >= ${iso(from!)}::timestamptz and ts < ${iso(to)}::timestamptz
        ) h
        group by device_id, key, hour
        ${replaceHour}`);
      await tx.execute(
        sql`update telemetry_rollup_state set rolled_to = ${iso(to)}::timestamptz where id = 1`,
      );
    });
    hours += (to - from) / HOUR_MS;
    from = to;
  }
  return { hours, rolledTo: new Date(from) };
}

export interface RetentionRun {
  /** Partitions dropped whole: every product has a retention and the partition ended before the longest one. */
  dropped: string[];
  /** Rows deleted one by one (products with a shorter retention, or a partition not yet droppable). */
  deleted: number;
  /** Rollup rows deleted. */
  rollupsDeleted: number;
}

/**
 * Per-product retention (`products.retention_days`, null keeps for ever). A weekly partition is dropped whole when
 * no product keeps data that old: every product has a retention and the partition ended more than the longest of
 * them ago. Otherwise (and for the part of a week still inside the longest retention) rows are deleted per product,
 * a day of a weekly partition per statement (RETENTION_BATCH rows at a time in the default one); rollups follow the
 * same rule.
 */
export async function applyRetention(
  deps: Pick<Deps, 'db' | 'now'>,
  extend?: () => Promise<boolean>,
): Promise<RetentionRun> {
  const now = deps.now().getTime();
  const out: RetentionRun = { dropped: [], deleted: 0, rollupsDeleted: 0 };
  const [policy] = rowsOf<{
    products: number;
    kept: number;
    longest: number | null;
    shortest: number | null;
  }>(
    await deps.db.execute(sql`
      select count(*)::int as products, count(*) filter (where retention_days is null)::int as kept,
        max(retention_days) as longest, min(retention_days) as shortest
      from products`),
  );
  if (!policy || policy.shortest === null) return out;
  let partitions = await listPartitions(deps.db);
  if (policy.products > 0 && policy.kept === 0 && policy.longest !== null) {
    const dropBefore = now - Number(policy.longest) * DAY_MS;
    for (const p of partitions.filter((x) => x.end <= dropBefore)) {
      if (extend && !(await extend())) return out;
      await deps.db.execute(sql.raw(`DROP TABLE IF EXISTS ${p.name}`));
      out.dropped.push(p.name);
    }
    partitions = partitions.filter((x) => x.end > dropBefore);
  }
  // Rows of a product are older than its cutoff; no partition starting after the shortest cutoff holds any.
  const earliestCutoff = now - Number(policy.shortest) * DAY_MS;
  const nowIso = iso(now);
  const deleted = async (statement: SQL) =>
    Number(
      rowsOf<{ n: number }>(
        await deps.db.execute(
          sql`with gone as (${statement} returning 1) select count(*)::int as n from gone`,
        ),
      )[0]?.n ?? 0,
    );
  // Weekly partitions a day per statement: the BRIN index on ts finds the day, so every row is read once.
  for (const p of partitions.filter((x) => x.start < earliestCutoff)) {
    for (let day = p.start; day < p.end && day < earliestCutoff; day += DAY_MS) {
      if (extend && !(await extend())) return out;
      out.deleted += await deleted(sql`
        delete from ${sql.raw(p.name)} p using devices d, products pr
        where d.id = p.device_id and pr.product_key = d.product_key and pr.retention_days is not null
          and p.ts >= ${iso(day)}::timestamptz and p.ts < ${iso(day + DAY_MS)}::timestamptz
          and p.ts < ${nowIso}::timestamptz - make_interval(days => pr.retention_days)`);
    }
  }
  // The default partition (any time range, normally nearly empty) in batches.
  for (;;) {
    if (extend && !(await extend())) return out;
    const n = await deleted(
      sql`delete from ${sql.raw(DEFAULT_PARTITION)}
        where ctid = any(array(
          select p.ctid from ${sql.raw(DEFAULT_PARTITION)} p
          join devices d on d.id = p.device_id
          join products pr on pr.product_key = d.product_key
          where pr.retention_days is not null
            and p.ts < ${nowIso}::timestamptz - make_interval(days => pr.retention_days)
          limit ${RETENTION_BATCH}))`,
    );
    out.deleted += n;
    if (n < RETENTION_BATCH) break;
  }
  // An hour's rollup goes when the whole hour is past its product's cutoff.
  const [rolled] = rowsOf<{ n: number }>(
    await deps.db.execute(sql`
      with gone as (
        delete from device_property_hourly h using devices d, products pr
        where d.id = h.device_id and pr.product_key = d.product_key and pr.retention_days is not null
          and h.hour + interval '1 hour' <= ${nowIso}::timestamptz - make_interval(days => pr.retention_days)
        returning 1)
      select count(*)::int as n from gone`),
  );
  out.rollupsDeleted = Number(rolled?.n ?? 0);
  return out;
}

/** Marked hours rolled up again per transaction. */
const REROLL_BATCH = 500;

/**
 * Rolls up again the hours late rows were stored in after they had been rolled up (marked by the property writer
 * in the statement that stored them), then removes their marks: whole hours of each device, every key, from the
 * raw rows. Marks at or after the watermark wait: the regular rollup will read their rows. Each batch takes its
 * marks first (a writer marking the same hour meanwhile waits, then marks it anew) and aggregates in a statement
 * of its own, so it reads every row committed before its marks were taken. Answers the hours redone.
 */
export async function reRollLate(deps: Pick<Deps, 'db'>, extend?: () => Promise<boolean>): Promise<number> {
  let done = 0;
  for (;;) {
    if (extend && !(await extend())) break;
    const n = await deps.db.transaction(async (tx) => {
      const marks = rowsOf<{ device_id: number; hour: string | Date }>(
        await tx.execute(sql`
          delete from telemetry_rollup_dirty d
          using (
            select m.device_id, m.hour from telemetry_rollup_dirty m, telemetry_rollup_state s
            where s.id = 1 and m.hour < s.rolled_to
            order by m.hour limit ${REROLL_BATCH}
          ) pick
          where d.device_id = pick.device_id and d.hour = pick.hour
          returning d.device_id, d.hour`),
      );
      if (marks.length === 0) return 0;
      const ids = marks.map((m) => m.device_id);
      const hours = marks.map((m) => new Date(m.hour).toISOString());
      await tx.execute(sql`
        insert into device_property_hourly (device_id, key, hour, count, "values", sum, min, max)
        select p.device_id, p.key, m.hour, count(*)::int, count(v.v)::int, sum(v.v), min(v.v), max(v.v)
        from unnest(${sql.param(ids)}::int[], ${sql.param(hours)}::timestamptz[]) as m(device_id, hour)
        join device_properties p
          on p.device_id = m.device_id and p.ts >= m.hour and p.ts < m.hour + interval '1 hour'
        cross join lateral (select coalesce(p.num, p.bool::int::float8) as v) v
        group by p.device_id, p.key, m.hour
        ${replaceHour}`);
      return marks.length;
    });
    done += n;
    if (n < REROLL_BATCH) break;
  }
  return done;
}

/** One maintenance pass: partitions, rollups (late hours redone), retention. */
export async function runTelemetryMaintenance(
  deps: Pick<Deps, 'db' | 'now' | 'log'>,
  extend?: () => Promise<boolean>,
) {
  const partitions = await ensurePartitions(deps, extend);
  const rollups = await rollUp(deps, extend);
  const redone = await reRollLate(deps, extend);
  const retention = await applyRetention(deps, extend);
  if (partitions.created.length > 0 || retention.dropped.length > 0 || retention.deleted > 0 || redone > 0)
    deps.log.info({ partitions, rollups, redone, retention }, 'telemetry maintenance');
  return { partitions, rollups: { ...rollups, redone }, retention };
}

/**
 * The recurring `telemetry_maintenance` job: one instance at a time, every `intervalMs`, the first run a minute
 * after the first start (rows written before it wait in the default partition and are moved then).
 */
export function telemetryMaintenanceJob(deps: Deps, intervalMs: number): QueuedJobDefinition<unknown> {
  return {
    name: MAINTENANCE_KIND,
    everyMs: intervalMs,
    firstRunAfterMs: Math.min(intervalMs, 60_000),
    leaseMs: 10 * 60_000,
    maxAttempts: 3,
    backoff: { baseMs: 60_000, maxMs: intervalMs },
    handler: async (_payload, ctx) => void (await runTelemetryMaintenance(deps, () => ctx.extendLease())),
  };
}

/** `intervalMs` 0 starts nothing (tests call runTelemetryMaintenance themselves). */
export function startTelemetryMaintenance(deps: Deps, intervalMs: number): { stop(): Promise<void> } {
  if (intervalMs <= 0) return { stop: async () => undefined };
  const worker = new JobWorker(queuedJobKind(deps, telemetryMaintenanceJob(deps, intervalMs)), {
    log: deps.log,
    channels: deps.channels,
    concurrency: 1,
    pollMs: Math.min(intervalMs, 60_000),
  });
  worker.start();
  return worker;
}
