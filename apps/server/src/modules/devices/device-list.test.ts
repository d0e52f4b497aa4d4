import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceListEnvelope, type DeviceListEnvelope } from '@cellhub/contract/devices';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { devicePropertyLatest } from '../telemetry/telemetry.table';
import { devices } from './devices.table';

// A cap of 5 makes "more than the cap" cheap to reach: A owns 12 devices, B 2, the admin sees 14.
const CAP = 5;

let t: TestApp;
let admin: string;
let a: { uid: number; token: string; username: string };
let b: { uid: number; token: string; username: string };
let productKey: string;
let otherProduct: string;
const aSns = Array.from({ length: 12 }, (_, i) => `L-${String(i + 1).padStart(3, '0')}`);

async function product(token: string, name: string, properties: unknown[] = []): Promise<string> {
  const res = await t.inject({ method: 'POST', url: '/api/products', token, payload: { name, properties } });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { data: { product_key: string } }).data.product_key;
}

async function create(token: string, key: string, sns: string[]): Promise<void> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/devices',
    token,
    payload: { product_key: key, sn: sns },
  });
  expect(res.statusCode, res.body).toBe(200);
}

beforeAll(async () => {
  t = await buildTestApp({ config: { deviceListCountCap: CAP } });
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
  productKey = await product(a.token, 'DTU list', [
    { key: 'temp', name: '温度', name_us: 'Temperature', unit: '°C' },
    { key: 'mode', name: '模式' },
  ]);
  otherProduct = await product(a.token, 'Gateway list');
  // Created one at a time so ids (and "newest first") follow the SN order.
  for (const sn of aSns.slice(0, 10)) await create(a.token, productKey, [sn]);
  await create(a.token, otherProduct, aSns.slice(10));
  await create(b.token, await product(b.token, 'B product'), ['B-001', 'B-002']);

  const db = t.app.deps.db;
  const set = (sn: string, values: Partial<typeof devices.$inferInsert>) =>
    db.update(devices).set(values).where(eq(devices.sn, sn));
  await set('L-001', { name: 'Boiler Room North', imei: '861234567890123', iccid: '89860412345678901234' });
  await set('L-002', { name: 'Pump Station', imei: '867777000011112', iccid: '8986ABCDEF0123456789' });
  await set('L-003', { name: 'Valve 50% open' });
  await set('B-001', { name: 'Boiler Room South', imei: '869999999999999' });
  await db
    .update(devices)
    .set({ online: 1 })
    .where(inArray(devices.sn, ['L-004', 'L-005', 'L-006']));
});
afterAll(() => t.close());

async function list(token: string, query: string): Promise<DeviceListEnvelope> {
  const res = await t.inject({ method: 'GET', url: `/api/devices?${query}`, token });
  expect(res.statusCode, res.body).toBe(200);
  // The answer is exactly the contract's envelope (no stray fields such as the statement's count).
  const body = res.json() as DeviceListEnvelope;
  expect(deviceListEnvelope.strict().parse(body)).toBeTruthy();
  for (const item of body.data) expect(Object.keys(item)).not.toContain('total');
  return body;
}

const sns = (body: DeviceListEnvelope) => body.data.map((d) => d.sn);

