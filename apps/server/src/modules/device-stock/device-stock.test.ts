import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';

let t: TestApp;
let admin: string;
let alice: { uid: number; token: string; username: string };
let bob: { uid: number; token: string; username: string };
let productKey: string;
let otherKey: string;

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;
type Line = { sn: string; code: number; result: string };

async function product(name: string): Promise<string> {
  const res = await t.inject({ method: 'POST', url: '/api/products', token: admin, payload: { name } });
  return data<{ product_key: string }>(res).product_key;
}

const range = (payload: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: '/api/device-stock/range', token: admin, payload });
const ship = (payload: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: '/api/device-stock/shipments', token: admin, payload });
const stock = async (query: Record<string, string> = {}) =>
  (await t.inject({ method: 'GET', url: '/api/device-stock', token: admin, query })).json() as {
    data: { sn: string; tested: string; product_name: string }[];
    total: number;
  };

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  alice = await t.createUser();
  bob = await t.createUser();
  productKey = await product('Stock DTU');
  otherKey = await product('Other DTU');
});
afterAll(() => t.close());

describe('stock', () => {
  it('creates a zero-padded range through the device create, with its per-line results', async () => {
    // One device of the range exists already under another product: 20403, the rest are created.
    await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: admin,
      payload: { product_key: otherKey, sn: ['RG0003'] },
    });
    const res = await range({ product_key: productKey, prefix: 'RG', from: 1, to: 12, digits: 4 });
    expect(res.statusCode).toBe(200);
    const out = data<{ total: number; created: number; failed: number; lines: Line[] }>(res);
    expect(out).toMatchObject({ total: 12, created: 11, failed: 1 });
    expect(out.lines[0]).toMatchObject({ sn: 'RG0001', code: 0, result: 'created' });
    expect(out.lines[2]).toMatchObject({ sn: 'RG0003', code: 20403, result: 'wrong_product' });
    // The same range again: every line exists.
    const again = data<{ created: number; lines: Line[] }>(
      await range({ product_key: productKey, prefix: 'RG', from: 1, to: 2, digits: 4 }),
    );
    expect(again.created).toBe(0);
    expect(again.lines.map((l) => l.code)).toEqual([20402, 20402]);
  });

  it('refuses a range over 10,000, a reversed range and a bad prefix (10113)', async () => {
    for (const payload of [
      { product_key: productKey, prefix: 'RG', from: 1, to: 10_001 },
      { product_key: productKey, prefix: 'RG', from: 5, to: 1 },
      { product_key: productKey, prefix: 'R G', from: 1, to: 2 },
      { product_key: productKey, prefix: 'RG\u0000', from: 1, to: 2 },
    ]) {
      const res = await range(payload);
      expect(res.statusCode).toBe(400);
      expect(errorOf(res).code).toBe(10113);
    }
    const res = await range({ product_key: 'nosuchproduct1', prefix: 'RG', from: 1, to: 2 });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).not.toBe(0);
  });

  it('imports stock from a file with update-only, bad rows reported per line', async () => {
    const boundary = 'stock-boundary';
    const csv = 'sn,imei\nRG0001,861234567890123\nNEW-STOCK-1,\nbad sn,\n';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.csv"\r\n` +
      `Content-Type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`;
    const res = await t.inject({
      method: 'POST',
      url: `/api/devices/import?product_key=${productKey}&update_only=1`,
      token: admin,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: body,
    });
    expect(res.statusCode).toBe(200);
    const out = data<{ lines: Line[] }>(res);
    expect(out.lines.map((l) => [l.sn, l.code])).toEqual([
      ['RG0001', 0],
      ['NEW-STOCK-1', 10117],
      ['bad sn', 10113],
    ]);
    // The updated device is still in stock and found by its IMEI (the device list's keyword search).
    const found = await stock({ keyword: '86123456789' });
    expect(found.data.map((d) => d.sn)).toEqual(['RG0001']);
  });

  it('lists only devices without an owner, with product, date and tested filters', async () => {
    const all = await stock({ product_key: productKey, per_page: '100' });
    expect(all.total).toBe(11);
    expect(all.data.every((d) => d.tested === 'untested' && d.product_name === 'Stock DTU')).toBe(true);
    const today = new Date().toISOString().slice(0, 10);
    expect((await stock({ product_key: productKey, created_from: today, created_to: today })).total).toBe(11);
    expect((await stock({ product_key: productKey, created_to: '2000-01-01' })).total).toBe(0);
    expect((await stock({ product_key: productKey, tested: 'ok' })).total).toBe(0);
    const csv = await t.inject({
      method: 'GET',
      url: '/api/device-stock/export',
      token: admin,
      query: { product_key: productKey },
    });
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.split('\r\n').filter(Boolean)).toHaveLength(12);
  });
});

