/**
 * Property charts: GET /api/devices/:sn/properties/series. The server folds the history of one property into
 * time buckets (avg/min/max/count each), so a 30-day chart sends a few hundred points whatever the row count.
 */
import { z } from 'zod';
import { text } from './text';
import { PROPERTY_KEY_RULE } from './protocol';

export const SERIES_RANGES = ['1h', '24h', '7d', '15d', '30d'] as const;
export type SeriesRange = (typeof SERIES_RANGES)[number];

/** Bucket width per preset range: round widths, so a chart reloaded later lines up with the earlier one. */
export const SERIES_RANGE_BUCKET_SECONDS: Record<SeriesRange, { span: number; bucket: number }> = {
  '1h': { span: 3600, bucket: 15 },
  '24h': { span: 86_400, bucket: 300 },
  '7d': { span: 7 * 86_400, bucket: 1800 },
  '15d': { span: 15 * 86_400, bucket: 3600 },
  '30d': { span: 30 * 86_400, bucket: 7200 },
};

export const SERIES_MAX_POINTS = 2000;
export const SERIES_DEFAULT_POINTS = 300;
/** The longest custom window: a year and a day. */
export const SERIES_MAX_SPAN_SECONDS = 366 * 86_400;

/**
 * Either a preset `range` ending now, or an explicit `from`/`to` window cut into about `points` buckets.
 * `range` wins when both are given.
 */
export const propertySeriesQuery = z.object({
  key: text().regex(PROPERTY_KEY_RULE, 'property_key_rule'),
  range: z.enum(SERIES_RANGES).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  points: z.coerce.number().int().min(1).max(SERIES_MAX_POINTS).optional(),
});
export type PropertySeriesQuery = z.infer<typeof propertySeriesQuery>;

/** One bucket: its start time and the numeric summary of the values in it (booleans count as 0/1). */
export const seriesBucket = z.object({
  ts: text(),
  avg: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  /** Values in the bucket, numeric or not. */
  count: z.number().int(),
});
export type SeriesBucket = z.infer<typeof seriesBucket>;

export const propertySeries = z.object({
  key: text(),
  from: text(),
  to: text(),
  bucket_seconds: z.number().int(),
  /** Buckets with at least one value, oldest first; empty buckets are left out. */
  buckets: z.array(seriesBucket),
  /**
   * Where the buckets come from: `raw` history rows, hourly `rollup`s, or `mixed` (rollups before
   * `rollup_before`, raw rows from it on). Rollups serve the part of a window older than a week when the buckets are
   * whole hours on hour boundaries (docs/telemetry-scale.md); the figures are the same either way.
   */
  source: z.enum(['raw', 'rollup', 'mixed']),
  /** Buckets starting before this instant were read from rollups; null when none were. */
  rollup_before: text().nullable(),
});
export type PropertySeries = z.infer<typeof propertySeries>;