describe('device list keyword', () => {
  it('finds substrings of sn, name, imei and iccid, in any case', async () => {
    expect(sns(await list(a.token, 'keyword=l-001'))).toEqual(['L-001']);
    expect(sns(await list(a.token, 'keyword=ROOM%20NOR'))).toEqual(['L-001']);
    expect(sns(await list(a.token, 'keyword=0011112'))).toEqual(['L-002']);
    expect(sns(await list(a.token, 'keyword=abcdef01'))).toEqual(['L-002']);
    expect(sns(await list(a.token, 'keyword=345678901234'))).toEqual(['L-001']);
    const station = await list(a.token, 'keyword=station');
    expect(sns(station)).toEqual(['L-002']);
    expect(station).toMatchObject({ total: 1, total_exact: true });
  });

  it('finds with one or two characters too (no trigram to use)', async () => {
    const body = await list(a.token, 'keyword=50&per_page=100');
    expect(sns(body)).toEqual(['L-003']);
    expect(sns(await list(a.token, 'keyword=p'))).toEqual(['L-003', 'L-002']);
  });

  it('never matches across two fields, and takes % and _ literally', async () => {
    // "Pump Station" is followed by imei 8677...: the joined search text must not let "station8677" match.
    expect(sns(await list(a.token, 'keyword=station8677'))).toEqual([]);
    expect(sns(await list(a.token, 'keyword=station%208677'))).toEqual([]);
    expect(sns(await list(a.token, 'keyword=50%25'))).toEqual(['L-003']);
    expect(sns(await list(a.token, 'keyword=%25'))).toEqual(['L-003']);
    expect(sns(await list(a.token, 'keyword=L_00'))).toEqual([]);
  });

  it('refuses a keyword with control characters (10113)', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/devices?keyword=a%1Fb', token: a.token });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe(10113);
  });

  it("searches only the caller's devices; admins search all", async () => {
    expect(sns(await list(b.token, 'keyword=boiler'))).toEqual(['B-001']);
    expect(sns(await list(b.token, 'keyword=L-001'))).toEqual([]);
    const all = await list(admin, 'keyword=boiler%20room');
    expect(sns(all)).toEqual(['B-001', 'L-001']);
    expect(all.data.map((d) => d.owner)).toEqual([b.username, a.username]);
  });
});

describe('device list total', () => {
  it('is exact below the cap', async () => {
    expect(await list(b.token, '')).toMatchObject({ total: 2, total_exact: true });
    expect(await list(a.token, 'online=1')).toMatchObject({ total: 3, total_exact: true });
    expect(await list(a.token, `product_key=${otherProduct}`)).toMatchObject({ total: 2, total_exact: true });
    expect(await list(a.token, `product_key=${productKey}&online=1&per_page=2`)).toMatchObject({
      total: 3,
      total_exact: true,
    });
  });

  it('is a lower bound (total_exact false) when the count reaches the cap past the page start', async () => {
    const first = await list(a.token, 'per_page=2');
    expect(first).toMatchObject({ total: CAP, total_exact: false });
    expect(sns(first)).toEqual(['L-012', 'L-011']);
    // Page 3 starts at 4: the count goes up to 4 + CAP.
    expect(await list(a.token, 'per_page=2&current=3')).toMatchObject({ total: 4 + CAP, total_exact: false });
    // Page 5 starts at 8: 12 < 8 + CAP, so the total is exact again.
    expect(await list(a.token, 'per_page=2&current=5')).toMatchObject({ total: 12, total_exact: true });
    expect(await list(admin, '')).toMatchObject({ total: CAP, total_exact: false });
    expect(await list(a.token, 'online=0')).toMatchObject({ total: CAP, total_exact: false });
    expect(await list(a.token, 'keyword=l-0')).toMatchObject({ total: CAP, total_exact: false });
    expect(await list(a.token, 'keyword=l-0&per_page=5&current=3')).toMatchObject({
      total: 12,
      total_exact: true,
    });
  });

  it('still counts on a page past the end', async () => {
    const past = await list(a.token, 'per_page=2&current=7');
    expect(past).toMatchObject({ data: [], total: 12, total_exact: true });
    expect(await list(a.token, 'keyword=l-0&per_page=5&current=9')).toMatchObject({
      data: [],
      total: 12,
      total_exact: true,
    });
    expect(await list(b.token, 'keyword=nothing-like-this')).toMatchObject({
      data: [],
      total: 0,
      total_exact: true,
    });
  });

  it('pages through every device once, newest first', async () => {
    const seen: string[] = [];
    for (let current = 1; current <= 3; current++)
      seen.push(...sns(await list(a.token, `per_page=5&current=${current}`)));
    expect(seen).toEqual([...aSns].reverse());
  });
});