describe('fast out of stock', () => {
  it('refuses an unknown (10107) or disabled (10103) customer and ships nothing', async () => {
    const unknown = await ship({ customer: 'nobody-here', sns: ['RG0001'] });
    expect(unknown.statusCode).toBe(400);
    expect(errorOf(unknown)).toMatchObject({ code: 10107, details: [{ field: 'customer' }] });
    const carol = await t.createUser();
    await t.inject({ method: 'PUT', url: `/api/users/${carol.uid}/disable`, token: admin });
    const disabled = await ship({ customer: carol.username, sns: ['RG0001'] });
    expect(disabled.statusCode).toBe(400);
    expect(errorOf(disabled).code).toBe(10103);
    expect((await stock({ keyword: 'RG0001' })).total).toBe(1);
  });

  it('checks scanned lines: in stock, owned, unknown, invalid', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/device-stock/check',
      token: admin,
      payload: { sns: 'RG0001\nNOPE-9\nbad sn' },
    });
    expect(data<{ sn: string; state: string; code: number }[]>(res)).toMatchObject([
      { sn: 'RG0001', state: 'in_stock', code: 0 },
      { sn: 'NOPE-9', state: 'not_found', code: 10117 },
      { sn: 'bad sn', state: 'invalid', code: 10113 },
    ]);
  });

  it('ships the in-stock lines, refuses owned ones per line, and the customer sees exactly those', async () => {
    // RG0002 goes to bob first: owned.
    const first = await ship({ customer: bob.username, sns: ['RG0002'] });
    expect(data<{ shipped: number }>(first).shipped).toBe(1);
    const res = await ship({
      customer: alice.username.toUpperCase(),
      sns: 'RG0004\nRG0005\nRG0006\nRG0002\nRG0004\nNOPE-1',
      note: 'order 42',
    });
    expect(res.statusCode).toBe(200);
    const out = data<{ shipment: { id: number; count: number; customer: string }; lines: Line[] }>(res);
    expect(out.lines.map((l) => [l.sn, l.code, l.result])).toEqual([
      ['RG0004', 0, 'shipped'],
      ['RG0005', 0, 'shipped'],
      ['RG0006', 0, 'shipped'],
      ['RG0002', 11014, 'owned'],
      ['RG0004', 10113, 'duplicate'],
      ['NOPE-1', 10117, 'not_found'],
    ]);
    expect(out.shipment).toMatchObject({ count: 3, customer: alice.username });
    const mine = (await t.inject({ method: 'GET', url: '/api/devices', token: alice.token })).json() as {
      data: { sn: string }[];
    };
    expect(mine.data.map((d) => d.sn).sort()).toEqual(['RG0004', 'RG0005', 'RG0006']);
    const bobs = (await t.inject({ method: 'GET', url: '/api/devices', token: bob.token })).json() as {
      data: { sn: string }[];
    };
    expect(bobs.data.map((d) => d.sn)).toEqual(['RG0002']);
    // Out of stock now, with the device-log row of the owner change.
    expect((await stock({ keyword: 'RG0004' })).total).toBe(0);
    const log = (
      await t.inject({ method: 'GET', url: '/api/devices/RG0004/logs', token: alice.token })
    ).json() as { data: { event: string; detail: Record<string, unknown> }[] };
    expect(log.data[0]).toMatchObject({ event: 'updated', detail: { ship: out.shipment.id, to: alice.uid } });
    // The record: list and detail with sns.
    const list = (
      await t.inject({
        method: 'GET',
        url: '/api/device-stock/shipments',
        token: admin,
        query: { keyword: alice.username },
      })
    ).json() as { data: { id: number; count: number; note: string; created_by: string }[]; total: number };
    expect(list.total).toBe(1);
    expect(list.data[0]).toMatchObject({ count: 3, note: 'order 42', created_by: 'admin' });
    const detail = data<{ devices: { sn: string }[] }>(
      await t.inject({ method: 'GET', url: `/api/device-stock/shipments/${out.shipment.id}`, token: admin }),
    );
    expect(detail.devices.map((d) => d.sn)).toEqual(['RG0004', 'RG0005', 'RG0006']);
  });

  it('records nothing when no line can ship', async () => {
    const res = await ship({ customer: alice.username, sns: ['RG0002', 'NOPE-2'] });
    expect(data<{ shipment: unknown; shipped: number; failed: number }>(res)).toMatchObject({
      shipment: null,
      shipped: 0,
      failed: 2,
    });
    const missing = await t.inject({
      method: 'GET',
      url: '/api/device-stock/shipments/999999',
      token: admin,
    });
    expect(errorOf(missing).code).toBe(10107);
  });

  it('is refused to role user (10108)', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/device-stock/shipments',
      token: alice.token,
      payload: { customer: alice.username, sns: ['RG0007'] },
    });
    expect(errorOf(res).code).toBe(10108);
    expect((await stock({ keyword: 'RG0007' })).total).toBe(1);
  });
});

