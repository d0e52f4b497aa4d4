import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };
let productKey: string;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
  const res = await t.inject({
    method: 'POST',
    url: '/api/products',
    token: a.token,
    payload: { name: 'DTU A', properties: [{ key: 'temp', name: 'Temperature', unit: '°C' }] },
  });
  expect(res.statusCode).toBe(200);
  productKey = res.json().data.product_key;
});
afterAll(() => t.close());

const data = (res: { json(): unknown }) => (res.json() as { data: unknown }).data;

describe('products', () => {
  it('creates a product with a generated key and secret, visible to its owner and admins only', async () => {
    const res = await t.inject({ method: 'GET', url: `/api/products/${productKey}`, token: a.token });
    const p = data(res) as { product_secret: string; properties: { key: string }[]; uid: number };
    expect(productKey).toMatch(/^pk[0-9a-f]{16}$/);
    expect(p.product_secret.length).toBeGreaterThanOrEqual(32);
    expect(p.properties.map((x) => x.key)).toEqual(['temp']);
    expect(p.uid).toBe(a.uid);
    const other = await t.inject({ method: 'GET', url: `/api/products/${productKey}`, token: b.token });
    expect(errorOf(other).code).toBe(10107);
    const list = await t.inject({ method: 'GET', url: '/api/products', token: b.token });
    expect(list.json().total).toBe(0);
    const asAdmin = await t.inject({ method: 'GET', url: '/api/products', token: admin });
    expect(asAdmin.json().total).toBeGreaterThanOrEqual(1);
  });

  it('refuses a duplicate product_key (70002)', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/products',
      token: b.token,
      payload: { name: 'dup', product_key: productKey },
    });
    expect(errorOf(res).code).toBe(70002);
  });
});

describe('devices', () => {
  it('creates several SNs with one result per line', async () => {
    const other = data(
      await t.inject({ method: 'POST', url: '/api/products', token: a.token, payload: { name: 'other' } }),
    ) as { product_key: string };
    await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: a.token,
      payload: { product_key: other.product_key, sn: ['OTHER-1'] },
    });
    const res = await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: a.token,
      payload: { product_key: productKey, sn: 'A-1\nA-2\n\nA-1\nbad/sn\nOTHER-1' },
    });
    expect(res.statusCode).toBe(200);
    expect(data(res)).toEqual([
      { sn: 'A-1', code: 0, result: 'created' },
      { sn: 'A-2', code: 0, result: 'created' },
      {
        sn: 'bad/sn',
        code: 10113,
        result: 'invalid',
        // Keys the console words in the user's language, and the same in English for API callers.
        field: 'sn',
        rule: 'sn_rule',
        message: expect.stringMatching(/^sn: 1-64 letters/),
      },
      { sn: 'OTHER-1', code: 20403, result: 'wrong_product' },
    ]);
    const again = await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: a.token,
      payload: { product_key: productKey, sn: ['A-2'] },
    });
    expect(data(again)).toEqual([{ sn: 'A-2', code: 20402, result: 'exists' }]);
  });

  it("refuses to create devices under someone else's product", async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: b.token,
      payload: { product_key: productKey, sn: ['B-1'] },
    });
    expect(errorOf(res).code).toBe(10107);
  });

  it('shows the detail with a 32+ character secret to the owner and admins; 10117 to anyone else', async () => {
    const mine = await t.inject({ method: 'GET', url: '/api/devices/A-1', token: a.token });
    const d = data(mine) as { secret: string; uid: number; online: number; product_key: string };
    expect(d.secret.length).toBeGreaterThanOrEqual(32);
    expect(d).toMatchObject({ uid: a.uid, online: 0, product_key: productKey });
    expect(
      (data(await t.inject({ method: 'GET', url: '/api/devices/A-1', token: admin })) as typeof d).secret,
    ).toBe(d.secret);
    for (const [method, url, payload] of [
      ['GET', '/api/devices/A-1', undefined],
      ['PUT', '/api/devices/A-1', { name: 'x' }],
      ['DELETE', '/api/devices/A-1', undefined],
      ['GET', '/api/devices/A-1/commands', undefined],
      ['POST', '/api/devices/A-1/commands', { type: 'string', data: 'hi' }],
      ['GET', '/api/devices/A-1/config', undefined],
      ['PUT', '/api/devices/A-1/config', { config: {} }],
      ['GET', '/api/devices/A-1/properties', undefined],
      ['GET', '/api/devices/A-1/logs', undefined],
      ['GET', '/api/devices/A-1/raw', undefined],
      ['POST', '/api/devices/A-1/raw', { data: '0102' }],
    ] as const) {
      const res = await t.inject({ method, url, token: b.token, payload });
      expect(errorOf(res).code, `${method} ${url}`).toBe(10117);
    }
    const list = await t.inject({ method: 'GET', url: '/api/devices', token: b.token });
    expect(list.json().total).toBe(0);
  });

  it('lists with search, product and online filters and paging', async () => {
    const res = await t.inject({
      method: 'GET',
      url: `/api/devices?keyword=A-&product_key=${productKey}&online=0&per_page=1`,
      token: a.token,
    });
    const body = res.json() as { data: { sn: string; product_name: string }[]; total: number };
    expect(body.total).toBe(2);
    expect(body.data).toHaveLength(1);
    expect(body.data[0]!.product_name).toBe('DTU A');
    const online = await t.inject({ method: 'GET', url: '/api/devices?online=1', token: a.token });
    expect(online.json().total).toBe(0);
  });

  it('lets admins create devices in stock and give them to a user; users cannot change owners', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: admin,
      payload: { product_key: productKey, sn: ['STOCK-1'] },
    });
    expect(data(res)).toEqual([{ sn: 'STOCK-1', code: 0, result: 'created' }]);
    const d = data(await t.inject({ method: 'GET', url: '/api/devices/STOCK-1', token: admin })) as {
      uid: null;
    };
    expect(d.uid).toBeNull();
    expect(errorOf(await t.inject({ method: 'GET', url: '/api/devices/STOCK-1', token: a.token })).code).toBe(
      10117,
    );
    const give = await t.inject({
      method: 'PUT',
      url: '/api/devices/STOCK-1',
      token: admin,
      payload: { uid: b.uid },
    });
    expect((data(give) as { uid: number }).uid).toBe(b.uid);
    const steal = await t.inject({
      method: 'PUT',
      url: '/api/devices/STOCK-1',
      token: b.token,
      payload: { uid: a.uid },
    });
    expect(errorOf(steal).code).toBe(10108);
  });

  it('deletes a device', async () => {
    await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: a.token,
      payload: { product_key: productKey, sn: ['DEL-1'] },
    });
    const res = await t.inject({ method: 'DELETE', url: '/api/devices/DEL-1', token: a.token });
    expect(res.statusCode).toBe(200);
    expect(errorOf(await t.inject({ method: 'GET', url: '/api/devices/DEL-1', token: a.token })).code).toBe(
      10117,
    );
  });

  it('refuses to delete a product that still has devices', async () => {
    const res = await t.inject({ method: 'DELETE', url: `/api/products/${productKey}`, token: a.token });
    expect(errorOf(res).code).toBe(10112);
  });
});

