import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PropertySeries } from '@cellhub/contract/property-series';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { findDeviceBySn } from '../devices/devices.service';
import { seriesWindow } from './telemetry-history.service';
import { deviceProperties } from './telemetry.table';

let t: TestApp;
let a: { uid: number; token: string };
let b: { uid: number; token: string };
let admin: string;
const SN = 'SERIES-1';
const HOUR = 3_600_000;
/** 2030-01-10T00:00:00Z: a round time, so bucket edges are easy to reason about. */
const NOW = Date.UTC(2030, 0, 10);

beforeAll(async () => {
  t = await buildTestApp();
  // Sessions expire: move the clock before anyone signs in. Frozen first, so it stands at NOW exactly (frozen
  // after the move, the real clock could tick a millisecond in between).
  t.clock.freeze();
  t.clock.advance(NOW - t.clock.now().getTime());
  a = await t.createUser();
  b = await t.createUser();
  admin = await t.adminToken();
  const product = await t.inject({
    method: 'POST',
    url: '/api/products',
    token: a.token,
    payload: { name: 'series', properties: [{ key: 'temp', name: 'Temperature' }] },
  });
  const productKey = (product.json() as { data: { product_key: string } }).data.product_key;
  const created = await t.inject({
    method: 'POST',
    url: '/api/devices',
    token: a.token,
    payload: { product_key: productKey, sn: [SN] },
  });
  expect(created.statusCode).toBe(200);

  const device = await findDeviceBySn(t.app.deps.db, SN);
  const at = (ms: number) => new Date(NOW - ms);
  await t.app.deps.db.insert(deviceProperties).values([
    // Bucket [now-2h, now-1h) under 1-hour buckets: 10, 20, 30 → avg 20.
    { deviceId: device!.id, key: 'temp', ts: at(2 * HOUR - 1000), num: 10 },
    { deviceId: device!.id, key: 'temp', ts: at(1.5 * HOUR), num: 20 },
    { deviceId: device!.id, key: 'temp', ts: at(HOUR + 1000), num: 30 },
    // Bucket [now-1h, now): one value.
    { deviceId: device!.id, key: 'temp', ts: at(10 * 60_000), num: -5 },
    // Outside 7 days: not in a 7d chart.
    { deviceId: device!.id, key: 'temp', ts: at(8 * 24 * HOUR), num: 1000 },
    // Another key and booleans/text.
    { deviceId: device!.id, key: 'hum', ts: at(HOUR / 2), num: 50 },
    { deviceId: device!.id, key: 'relay', ts: at(HOUR / 2), bool: true },
    { deviceId: device!.id, key: 'relay', ts: at(HOUR / 3), bool: false },
    { deviceId: device!.id, key: 'mode', ts: at(HOUR / 3), txt: 'auto' },
  ]);
});
afterAll(() => t.close());

const series = (token: string | undefined, query: string) =>
  t.inject({ method: 'GET', url: `/api/devices/${SN}/properties/series?${query}`, token });
const dataOf = (res: { json(): unknown }) => (res.json() as { data: PropertySeries }).data;