describe('productive groups and the stock filters', () => {
  it('filters the stock by group, and ships the in-stock devices of a group to a customer found by phone', async () => {
    const made = await range({ product_key: productKey, prefix: 'GRP', from: 1, to: 4, digits: 2 });
    expect(data<{ created: number }>(made).created).toBe(4);
    const group = data<{ id: number }>(
      await t.inject({
        method: 'POST',
        url: '/api/production/groups',
        token: admin,
        payload: { name: 'Batch A' },
      }),
    );
    const added = await t.inject({
      method: 'POST',
      url: `/api/production/groups/${group.id}/devices`,
      token: admin,
      payload: { sns: ['GRP01', 'GRP02', 'GRP03'] },
    });
    expect(added.statusCode).toBe(200);
    expect((await stock({ group_id: String(group.id) })).total).toBe(3);
    // One of the group is owned already: the group ships the other two.
    await ship({ customer: bob.username, sns: ['GRP03'] });
    const phone = '13800138123';
    const dave = await t.createUser();
    await t.app.deps.db.execute(sql`update users set phone = ${phone} where id = ${dave.uid}`);
    const res = await ship({ customer: '+86 138-0013-8123', group_id: group.id, sns: ['GRP04'] });
    expect(res.statusCode).toBe(200);
    const out = data<{ shipment: { customer: string }; lines: Line[] }>(res);
    expect(out.shipment.customer).toBe(dave.username);
    expect(out.lines.map((l) => [l.sn, l.code])).toEqual([
      ['GRP04', 0],
      ['GRP01', 0],
      ['GRP02', 0],
    ]);
    expect((await stock({ group_id: String(group.id) })).total).toBe(0);
    const missing = await ship({ customer: dave.username, group_id: 999999 });
    expect(errorOf(missing)).toMatchObject({ code: 10107, details: [{ field: 'group_id' }] });
  });

  it('filters by production task and test state', async () => {
    const res = await t.app.deps.db.execute(sql`select id from devices where sn = 'RG0008'`);
    const [row] = (res as unknown as { rows: { id: number }[] }).rows;
    await t.app.deps.db.execute(
      sql`insert into device_hardware (device_id, test_ok) values (${row!.id}, false)`,
    );
    const failed = await stock({ tested: 'failed' });
    expect(failed.data.map((d) => d.sn)).toEqual(['RG0008']);
    expect(failed.data[0]!.tested).toBe('failed');
    expect((await stock({ task_id: '999999' })).total).toBe(0);
  });
});

