import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PropertySeries } from '@cellhub/contract/property-series';
import { jobs } from '../../jobs/jobs.table';
import { queuedJobKind } from '../../jobs/queue';
import { JobWorker } from '../../jobs/worker';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { findDeviceBySn } from '../devices/devices.service';
import { propertyBuckets, seriesWindow } from './telemetry-history.service';
import {
  applyRetention,
  DEFAULT_PARTITION,
  ensurePartitions,
  listPartitions,
  MAINTENANCE_KIND,
  partitionName,
  rollUp,
  runTelemetryMaintenance,
  telemetryMaintenanceJob,
  weekStart,
} from './telemetry-maintenance.service';
import { deviceProperties } from './telemetry.table';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** 2030-01-10T00:00:00Z, a Thursday. */
const NOW = Date.UTC(2030, 0, 10);

let t: TestApp;
let owner: { uid: number; token: string };
const products: Record<'a' | 'b', string> = { a: '', b: '' };
const ids = { a: 0, b: 0 };

const rowsOf = <T>(res: unknown): T[] => (res as { rows: T[] }).rows;
const count = async (where = sql`true`) =>
  Number(
    rowsOf<{ n: number }>(
      await t.app.deps.db.execute(sql`select count(*)::int as n from device_properties where ${where}`),
    )[0]!.n,
  );

async function createProduct(name: string): Promise<string> {
  const res = await t.inject({ method: 'POST', url: '/api/products', token: owner.token, payload: { name } });
  expect(res.statusCode).toBe(200);
  return (res.json() as { data: { product_key: string } }).data.product_key;
}

async function createDevice(productKey: string, sn: string): Promise<number> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/devices',
    token: owner.token,
    payload: { product_key: productKey, sn: [sn] },
  });
  expect(res.statusCode).toBe(200);
  return (await findDeviceBySn(t.app.deps.db, sn))!.id;
}

/** A value every 20 minutes for `days` days before NOW: numbers, and a boolean every hour. */
async function fill(deviceId: number, days: number): Promise<void> {
  const rows: (typeof deviceProperties.$inferInsert)[] = [];
  for (let ms = NOW - days * DAY; ms < NOW; ms += 20 * 60_000) {
    const i = (ms - NOW) / 60_000;
    rows.push({ deviceId, key: 'temp', ts: new Date(ms), num: Math.sin(i / 97) * 40 + (i % 7) });
    if (ms % HOUR === 0)
      rows.push({ deviceId, key: 'temp', ts: new Date(ms + 1000), bool: (i / 60) % 2 === 0 });
  }
  for (let i = 0; i < rows.length; i += 1000)
    await t.app.deps.db.insert(deviceProperties).values(rows.slice(i, i + 1000));
}

