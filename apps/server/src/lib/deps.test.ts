import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardTrend } from '@cellhub/contract/dashboard';
import { buildTestApp, type TestApp } from '../test/app';
import { devices } from '../modules/devices/devices.table';
import { deviceDailyStats } from '../modules/telemetry/telemetry-stats.table';

/**
 * deps.caches: each running server has its own caches, made with its deps. Two apps in one process (as here) with
 * users of the same uid and filters of the same shape must neither read nor empty each other's entries.
 */
describe('instance caches', () => {
  const apps: { t: TestApp; user: { uid: number; token: string }; key: string }[] = [];

  async function start(deviceCount: number) {
    const t = await buildTestApp({ config: { deviceListCountCacheMs: 600_000 } });
    const user = await t.createUser('cacheowner');
    const p = await t.inject({
      method: 'POST',
      url: '/api/products',
      token: user.token,
      payload: { name: 'cc' },
    });
    const key = (p.json() as { data: { product_key: string } }).data.product_key;
    const sn = Array.from({ length: deviceCount }, (_, i) => `IC-${i + 1}`);
    const res = await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: user.token,
      payload: { product_key: key, sn },
    });
    expect(res.statusCode, res.body).toBe(200);
    apps.push({ t, user, key });
  }

  beforeAll(async () => {
    await start(3);
    await start(5);
  });
  afterAll(async () => {
    await Promise.all(apps.map((x) => x.t.close()));
  });

  const total = async (i: number) => {
    const { t, user } = apps[i]!;
    const res = await t.inject({ method: 'GET', url: '/api/devices?per_page=2', token: user.token });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { total: number }).total;
  };

  it('are made once per server, and a copy of its deps shares them', () => {
    const [one, two] = apps.map((x) => x.t.app.deps);
    expect(one!.caches).not.toBe(two!.caches);
    expect(one!.caches.deviceCounts).not.toBe(two!.caches.deviceCounts);
    expect(one!.caches.dashboardDays).not.toBe(two!.caches.dashboardDays);
    expect({ ...one!, now: () => new Date(0) }.caches).toBe(one!.caches);
  });

  it("keep device-list counts apart: same uid, same filters, each server's own total", async () => {
    // Same uid on both servers, so the count keys are the same too.
    expect(apps[0]!.user.uid).toBe(apps[1]!.user.uid);
    expect(await total(0)).toBe(3);
    expect(await total(1)).toBe(5);
    // A device written behind the second server's API stays out of its cached count...
    const second = apps[1]!;
    await second.t.app.deps.db
      .insert(devices)
      .values({ sn: 'IC-X', productKey: second.key, uid: second.user.uid, secret: 'x'.repeat(16) });
    expect(await total(1)).toBe(5);
    // ...a change through the first server's API empties only the first server's counts...
    const created = await apps[0]!.t.inject({
      method: 'POST',
      url: '/api/devices',
      token: apps[0]!.user.token,
      payload: { product_key: apps[0]!.key, sn: ['IC-4'] },
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(await total(0)).toBe(4);
    expect(await total(1)).toBe(5);
    // ...and one through the second server's API empties its own: 5, the one behind its back and this one.
    const more = await second.t.inject({
      method: 'POST',
      url: '/api/devices',
      token: second.user.token,
      payload: { product_key: second.key, sn: ['IC-6'] },
    });
    expect(more.statusCode, more.body).toBe(200);
    expect(await total(1)).toBe(7);
  });

  it("keep the dashboard's finished days apart", async () => {
    const week = async (i: number) =>
      (
        (
          await apps[i]!.t.inject({
            method: 'GET',
            url: '/api/dashboard/trend?range=7',
            token: apps[i]!.user.token,
          })
        ).json() as { data: DashboardTrend }
      ).data.days.at(-2);
    for (const [i, { t }] of apps.entries()) {
      const [d] = await t.app.deps.db.select({ id: devices.id }).from(devices).limit(1);
      await t.app.deps.db
        .insert(deviceDailyStats)
        .values({ deviceId: d!.id, day: sql`current_date - 1`, messages: 10 * (i + 1) } as never);
    }
    expect(await week(0)).toMatchObject({ online: 1, messages: 10 });
    expect(await week(1)).toMatchObject({ online: 1, messages: 20 });
  });
});