describe('device timeline', () => {
  type Timeline = { events: { event: string; detail: Record<string, unknown> }[] };
  it('shows produced then shipped to the customer, and bound / unbound after', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/devices/RG0005/timeline', token: alice.token });
    expect(res.statusCode).toBe(200);
    expect(data<Timeline>(res).events).toMatchObject([
      { event: 'produced', detail: {} },
      { event: 'shipped', detail: { customer: alice.username } },
      // The shipment binds it to the customer's account.
      { event: 'bound', detail: { user: alice.username, shipment: true } },
    ]);
    await t.inject({ method: 'POST', url: '/api/devices/RG0005/unbind', token: alice.token });
    // Back in stock: a customer binds it with its secret.
    const secret = data<{ secret: string }>(
      await t.inject({ method: 'GET', url: '/api/devices/RG0005', token: admin }),
    ).secret;
    await t.inject({
      method: 'POST',
      url: '/api/devices/bind',
      token: bob.token,
      payload: { sn: 'RG0005', secret },
    });
    const asAdmin = data<Timeline>(
      await t.inject({ method: 'GET', url: '/api/devices/RG0005/timeline', token: admin }),
    ).events;
    expect(asAdmin.map((e) => e.event)).toEqual(['produced', 'shipped', 'bound', 'unbound', 'bound']);
    expect(asAdmin[3]!.detail).toEqual({ user: alice.username });
    expect(asAdmin[4]!.detail).toEqual({ user: bob.username });
    // The new owner reads the same steps without other people's names.
    const asBob = data<Timeline>(
      await t.inject({ method: 'GET', url: '/api/devices/RG0005/timeline', token: bob.token }),
    ).events;
    expect(asBob.map((e) => e.event)).toEqual(['produced', 'shipped', 'bound', 'unbound', 'bound']);
    // Not even the first customer's name from the shipment.
    expect(asBob[1]!.detail).toEqual({});
    expect(asBob[2]!.detail).toEqual({ shipment: true });
    expect(asBob[3]!.detail).toEqual({});
  });

  it('adds the factory test, the first connect and the SIM activation, in time order', async () => {
    await t.app.deps.db.execute(
      sql`update devices set activatedat = now() + interval '1 minute', iccid = '89860000000000000008' where sn = 'RG0008'`,
    );
    // Its SIM card, activated after the first connect.
    await t.app.deps.db.execute(sql`with p as (
        insert into sim_providers (name, kind, operator) values ('P', 'manual', 'china_mobile') returning id
      )
      insert into sim_cards (iccid, operator, provider_id, status, activated_at)
      select '89860000000000000008', 'china_mobile', p.id, 'active', now() + interval '2 minutes' from p`);
    const events = data<Timeline>(
      await t.inject({ method: 'GET', url: '/api/devices/RG0008/timeline', token: admin }),
    ).events;
    expect(events).toMatchObject([
      { event: 'produced' },
      { event: 'tested', detail: { ok: false } },
      { event: 'first_connect' },
      { event: 'sim_activated', detail: { iccid: '89860000000000000008' } },
    ]);
  });

  it('answers a stranger 10117, as for a missing device', async () => {
    for (const sn of ['RG0004', 'NOPE-404']) {
      const res = await t.inject({ method: 'GET', url: `/api/devices/${sn}/timeline`, token: bob.token });
      expect(res.statusCode).toBe(400);
      expect(errorOf(res).code).toBe(10117);
    }
  });
});
