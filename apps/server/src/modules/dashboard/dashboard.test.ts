import { sql } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardOverview, DashboardTrend } from '@cellhub/contract/dashboard';
import { connectDevice, createDevices, eventually, type TestDevice, up } from '../../test/gateway-test-kit';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { deviceDailyStats } from '../telemetry/telemetry-stats.table';

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };
let c: { uid: number; token: string };
let aFirst: TestDevice[];
let aSecond: TestDevice[];
let bDevices: TestDevice[];
const clients: MqttClient[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
  c = await t.createUser();
  aFirst = await createDevices(t, a.token, ['DB-A1', 'DB-A2', 'DB-A3'], { name: 'Meter' });
  aSecond = await createDevices(t, a.token, ['DB-A4'], { name: 'Gateway' });
  bDevices = await createDevices(t, b.token, ['DB-B1', 'DB-B2']);
});
afterAll(async () => {
  await Promise.all(clients.map((x) => x.endAsync(true).catch(() => undefined)));
  await t.close();
});

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;
const get = async <T>(url: string, token: string) => data<T>(await t.inject({ method: 'GET', url, token }));

async function online(d: TestDevice, token: string): Promise<void> {
  const m = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, d);
  clients.push(m);
  await m.publishAsync(up(d, 'status'), '{"online":1}', { qos: 1 });
  await eventually(async () =>
    (await get<{ online: number }>(`/api/devices/${d.sn}`, token)).online === 1 ? true : undefined,
  );
}

describe('overview', () => {
  it("counts the caller's devices (admins: all) by state and product", async () => {
    await online(aFirst[0]!, a.token);
    await online(aSecond[0]!, a.token);
    await online(bDevices[0]!, b.token);

    const mine = await get<DashboardOverview>('/api/dashboard/overview', a.token);
    expect(mine).toMatchObject({ device_total: 4, device_online: 2, device_offline: 2 });
    expect(mine.by_product).toEqual([
      { product_key: aFirst[0]!.productKey, product_name: 'Meter', total: 3, online: 1 },
      { product_key: aSecond[0]!.productKey, product_name: 'Gateway', total: 1, online: 1 },
    ]);
    expect(await get<DashboardOverview>('/api/dashboard/overview', b.token)).toMatchObject({
      device_total: 2,
      device_online: 1,
      device_offline: 1,
    });
    expect(await get<DashboardOverview>('/api/dashboard/overview', c.token)).toEqual({
      device_total: 0,
      device_online: 0,
      device_offline: 0,
      by_product: [],
      // A user without cards, orders or balance (the SIM figures have their tests in modules/sim).
      sim: {
        balance_fen: 0,
        orders_pending: 0,
        orders_renewal: 0,
        cards_total: 0,
        cards_by_operator: [],
        cards_expiring_30d: 0,
      },
    });
    const all = await get<DashboardOverview>('/api/dashboard/overview', admin);
    expect(all).toMatchObject({ device_total: 6, device_online: 3, device_offline: 3 });
  });
});