describe('device list rows', () => {
  it('carry the same fields as the detail, with owner and latest values', async () => {
    const db = t.app.deps.db;
    const [row] = await db.select({ id: devices.id }).from(devices).where(eq(devices.sn, 'L-001'));
    await db
      .update(devices)
      .set({ lastcommunicationat: sql`'2026-01-02 03:04:05.678999+00'::timestamptz`, rssi: -71.5, csq: 20 })
      .where(eq(devices.sn, 'L-001'));
    await db.insert(devicePropertyLatest).values([
      { deviceId: row!.id, key: 'temp', ts: new Date(), num: 21.5 },
      { deviceId: row!.id, key: 'mode', ts: new Date(), txt: 'auto' },
      { deviceId: row!.id, key: 'valve', ts: new Date(), bool: false },
    ]);
    const [item] = (await list(a.token, 'keyword=L-001')).data;
    const detail = (
      (await t.inject({ method: 'GET', url: '/api/devices/L-001', token: a.token })).json() as {
        data: Record<string, unknown>;
      }
    ).data;
    const { secret: _s, iot_platform_param: _p, properties: _props, ...shared } = detail;
    expect(item).toEqual({
      ...shared,
      owner: a.username,
      last_values: { temp: 21.5, mode: 'auto', valve: false },
    });
    expect(item!.lastcommunicationat).toBe('2026-01-02T03:04:05.678Z');
    const [stock] = (await list(b.token, 'keyword=B-002')).data;
    expect(stock).toMatchObject({ last_values: {}, activatedat: null, online: 0 });
  });
});

describe('device list property names', () => {
  it("carry the names and units of the page's products, in the product's order, and no others", async () => {
    const page = await list(a.token, 'keyword=L-001');
    expect(page.property_defs).toEqual({
      [productKey]: [
        { key: 'temp', name: '温度', name_us: 'Temperature', unit: '°C' },
        { key: 'mode', name: '模式', name_us: '', unit: '' },
      ],
    });
    // A page over two products names both; a product without properties answers an empty list.
    const both = await list(a.token, 'per_page=20');
    expect(Object.keys(both.property_defs).sort()).toEqual([otherProduct, productKey].sort());
    expect(both.property_defs[otherProduct]).toEqual([]);
    // B sees neither of A's products.
    const mine = await list(b.token, 'per_page=20');
    expect(Object.keys(mine.property_defs)).not.toContain(productKey);
    expect((await list(a.token, 'keyword=nothing-like-this')).property_defs).toEqual({});
  });
});

describe('device list count cache', () => {
  let c: TestApp;
  let owner: { uid: number; token: string };
  let key: string;
  const list = async (query: string) => {
    const res = await c.inject({ method: 'GET', url: `/api/devices?${query}`, token: owner.token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as DeviceListEnvelope;
  };
  beforeAll(async () => {
    c = await buildTestApp({ config: { deviceListCountCacheMs: 3000 } });
    owner = await c.createUser();
    const p = await c.inject({
      method: 'POST',
      url: '/api/products',
      token: owner.token,
      payload: { name: 'cc' },
    });
    key = (p.json() as { data: { product_key: string } }).data.product_key;
    const sns = Array.from({ length: 12 }, (_, i) => `CC-${String(i + 1).padStart(2, '0')}`);
    const res = await c.inject({
      method: 'POST',
      url: '/api/devices',
      token: owner.token,
      payload: { product_key: key, sn: sns },
    });
    expect(res.statusCode).toBe(200);
  });
  afterAll(() => c.close());

  it('reuses a count for its TTL, yet a change through the API shows at once and the last page is exact', async () => {
    expect((await list('per_page=5')).total).toBe(12);
    // Two rows written behind the API's back (as another instance would): page 1's total is the cached count...
    await c.app.deps.db
      .insert(devices)
      .values(
        ['CC-X1', 'CC-X2'].map((sn) => ({ sn, productKey: key, uid: owner.uid, secret: 'x'.repeat(16) })),
      );
    const page1 = await list('per_page=5');
    expect(page1.total).toBe(12);
    // ...while its rows are fresh,
    expect(page1.data.map((d) => d.sn).slice(0, 2)).toEqual(['CC-X2', 'CC-X1']);
    // and the last page counts exactly.
    expect((await list('per_page=5&current=3')).total).toBe(14);
    // After the TTL the count is taken again.
    c.clock.advance(3000);
    expect((await list('per_page=5')).total).toBe(14);
    // A device created through the API empties the cache: the next page 1 counts it.
    const created = await c.inject({
      method: 'POST',
      url: '/api/devices',
      token: owner.token,
      payload: { product_key: key, sn: ['CC-13'] },
    });
    expect(created.statusCode).toBe(200);
    expect((await list('per_page=5')).total).toBe(15);
    // Filters have their own counts.
    expect((await list('per_page=5&online=1')).total).toBe(0);
  });
});