describe('GET /api/devices/:sn/properties/series', () => {
  it('requires sign-in', async () => {
    const res = await series(undefined, 'key=temp&range=7d');
    expect(res.statusCode).toBe(403);
    expect(errorOf(res).code).toBe(10102);
  });

  it('answers another user exactly like a device that does not exist (10117)', async () => {
    const other = await series(b.token, 'key=temp&range=7d');
    expect(other.statusCode).toBe(400);
    expect(errorOf(other).code).toBe(10117);
    const missing = await t.inject({
      method: 'GET',
      url: '/api/devices/NO-SUCH/properties/series?key=temp&range=7d',
      token: b.token,
    });
    expect(errorOf(missing)).toEqual(errorOf(other));
    expect((await series(admin, 'key=temp&range=7d')).statusCode).toBe(200);
  });

  it.each([
    ['no key', 'range=7d'],
    ['a bad key', 'key=a%20b&range=7d'],
    ['an unknown range', 'key=temp&range=2d'],
    ['neither range nor window', 'key=temp'],
    ['only from', 'key=temp&from=2030-01-01T00:00:00Z'],
    ['to before from', 'key=temp&from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z'],
    ['a window over a year', 'key=temp&from=2028-01-01T00:00:00Z&to=2030-01-01T00:00:00Z'],
    ['too many points', 'key=temp&from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z&points=5000'],
    ['a date that is not ISO', 'key=temp&from=yesterday&to=2030-01-02T00:00:00Z'],
  ])('rejects %s (10113 with details)', async (_name, query) => {
    const res = await series(a.token, query);
    expect(res.statusCode).toBe(400);
    const err = errorOf(res);
    expect(err.code).toBe(10113);
    expect(Array.isArray(err.details) && err.details.length > 0).toBe(true);
  });

  it('folds a custom window into buckets with avg, min, max and count', async () => {
    const from = new Date(NOW - 2 * HOUR).toISOString();
    const to = new Date(NOW).toISOString();
    const res = await series(a.token, `key=temp&from=${from}&to=${to}&points=2`);
    expect(res.statusCode).toBe(200);
    const s = dataOf(res);
    expect(s.bucket_seconds).toBe(3600);
    expect(s.buckets).toEqual([
      { ts: from, avg: 20, min: 10, max: 30, count: 3 },
      { ts: new Date(NOW - HOUR).toISOString(), avg: -5, min: -5, max: -5, count: 1 },
    ]);
  });

  it('leaves empty buckets out and keeps to exclusive', async () => {
    const from = new Date(NOW - 2 * HOUR).toISOString();
    // The value 30 sits exactly at `to`, which is exclusive; the window holds 240 buckets of 15 s, two with values.
    const to = new Date(NOW - HOUR - 1000).toISOString();
    const s = dataOf(await series(a.token, `key=temp&from=${from}&to=${to}&points=240`));
    expect(s.bucket_seconds).toBe(15);
    expect(s.buckets.map((x) => x.avg)).toEqual([10, 20]);
    expect(s.buckets[0]!.ts).toBe(from);
    expect(s.buckets.reduce((n, x) => n + x.count, 0)).toBe(2);
  });

  it('covers the preset range up to now, with round buckets, and leaves older rows out', async () => {
    const s = dataOf(await series(a.token, 'key=temp&range=7d'));
    expect(s.bucket_seconds).toBe(1800);
    expect(new Date(s.from).getTime()).toBe(NOW - 7 * 24 * HOUR);
    expect(s.to).toBe(new Date(NOW).toISOString());
    expect(s.buckets.flatMap((x) => [x.min, x.max])).not.toContain(1000);
    expect(s.buckets.reduce((n, x) => n + x.count, 0)).toBe(4);
    for (const x of s.buckets) expect(new Date(x.ts).getTime() % (1800 * 1000)).toBe(0);
  });

  it('charts booleans as 0/1 and counts text values without a number', async () => {
    const relay = dataOf(await series(a.token, 'key=relay&range=24h'));
    const all = relay.buckets.reduce((n, x) => n + x.count, 0);
    expect(all).toBe(2);
    expect(Math.min(...relay.buckets.map((x) => x.min!))).toBe(0);
    expect(Math.max(...relay.buckets.map((x) => x.max!))).toBe(1);
    const mode = dataOf(await series(a.token, 'key=mode&range=24h'));
    expect(mode.buckets).toEqual([expect.objectContaining({ avg: null, min: null, max: null, count: 1 })]);
  });

  it('answers an empty list for a key without history', async () => {
    const s = dataOf(await series(a.token, 'key=nothing&range=30d'));
    expect(s.buckets).toEqual([]);
    expect(s.bucket_seconds).toBe(7200);
  });
});

describe('seriesWindow', () => {
  it('starts a preset on a bucket boundary and ends at now', () => {
    const now = new Date(Date.UTC(2030, 0, 10, 13, 17, 5));
    const w = seriesWindow({ key: 'k', range: '30d' }, now);
    expect(w.to).toEqual(now);
    expect(w.bucketSeconds).toBe(7200);
    expect(w.from.getTime() % 7_200_000).toBe(0);
    expect(now.getTime() - w.from.getTime()).toBeGreaterThanOrEqual(30 * 86_400_000);
    expect(now.getTime() - w.from.getTime()).toBeLessThan(30 * 86_400_000 + 7_200_000);
  });

  it('cuts a custom window into at most `points` buckets', () => {
    const w = seriesWindow(
      { key: 'k', from: '2030-01-01T00:00:00Z', to: '2030-01-01T00:10:01Z', points: 10 },
      new Date(),
    );
    expect(w.bucketSeconds).toBe(61);
  });
});