describe('dynamic registration', () => {
  const sign = (secret: string, sn: string, ts: number) =>
    createHmac('sha256', secret).update(`${productKey}${sn}${ts}`).digest('hex');

  it('returns the secret once for a signed request; wrong signature, stale time and a second call are refused', async () => {
    await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: a.token,
      payload: { product_key: productKey, sn: ['REG-1'] },
    });
    const p = data(await t.inject({ method: 'GET', url: `/api/products/${productKey}`, token: a.token })) as {
      product_secret: string;
    };
    const ts = t.clock.now().getTime();
    const url = '/api/device-auth/register';
    const wrong = await t.inject({
      method: 'POST',
      url,
      payload: { product_key: productKey, sn: 'REG-1', ts, sign: sign('nope', 'REG-1', ts) },
    });
    expect(errorOf(wrong).code).toBe(10117);
    const old = ts - 16 * 60_000;
    const stale = await t.inject({
      method: 'POST',
      url,
      payload: { product_key: productKey, sn: 'REG-1', ts: old, sign: sign(p.product_secret, 'REG-1', old) },
    });
    expect(errorOf(stale).code).toBe(10113);
    const unknown = await t.inject({
      method: 'POST',
      url,
      payload: { product_key: productKey, sn: 'NOPE-1', ts, sign: sign(p.product_secret, 'NOPE-1', ts) },
    });
    expect(errorOf(unknown).code).toBe(10117);
    const good = await t.inject({
      method: 'POST',
      url,
      payload: { product_key: productKey, sn: 'REG-1', ts, sign: sign(p.product_secret, 'REG-1', ts) },
    });
    expect(good.statusCode).toBe(200);
    const detail = data(await t.inject({ method: 'GET', url: '/api/devices/REG-1', token: a.token })) as {
      secret: string;
    };
    expect(data(good)).toEqual({ product_key: productKey, sn: 'REG-1', secret: detail.secret });
    const twice = await t.inject({
      method: 'POST',
      url,
      payload: { product_key: productKey, sn: 'REG-1', ts, sign: sign(p.product_secret, 'REG-1', ts) },
    });
    expect(errorOf(twice).code).toBe(20402);
  });
});