const setRetention = async (productKey: string, days: number | null) => {
  const res = await t.inject({
    method: 'PUT',
    url: `/api/products/${productKey}`,
    token: owner.token,
    payload: { retention_days: days },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res;
};

beforeAll(async () => {
  // The job is driven by hand here; in the background it would race the assertions.
  t = await buildTestApp({ config: { telemetryMaintenanceMs: 0 } });
  t.clock.freeze();
  t.clock.advance(NOW - t.clock.now().getTime());
  owner = await t.createUser();
  products.a = await createProduct('scale-a');
  products.b = await createProduct('scale-b');
  ids.a = await createDevice(products.a, 'SCALE-A');
  ids.b = await createDevice(products.b, 'SCALE-B');
  await fill(ids.a, 35);
  await fill(ids.b, 35);
});
afterAll(() => t.close());

describe('partitions (migration 0035 and the maintenance job)', () => {
  it('device_properties is partitioned by range of ts, the old table its default partition', async () => {
    const [info] = rowsOf<{ strategy: string; cols: string }>(
      await t.app.deps.db.execute(sql`
        select p.partstrat as strategy, pg_get_partkeydef('device_properties'::regclass) as cols
        from pg_partitioned_table p where p.partrelid = 'device_properties'::regclass`),
    );
    expect(info).toEqual({ strategy: 'r', cols: 'RANGE (ts)' });
    const [def] = rowsOf<{ bound: string }>(
      await t.app.deps.db.execute(sql`
        select pg_get_expr(c.relpartbound, c.oid) as bound from pg_class c
        where c.relname = ${DEFAULT_PARTITION}`),
    );
    expect(def?.bound).toBe('DEFAULT');
  });

  it('creates this week and the two ahead, moving the rows the default partition held for past weeks', async () => {
    const before = await count();
    expect(before).toBeGreaterThan(2 * 35 * 72);
    const run = await ensurePartitions(t.app.deps);
    const current = weekStart(NOW);
    for (const w of [0, 1, 2]) expect(run.created).toContain(partitionName(current + w * WEEK));
    // 35 days back from a Thursday touch six weeks before this one.
    expect(run.created).toContain(partitionName(weekStart(NOW - 35 * DAY)));
    expect(run.moved).toBe(before);
    const inDefault = rowsOf<{ n: number }>(
      await t.app.deps.db.execute(sql`select count(*)::int as n from ${sql.raw(DEFAULT_PARTITION)}`),
    )[0]!.n;
    expect(inDefault).toBe(0);
    expect(await count()).toBe(before);
    // Every partition got the (device_id, key, ts) index from the parent.
    const parts = await listPartitions(t.app.deps.db);
    const indexed = rowsOf<{ tablename: string }>(
      await t.app.deps.db.execute(
        sql`select tablename from pg_indexes where tablename like 'device_properties_p%'`,
      ),
    ).map((r) => r.tablename);
    for (const p of parts) expect(indexed).toContain(p.name);
    // Idempotent.
    expect((await ensurePartitions(t.app.deps)).created).toEqual([]);
  });

  it('keeps the history API working across partitions', async () => {
    const res = await t.inject({
      method: 'GET',
      url: `/api/devices/SCALE-A/properties?key=temp&per_page=5&from=${new Date(NOW - 20 * DAY).toISOString()}`,
      token: owner.token,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { total: number; data: { ts: string }[] };
    expect(body.total).toBe(await count(sql`device_id = ${ids.a} and ts >= ${new Date(NOW - 20 * DAY)}`));
    expect(body.data[0]!.ts).toBe(new Date(NOW - 20 * 60_000).toISOString());
  });
});

describe('rollups', () => {
  it('a 30-day chart reads hourly rollups beyond a week and matches the raw aggregates', async () => {
    const rolled = await rollUp(t.app.deps);
    // Settled hours only: up to a day ago.
    expect(rolled.rolledTo.toISOString()).toBe(new Date(NOW - DAY).toISOString());
    const res = await t.inject({
      method: 'GET',
      url: '/api/devices/SCALE-A/properties/series?key=temp&range=30d',
      token: owner.token,
    });
    expect(res.statusCode).toBe(200);
    const chart = (res.json() as { data: PropertySeries }).data;
    expect(chart.source).toBe('mixed');
    const boundary = new Date(chart.rollup_before!).getTime();
    expect(boundary).toBeLessThanOrEqual(NOW - WEEK);
    expect(boundary).toBeGreaterThan(NOW - WEEK - 2 * HOUR);
    const raw = await propertyBuckets(t.app.deps.db, ids.a, 'temp', {
      ...seriesWindow({ key: 'temp', range: '30d' }, new Date(NOW)),
      to: new Date(NOW + 1),
    });
    expect(chart.buckets.length).toBe(raw.length);
    expect(chart.buckets.length).toBe(360);
    chart.buckets.forEach((b, i) => {
      const r = raw[i]!;
      expect(b.ts).toBe(r.ts);
      expect(b.count).toBe(r.count);
      expect(b.min).toBeCloseTo(r.min!, 9);
      expect(b.max).toBeCloseTo(r.max!, 9);
      expect(b.avg).toBeCloseTo(r.avg!, 9);
    });
  });

  it('a chart within the last week, or with buckets that are not whole hours, reads raw rows', async () => {
    const week = await t.inject({
      method: 'GET',
      url: '/api/devices/SCALE-A/properties/series?key=temp&range=7d',
      token: owner.token,
    });
    expect((week.json() as { data: PropertySeries }).data).toMatchObject({
      source: 'raw',
      rollup_before: null,
    });
    const from = new Date(NOW - 30 * DAY).toISOString();
    const to = new Date(NOW - 20 * DAY).toISOString();
    const odd = await t.inject({
      method: 'GET',
      url: `/api/devices/SCALE-A/properties/series?key=temp&from=${from}&to=${to}&points=1000`,
      token: owner.token,
    });
    const oddData = (odd.json() as { data: PropertySeries }).data;
    expect(oddData.bucket_seconds).toBe(864);
    expect(oddData.source).toBe('raw');
    const hourly = await t.inject({
      method: 'GET',
      url: `/api/devices/SCALE-A/properties/series?key=temp&from=${from}&to=${to}&points=240`,
      token: owner.token,
    });
    const hourlyData = (hourly.json() as { data: PropertySeries }).data;
    expect(hourlyData).toMatchObject({ source: 'rollup', bucket_seconds: 3600 });
    expect(hourlyData.buckets.length).toBe(240);
    expect(hourlyData.buckets.every((b) => b.count === 4)).toBe(true);
  });
});

describe('retention per product', () => {
  it('is part of the product API: null keeps for ever, 0 is refused', async () => {
    const get = await t.inject({ method: 'GET', url: `/api/products/${products.a}`, token: owner.token });
    expect((get.json() as { data: { retention_days: number | null } }).data.retention_days).toBeNull();
    const bad = await t.inject({
      method: 'PUT',
      url: `/api/products/${products.a}`,
      token: owner.token,
      payload: { retention_days: 0 },
    });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).code).toBe(10113);
    const res = await setRetention(products.a, 10);
    expect((res.json() as { data: { retention_days: number } }).data.retention_days).toBe(10);
  });

  it('deletes rows per product while another product keeps its history', async () => {
    const bBefore = await count(sql`device_id = ${ids.b}`);
    const partitionsBefore = await listPartitions(t.app.deps.db);
    const run = await applyRetention(t.app.deps);
    expect(run.dropped).toEqual([]);
    expect(run.deleted).toBeGreaterThan(0);
    expect(await count(sql`device_id = ${ids.a} and ts < ${new Date(NOW - 10 * DAY)}`)).toBe(0);
    expect(await count(sql`device_id = ${ids.a} and ts >= ${new Date(NOW - 10 * DAY)}`)).toBe(
      10 * 72 + 10 * 24,
    );
    expect(await count(sql`device_id = ${ids.b}`)).toBe(bBefore);
    expect(await listPartitions(t.app.deps.db)).toEqual(partitionsBefore);
    const rollups = rowsOf<{ device_id: number; oldest: string }>(
      await t.app.deps.db.execute(sql`
        select device_id, min(hour) as oldest from device_property_hourly group by device_id order by device_id`),
    );
    expect(new Date(rollups.find((r) => r.device_id === ids.a)!.oldest).getTime()).toBe(NOW - 10 * DAY);
    expect(new Date(rollups.find((r) => r.device_id === ids.b)!.oldest).getTime()).toBe(NOW - 35 * DAY);
  });

  it('drops whole partitions once every product allows it, and deletes the rest row by row', async () => {
    await setRetention(products.b, 20);
    const cutoff = NOW - 20 * DAY;
    const expired = (await listPartitions(t.app.deps.db)).filter((p) => p.end <= cutoff).map((p) => p.name);
    expect(expired.length).toBeGreaterThan(0);
    const { retention } = await runTelemetryMaintenance(t.app.deps);
    expect(retention.dropped).toEqual(expired);
    const left = (await listPartitions(t.app.deps.db)).map((p) => p.name);
    for (const name of expired) expect(left).not.toContain(name);
    expect(await count(sql`device_id = ${ids.b} and ts < ${new Date(cutoff)}`)).toBe(0);
    expect(await count(sql`device_id = ${ids.b} and ts >= ${new Date(cutoff)}`)).toBe(20 * 72 + 20 * 24);
    // A product that keeps for ever again: nothing is dropped.
    await setRetention(products.b, null);
    t.clock.advance(WEEK);
    const later = await runTelemetryMaintenance(t.app.deps);
    expect(later.retention.dropped).toEqual([]);
    expect(later.partitions.created).toEqual([partitionName(weekStart(NOW) + 3 * WEEK)]);
  });
});

describe('the telemetry_maintenance job', () => {
  it('is a recurring job of the jobs table: first pass a minute after the start, then every interval', async () => {
    const worker = new JobWorker(queuedJobKind(t.app.deps, telemetryMaintenanceJob(t.app.deps, HOUR)), {
      log: t.app.log,
      concurrency: 1,
      pollMs: 0,
    });
    t.clock.advance(WEEK);
    expect(await worker.runOnce()).toBe(0);
    const ahead = partitionName(weekStart(NOW) + 4 * WEEK);
    expect((await listPartitions(t.app.deps.db)).map((p) => p.name)).not.toContain(ahead);
    t.clock.advance(61_000);
    expect(await worker.runOnce()).toBe(1);
    expect((await listPartitions(t.app.deps.db)).map((p) => p.name)).toContain(ahead);
    const [job] = await t.app.deps.db.select().from(jobs).where(eq(jobs.kind, MAINTENANCE_KIND));
    expect(job).toMatchObject({ status: 'queued', attempts: 0, lastError: null });
    expect(job!.runAt.getTime()).toBeGreaterThan(t.clock.now().getTime() + HOUR - 1000);
    expect(await worker.runOnce()).toBe(0);
    await worker.stop();
  });
});

// Last: the rows it adds would change the counts the tests above assert.
describe('late readings', () => {
  const hourly = async (deviceId: number, hour: number) =>
    rowsOf<{ count: number; max: number }>(
      await t.app.deps.db.execute(sql`select count, max from device_property_hourly
        where device_id = ${deviceId} and key = 'temp' and hour = ${new Date(hour).toISOString()}::timestamptz`),
    )[0];
  const marks = async () =>
    rowsOf<{ device_id: number; hour: string | Date }>(
      await t.app.deps.db.execute(sql`select device_id, hour from telemetry_rollup_dirty order by hour`),
    ).map((m) => `${m.device_id}@${new Date(m.hour).toISOString()}`);

  it('a reading stored after its hour was rolled up is rolled into it; recent ones mark nothing', async () => {
    // An owner and a device of its own (the tests above changed retention and moved the clock past the sessions).
    owner = await t.createUser();
    const pk = await createProduct('scale-late');
    const id = await createDevice(pk, 'SCALE-L');
    const now = t.clock.now().getTime();
    const hour = Math.floor((now - 10 * DAY) / HOUR) * HOUR;
    await rollUp(t.app.deps);
    const writer = t.app.gateway.telemetry.writer;
    const reading = (ms: number, temp: number) => [{ ts: ms, params: { temp }, deviceTs: true }];
    // Three readings of an hour rolled up long ago, then a pass: the hour is redone with them.
    for (const [i, temp] of [1, 2, 3].entries())
      await writer.write(id, reading(hour + i * 20 * 60_000, temp));
    expect(await marks()).toEqual([`${id}@${new Date(hour).toISOString()}`]);
    expect((await runTelemetryMaintenance(t.app.deps)).rollups.redone).toBe(1);
    expect(await marks()).toEqual([]);
    expect(await hourly(id, hour)).toMatchObject({ count: 3, max: 3 });

    // One more, from a device's buffer after a long outage; and one of an hour ago (not rolled up yet): only the
    // first marks its hour.
    await writer.write(id, reading(hour + 30 * 60_000 + 7, 1000));
    await writer.write(id, reading(now - HOUR, 5));
    expect(await marks()).toEqual([`${id}@${new Date(hour).toISOString()}`]);
    expect(await hourly(id, hour)).toMatchObject({ count: 3, max: 3 });
    expect((await runTelemetryMaintenance(t.app.deps)).rollups.redone).toBe(1);
    expect(await marks()).toEqual([]);
    expect(await hourly(id, hour)).toMatchObject({ count: 4, max: 1000 });

    // The 30-day chart reads that far back from rollups, and has the reading as the raw rows do.
    const res = await t.inject({
      method: 'GET',
      url: '/api/devices/SCALE-L/properties/series?key=temp&range=30d',
      token: owner.token,
    });
    const chart = (res.json() as { data: PropertySeries }).data;
    expect(chart.source).toBe('mixed');
    const raw = await propertyBuckets(t.app.deps.db, id, 'temp', {
      ...seriesWindow({ key: 'temp', range: '30d' }, new Date(now)),
      to: new Date(now + 1),
    });
    const at = chart.buckets.findIndex((b) => b.max === 1000);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(new Date(chart.buckets[at]!.ts).getTime()).toBeLessThan(new Date(chart.rollup_before!).getTime());
    expect(chart.buckets[at]).toMatchObject({ count: raw[at]!.count, max: 1000 });
  });
});