describe('trend', () => {
  async function deviceId(sn: string): Promise<number> {
    return (await get<{ id: number }>(`/api/devices/${sn}`, admin)).id;
  }

  it('gives one entry per day of the range, ending today, from device_daily_stats', async () => {
    const [a1, a2, b1] = await Promise.all([deviceId('DB-A1'), deviceId('DB-A2'), deviceId('DB-B1')]);
    const db = t.app.deps.db;
    // Connects above already wrote today's rows for the devices that came online; replace them with known figures.
    await db.delete(deviceDailyStats);
    const day = (back: number) => sql`current_date - ${back}::int`;
    await db.insert(deviceDailyStats).values([
      { deviceId: a1, day: day(0), messages: 10 },
      { deviceId: a2, day: day(0), messages: 5 },
      { deviceId: a1, day: day(1), messages: 7 },
      { deviceId: a1, day: day(6), messages: 1 },
      { deviceId: a1, day: day(20), messages: 100 },
      { deviceId: b1, day: day(0), messages: 1000 },
    ] as unknown as (typeof deviceDailyStats.$inferInsert)[]);

    const week = await get<DashboardTrend>('/api/dashboard/trend?range=7', a.token);
    expect(week.range).toBe(7);
    expect(week.days).toHaveLength(7);
    const today = week.days.at(-1)!;
    expect(today).toMatchObject({ online: 2, messages: 15 });
    expect(week.days.at(-2)).toMatchObject({ online: 1, messages: 7 });
    expect(week.days[0]).toMatchObject({ online: 1, messages: 1 });
    expect(week.days.slice(1, 5).every((d) => d.online === 0 && d.messages === 0)).toBe(true);
    // Consecutive calendar days, oldest first.
    const times = week.days.map((d) => Date.parse(`${d.day}T00:00:00Z`));
    expect(times.slice(1).map((x, i) => x - times[i]!)).toEqual(Array(6).fill(86_400_000));

    const month = await get<DashboardTrend>('/api/dashboard/trend?range=30', a.token);
    expect(month.days).toHaveLength(30);
    expect(month.days.reduce((s, d) => s + d.messages, 0)).toBe(123);

    expect((await get<DashboardTrend>('/api/dashboard/trend', b.token)).days.at(-1)).toMatchObject({
      online: 1,
      messages: 1000,
    });
    expect(
      (await get<DashboardTrend>('/api/dashboard/trend?range=15', c.token)).days.every(
        (d) => d.messages === 0,
      ),
    ).toBe(true);
    const all = await get<DashboardTrend>('/api/dashboard/trend?range=30', admin);
    expect(all.days.at(-1)).toMatchObject({ online: 3, messages: 1015 });

    // Today's figures are always read fresh (finished days may come from the cache).
    await db
      .insert(deviceDailyStats)
      .values({ deviceId: b1, day: day(0), messages: 1 } as never)
      .onConflictDoNothing();
    await db.execute(
      sql`update device_daily_stats set messages = messages + 5 where device_id = ${a1} and day = current_date`,
    );
    expect((await get<DashboardTrend>('/api/dashboard/trend?range=7', a.token)).days.at(-1)).toMatchObject({
      online: 2,
      messages: 20,
    });
  });

  it("keeps a finished day's figures for 10 minutes on this server; today's are always read", async () => {
    const a1 = await deviceId('DB-A1');
    const db = t.app.deps.db;
    const day = (back: number) => sql`current_date - ${back}::int`;
    // Whatever earlier calls cached has expired.
    t.clock.advance(10 * 60_000);
    await db.delete(deviceDailyStats);
    await db.insert(deviceDailyStats).values([
      { deviceId: a1, day: day(1), messages: 7 },
      { deviceId: a1, day: day(0), messages: 1 },
    ] as unknown as (typeof deviceDailyStats.$inferInsert)[]);
    const week = async () => (await get<DashboardTrend>('/api/dashboard/trend?range=7', a.token)).days;
    expect((await week()).slice(-2)).toMatchObject([{ messages: 7 }, { messages: 1 }]);
    await db.execute(sql`update device_daily_stats set messages = messages + 100 where device_id = ${a1}`);
    expect((await week()).slice(-2)).toMatchObject([{ messages: 7 }, { messages: 101 }]);
    // The admin's scope has its own entries: read now, so it sees the change.
    const all = await get<DashboardTrend>('/api/dashboard/trend?range=7', admin);
    expect(all.days.at(-2)).toMatchObject({ messages: 107 });
    t.clock.advance(10 * 60_000);
    expect((await week()).slice(-2)).toMatchObject([{ messages: 107 }, { messages: 101 }]);
  });

  it('takes only 7, 15 or 30 days (10113)', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/dashboard/trend?range=8', token: a.token });
    expect(errorOf(res).code).toBe(10113);
  });
});
