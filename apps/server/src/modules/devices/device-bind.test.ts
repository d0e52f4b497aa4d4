import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };
let productKey: string;

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

async function secretOf(sn: string): Promise<string> {
  return data<{ secret: string }>(await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token: admin }))
    .secret;
}

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
  const res = await t.inject({
    method: 'POST',
    url: '/api/products',
    token: admin,
    payload: { name: 'Stock DTU' },
  });
  productKey = data<{ product_key: string }>(res).product_key;
  // Admin-created devices have no owner: they are in stock.
  await t.inject({
    method: 'POST',
    url: '/api/devices',
    token: admin,
    payload: { product_key: productKey, sn: ['BIND-1', 'BIND-2', 'BIND-3'] },
  });
});
afterAll(() => t.close());

describe('bind', () => {
  it('answers 10117 alike for an unknown sn and a wrong secret', async () => {
    for (const payload of [
      { sn: 'NOPE-1', secret: 'whatever' },
      { sn: 'BIND-1', secret: 'wrong-secret' },
    ]) {
      const res = await t.inject({ method: 'POST', url: '/api/devices/bind', token: a.token, payload });
      expect(res.statusCode).toBe(400);
      expect(errorOf(res).code).toBe(10117);
    }
    expect((await t.inject({ method: 'GET', url: '/api/devices', token: a.token })).json().total).toBe(0);
  });

  it('gives an in-stock device to the user who knows its secret; 11014 for everyone after', async () => {
    const secret = await secretOf('BIND-1');
    const res = await t.inject({
      method: 'POST',
      url: '/api/devices/bind',
      token: a.token,
      payload: { sn: ' BIND-1 ', secret },
    });
    expect(res.statusCode).toBe(200);
    expect(data<{ uid: number; sn: string }>(res)).toMatchObject({ uid: a.uid, sn: 'BIND-1' });
    const list = (await t.inject({ method: 'GET', url: '/api/devices', token: a.token })).json() as {
      data: { sn: string; owner: string | null }[];
    };
    expect(list.data.map((d) => d.sn)).toEqual(['BIND-1']);
    for (const token of [b.token, a.token]) {
      const again = await t.inject({
        method: 'POST',
        url: '/api/devices/bind',
        token,
        payload: { sn: 'BIND-1', secret },
      });
      expect(errorOf(again).code).toBe(11014);
    }
  });

  it('shows admins the owner of each device in the list', async () => {
    const list = (
      await t.inject({ method: 'GET', url: '/api/devices?keyword=BIND-', token: admin })
    ).json() as {
      data: { sn: string; owner: string | null; uid: number | null }[];
    };
    const bySn = Object.fromEntries(list.data.map((d) => [d.sn, d]));
    expect(bySn['BIND-1']!.uid).toBe(a.uid);
    expect(bySn['BIND-1']!.owner).toMatch(/^user/);
    expect(bySn['BIND-2']!.owner).toBeNull();
  });

  it('validates the body', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/devices/bind',
      token: a.token,
      payload: { sn: 'a/b', secret: '' },
    });
    expect(errorOf(res).code).toBe(10113);
  });
});

describe('unbind', () => {
  it("refuses someone else's device as if it did not exist", async () => {
    const res = await t.inject({ method: 'POST', url: '/api/devices/BIND-1/unbind', token: b.token });
    expect(errorOf(res).code).toBe(10117);
    expect(
      data<{ uid: number }>(await t.inject({ method: 'GET', url: '/api/devices/BIND-1', token: admin })).uid,
    ).toBe(a.uid);
  });

  it('returns the device to stock with a new secret; the old one no longer claims it', async () => {
    const before = await secretOf('BIND-1');
    const res = await t.inject({ method: 'POST', url: '/api/devices/BIND-1/unbind', token: a.token });
    expect(res.statusCode).toBe(200);
    const detail = data<{ uid: number | null; secret: string }>(
      await t.inject({ method: 'GET', url: '/api/devices/BIND-1', token: admin }),
    );
    expect(detail.uid).toBeNull();
    expect(detail.secret).not.toBe(before);
    expect(errorOf(await t.inject({ method: 'GET', url: '/api/devices/BIND-1', token: a.token })).code).toBe(
      10117,
    );
    const old = await t.inject({
      method: 'POST',
      url: '/api/devices/bind',
      token: a.token,
      payload: { sn: 'BIND-1', secret: before },
    });
    expect(errorOf(old).code).toBe(10117);
    const fresh = await t.inject({
      method: 'POST',
      url: '/api/devices/bind',
      token: b.token,
      payload: { sn: 'BIND-1', secret: detail.secret },
    });
    expect(data<{ uid: number }>(fresh).uid).toBe(b.uid);
  });

  it('lets admins unbind any device, and answers 10118 for a device already in stock', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/devices/BIND-1/unbind', token: admin });
    expect(res.statusCode).toBe(200);
    const again = await t.inject({ method: 'POST', url: '/api/devices/BIND-1/unbind', token: admin });
    expect(errorOf(again).code).toBe(10118);
  });
});
