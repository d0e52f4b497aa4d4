import { describe, expect, it } from 'vitest';
import type { PropertySeries } from '@cellhub/contract/property-series';
import { foldLiveValue } from './live-series';

const at = (min: number, sec = 0) => new Date(Date.UTC(2025, 0, 1, 0, min, sec)).toISOString();

const series = (): PropertySeries => ({
  key: 'temp',
  from: at(0),
  to: at(30),
  bucket_seconds: 300,
  buckets: [
    { ts: at(0), avg: 20, min: 19, max: 21, count: 2 },
    { ts: at(10), avg: 22, min: 22, max: 22, count: 1 },
  ],
  source: 'raw',
  rollup_before: null,
});

describe('foldLiveValue', () => {
  it('adds a reading to the bucket it falls in, as the server would have', () => {
    const s = foldLiveValue(series(), at(12, 30), 25);
    expect(s.buckets).toEqual([
      { ts: at(0), avg: 20, min: 19, max: 21, count: 2 },
      { ts: at(10), avg: 23.5, min: 22, max: 25, count: 2 },
    ]);
  });

  it('opens a new bucket in time order, a point more on the chart', () => {
    const s = foldLiveValue(series(), at(27), 18);
    expect(s.buckets.map((b) => [b.ts, b.avg])).toEqual([
      [at(0), 20],
      [at(10), 22],
      [at(25), 18],
    ]);
    const between = foldLiveValue(series(), at(6), 1);
    expect(between.buckets.map((b) => b.ts)).toEqual([at(0), at(5), at(10)]);
  });

  it('stretches the window for a reading after its end and counts booleans as 0/1', () => {
    const s = foldLiveValue(series(), at(31), true);
    expect(s.to).toBe(at(31));
    expect(s.buckets.at(-1)).toEqual({ ts: at(30), avg: 1, min: 1, max: 1, count: 1 });
  });

  it('leaves the series alone for text, non-finite numbers and readings before the window', () => {
    const s = series();
    expect(foldLiveValue(s, at(12), 'hot')).toBe(s);
    expect(foldLiveValue(s, at(12), Number.NaN)).toBe(s);
    expect(foldLiveValue(s, new Date(Date.UTC(2024, 11, 31)).toISOString(), 5)).toBe(s);
    expect(foldLiveValue(s, 'not a time', 5)).toBe(s);
  });
});
