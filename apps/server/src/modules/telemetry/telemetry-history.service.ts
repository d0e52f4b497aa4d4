import { and, eq, gte, lt, sql } from 'drizzle-orm';
import {
  type PropertySeries,
  type PropertySeriesQuery,
  SERIES_DEFAULT_POINTS,
  SERIES_MAX_SPAN_SECONDS,
  SERIES_RANGE_BUCKET_SECONDS,
} from '@cellhub/contract/property-series';
import type { Db, DbOrTx } from '../../db/client';
import { formError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { accessibleDevice } from '../devices/device-access';
import { RAW_CHART_MS, rolledTo } from './telemetry-maintenance.service';
import { deviceProperties, devicePropertyHourly } from './telemetry.table';

export interface SeriesWindow {
  from: Date;
  to: Date;
  bucketSeconds: number;
}

/**
 * The time window and bucket width of a request. Preset ranges use round widths and start on a bucket boundary,
 * so every bucket but the newest is complete; a custom window is cut into about `points` equal buckets.
 */
export function seriesWindow(query: PropertySeriesQuery, now: Date): SeriesWindow {
  if (query.range) {
    const { span, bucket } = SERIES_RANGE_BUCKET_SECONDS[query.range];
    const end = now.getTime();
    const start = Math.floor((end - span * 1000) / (bucket * 1000)) * bucket * 1000;
    return { from: new Date(start), to: new Date(end), bucketSeconds: bucket };
  }
  if (!query.from) throw formError('from', 'range or from/to required');
  if (!query.to) throw formError('to', 'range or from/to required');
  const from = new Date(query.from);
  const to = new Date(query.to);
  const spanSeconds = (to.getTime() - from.getTime()) / 1000;
  if (!(spanSeconds > 0)) throw formError('to', 'to must be after from');
  if (spanSeconds > SERIES_MAX_SPAN_SECONDS) throw formError('from', 'window longer than 366 days');
  const points = query.points ?? SERIES_DEFAULT_POINTS;
  return { from, to, bucketSeconds: Math.max(1, Math.ceil(spanSeconds / points)) };
}

/**
 * Folds one property's history into buckets in the database (date_bin over the (device, key, ts) index), so the
 * answer stays a few hundred rows whatever the history holds. Buckets start at `from`, one every `bucketSeconds`.
 */
export async function propertyBuckets(
  db: DbOrTx,
  deviceId: number,
  key: string,
  w: SeriesWindow,
): Promise<PropertySeries['buckets']> {
  const bucket = sql`date_bin(make_interval(secs => ${w.bucketSeconds}), ${deviceProperties.ts}, ${w.from.toISOString()}::timestamptz)`;
  // Booleans chart as 0/1; text values only count.
  const numeric = sql`coalesce(${deviceProperties.num}, ${deviceProperties.bool}::int::float8)`;
  const rows = await db
    .select({
      epoch: sql<number>`extract(epoch from ${bucket})::float8`,
      avg: sql<number | null>`avg(${numeric})::float8`,
      min: sql<number | null>`min(${numeric})::float8`,
      max: sql<number | null>`max(${numeric})::float8`,
      count: sql<number>`count(*)::int`,
    })
    .from(deviceProperties)
    .where(
      and(
        eq(deviceProperties.deviceId, deviceId),
        eq(deviceProperties.key, key),
        gte(deviceProperties.ts, w.from),
        lt(deviceProperties.ts, w.to),
      ),
    )
    // By position: the bucket expression carries parameters, and a repeated copy would get new parameter numbers,
    // which PostgreSQL does not recognise as the same expression.
    .groupBy(sql`1`)
    .orderBy(sql`1`);
  return rows.map(toBucket);
}

/** A bucket row of either query (raw rows or hourly rollups) as the API answers it. */
function toBucket(r: {
  epoch: number;
  avg: number | null;
  min: number | null;
  max: number | null;
  count: number;
}): PropertySeries['buckets'][number] {
  return {
    ts: new Date(Number(r.epoch) * 1000).toISOString(),
    avg: r.avg === null ? null : Number(r.avg),
    min: r.min === null ? null : Number(r.min),
    max: r.max === null ? null : Number(r.max),
    count: Number(r.count),
  };
}

const HOUR_MS = 3_600_000;

/**
 * The same buckets as `propertyBuckets`, folded from the hourly rollups: exact when every bucket is whole hours
 * starting on an hour (sums and counts add up, min and max of minima and maxima).
 */
export async function rollupBuckets(
  db: DbOrTx,
  deviceId: number,
  key: string,
  w: SeriesWindow,
): Promise<PropertySeries['buckets']> {
  const h = devicePropertyHourly;
  const bucket = sql`date_bin(make_interval(secs => ${w.bucketSeconds}), ${h.hour}, ${w.from.toISOString()}::timestamptz)`;
  const rows = await db
    .select({
      epoch: sql<number>`extract(epoch from ${bucket})::float8`,
      avg: sql<number | null>`(sum(${h.sum}) / nullif(sum(${h.values}), 0))::float8`,
      min: sql<number | null>`min(${h.min})::float8`,
      max: sql<number | null>`max(${h.max})::float8`,
      count: sql<number>`sum(${h.count})::int`,
    })
    .from(h)
    .where(and(eq(h.deviceId, deviceId), eq(h.key, key), gte(h.hour, w.from), lt(h.hour, w.to)))
    .groupBy(sql`1`)
    .orderBy(sql`1`);
  return rows.map(toBucket);
}

/**
 * Where a window switches from rollups to raw rows: the last bucket boundary at or before both "a week ago"
 * (RAW_CHART_MS) and the rollup watermark, or undefined when no bucket can come from rollups (buckets that are not
 * whole hours on hour boundaries, or nothing rolled up that early).
 */
export function rollupBoundary(w: SeriesWindow, now: Date, rolled: Date | null): Date | undefined {
  const bucketMs = w.bucketSeconds * 1000;
  if (!rolled || bucketMs % HOUR_MS !== 0 || w.from.getTime() % HOUR_MS !== 0) return undefined;
  const limit = Math.min(now.getTime() - RAW_CHART_MS, rolled.getTime(), w.to.getTime());
  const from = w.from.getTime();
  if (limit < from + bucketMs) return undefined;
  return new Date(from + Math.floor((limit - from) / bucketMs) * bucketMs);
}

/** A chart's buckets: rollups before the boundary, raw rows after it. */
export async function chartBuckets(
  db: Db,
  deviceId: number,
  key: string,
  w: SeriesWindow,
  now: Date,
): Promise<{
  buckets: PropertySeries['buckets'];
  source: PropertySeries['source'];
  rollupBefore: Date | null;
}> {
  const boundary = rollupBoundary(w, now, await rolledTo(db));
  if (!boundary)
    return { buckets: await propertyBuckets(db, deviceId, key, w), source: 'raw', rollupBefore: null };
  const old = await rollupBuckets(db, deviceId, key, { ...w, to: boundary });
  if (boundary.getTime() >= w.to.getTime()) return { buckets: old, source: 'rollup', rollupBefore: boundary };
  const recent = await propertyBuckets(db, deviceId, key, { ...w, from: boundary });
  return { buckets: [...old, ...recent], source: 'mixed', rollupBefore: boundary };
}

export async function propertySeries(
  deps: Deps,
  actor: Actor,
  sn: string,
  query: PropertySeriesQuery,
): Promise<PropertySeries> {
  const w = seriesWindow(query, deps.now());
  const device = await accessibleDevice(deps.db, actor, sn, 'view');
  // The newest bucket includes "now": a reading stamped this millisecond belongs in the chart.
  const window = query.range ? { ...w, to: new Date(w.to.getTime() + 1) } : w;
  const { buckets, source, rollupBefore } = await chartBuckets(
    deps.db,
    device.id,
    query.key,
    window,
    deps.now(),
  );
  return {
    key: query.key,
    from: w.from.toISOString(),
    to: w.to.toISOString(),
    bucket_seconds: w.bucketSeconds,
    buckets,
    source,
    rollup_before: rollupBefore?.toISOString() ?? null,
  };
}
