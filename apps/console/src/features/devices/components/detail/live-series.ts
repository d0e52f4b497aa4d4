/**
 * Live points for a property chart: the browser stream's `device.properties` values folded into the buckets the
 * server sent, the way the server folds stored rows (date_bin from the window's start; avg, min, max, count), so
 * the chart moves with each report instead of waiting for the next fetch.
 */
import type { PropertySeries } from '@cellhub/contract/property-series';

/**
 * The series with one more reading of its property at `ts` (ISO): added to its bucket, or a new bucket in time
 * order; a reading after the window's end stretches the window. Readings before the window, and text, change
 * nothing. Returns the same object when nothing changed.
 */
export function foldLiveValue(s: PropertySeries, ts: string, value: unknown): PropertySeries {
  const v = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  if (typeof v !== 'number' || !Number.isFinite(v)) return s;
  const t = Date.parse(ts);
  const from = Date.parse(s.from);
  if (!Number.isFinite(t) || t < from) return s;
  const width = s.bucket_seconds * 1000;
  const start = from + Math.floor((t - from) / width) * width;
  const buckets = [...s.buckets];
  // Live readings land at the end: search from there.
  let i = buckets.length - 1;
  while (i >= 0 && Date.parse(buckets[i]!.ts) > start) i--;
  const hit = i >= 0 && Date.parse(buckets[i]!.ts) === start ? buckets[i]! : undefined;
  if (hit) {
    // `count` may include text values of a mixed property; the average is over the numbers, which a numeric
    // property's count is. Good enough for a live line until the next fetch makes it exact.
    const n = hit.avg === null ? 0 : hit.count;
    buckets[i] = {
      ts: hit.ts,
      avg: hit.avg === null ? v : (hit.avg * n + v) / (n + 1),
      min: hit.min === null ? v : Math.min(hit.min, v),
      max: hit.max === null ? v : Math.max(hit.max, v),
      count: hit.count + 1,
    };
  } else {
    buckets.splice(i + 1, 0, { ts: new Date(start).toISOString(), avg: v, min: v, max: v, count: 1 });
  }
  const to = Date.parse(s.to) < t ? new Date(t).toISOString() : s.to;
  return { ...s, to, buckets };
}
