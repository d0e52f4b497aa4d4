import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
});
afterAll(() => t.close());

const data = <T = Record<string, unknown>>(res: { statusCode: number; body: string; json(): unknown }): T => {
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode}: ${res.body}`);
  return (res.json() as { data: T }).data;
};

async function createProduct(token: string, payload: Record<string, unknown>) {
  return data<{ product_key: string; product_secret: string }>(
    await t.inject({ method: 'POST', url: '/api/products', token, payload }),
  );
}

describe('products: every field of the seed', () => {
  it('creates with the seed fields and the default device configuration, and answers them back', async () => {
    const p = await createProduct(a.token, {
      name: 'Seed DTU',
      product_code: 'DTU-710',
      nodetype: 'gateway',
      protocol: 'mqtt',
      dataformat: 'raw',
      mqtt_interval: 30,
      property_interval: 120,
      config_post_size: 2048,
      device_config: { global: { apn: { name: 'cmnet' } }, mqtt: { keepalive: 90 } },
      properties: [{ key: 'temp', name: '温度', name_us: 'Temperature', unit: '°C', cycles: 60 }],
    });
    const detail = data(
      await t.inject({ method: 'GET', url: `/api/products/${p.product_key}`, token: a.token }),
    );
    expect(detail).toMatchObject({
      name: 'Seed DTU',
      product_code: 'DTU-710',
      nodetype: 'gateway',
      dataformat: 'raw',
      mqtt_interval: 30,
      property_interval: 120,
      config_post_size: 2048,
      iot_platform_id: null,
      iot_platform_name: '',
      iot_platform_type: null,
      iot_platform_config: {},
      device_count: 0,
      config_version_different: 0,
      device_config: { global: { apn: { name: 'cmnet' } }, mqtt: { keepalive: 90 } },
      properties: [
        {
          key: 'temp',
          name: '温度',
          name_us: 'Temperature',
          charttype: 'line',
          datatype: 'number',
          unit: '°C',
          cycles: 60,
        },
      ],
    });
  });

  it('refuses a device configuration that breaks the schema (10113 with the field)', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/products',
      token: a.token,
      payload: { name: 'bad', device_config: { mqtt: { port: 70000 } } },
    });
    expect(res.statusCode).toBe(400);
    const err = errorOf(res);
    expect(err.code).toBe(10113);
    expect(JSON.stringify(err.details)).toContain('device_config');
  });

  it('edits fields and the default configuration', async () => {
    const p = await createProduct(a.token, { name: 'Edit me' });
    const res = await t.inject({
      method: 'PUT',
      url: `/api/products/${p.product_key}`,
      token: a.token,
      payload: { name: 'Edited', mqtt_interval: 10, device_config: { serial: { rs485: { baud: 9600 } } } },
    });
    expect(data(res)).toMatchObject({
      name: 'Edited',
      mqtt_interval: 10,
      device_config: { serial: { rs485: { baud: 9600 } } },
    });
  });
});

describe('products: list', () => {
  it('searches by name and product_key, pages, and counts devices', async () => {
    const u = await t.createUser();
    const keys: string[] = [];
    for (const name of ['Alpha meter', 'Beta meter', 'Gamma valve']) {
      keys.push((await createProduct(u.token, { name })).product_key);
    }
    await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: u.token,
      payload: { product_key: keys[0], sn: ['LIST-1', 'LIST-2'] },
    });
    const byName = await t.inject({ method: 'GET', url: '/api/products?keyword=meter', token: u.token });
    expect(byName.json().total).toBe(2);
    const byKey = await t.inject({ method: 'GET', url: `/api/products?keyword=${keys[2]}`, token: u.token });
    expect((byKey.json().data as { name: string }[]).map((p) => p.name)).toEqual(['Gamma valve']);
    const page = await t.inject({ method: 'GET', url: '/api/products?per_page=2&current=2', token: u.token });
    expect(page.json().total).toBe(3);
    expect(page.json().data).toHaveLength(1);
    const all = data<{ product_key: string; device_count: number }[]>(
      await t.inject({ method: 'GET', url: '/api/products', token: u.token }),
    );
    expect(all.find((p) => p.product_key === keys[0])?.device_count).toBe(2);
  });
});

describe('products: ownership', () => {
  it("user B sees and changes none of A's products", async () => {
    const p = await createProduct(a.token, { name: 'A only', properties: [{ key: 'v', name: 'V' }] });
    const list = await t.inject({ method: 'GET', url: '/api/products', token: b.token });
    expect((list.json().data as { product_key: string }[]).map((x) => x.product_key)).not.toContain(
      p.product_key,
    );
    const base = `/api/products/${p.product_key}`;
    const attempts = [
      { method: 'GET' as const, url: base },
      { method: 'PUT' as const, url: base, payload: { name: 'mine now' } },
      { method: 'DELETE' as const, url: base },
      { method: 'POST' as const, url: `${base}/secret` },
      { method: 'POST' as const, url: `${base}/properties`, payload: { key: 'x', name: 'X' } },
      { method: 'PUT' as const, url: `${base}/properties/v`, payload: { key: 'v', name: 'V2' } },
      { method: 'DELETE' as const, url: `${base}/properties/v` },
      { method: 'GET' as const, url: `${base}/platform-credentials` },
      {
        method: 'PUT' as const,
        url: `${base}/platform-credentials`,
        payload: { items: [{ sn: 'x', device_secret: 's' }] },
      },
      { method: 'POST' as const, url: `${base}/platform-sync` },
    ];
    for (const req of attempts) {
      const res = await t.inject({ ...req, token: b.token });
      expect(res.statusCode, `${req.method} ${req.url}`).toBe(400);
      expect(errorOf(res).code, `${req.method} ${req.url}`).toBe(10107);
    }
    // Still A's, unchanged; and admins see it.
    const mine = data(await t.inject({ method: 'GET', url: base, token: a.token }));
    expect(mine).toMatchObject({ name: 'A only', properties: [{ key: 'v', name: 'V' }] });
    expect((await t.inject({ method: 'GET', url: base, token: admin })).statusCode).toBe(200);
  });
});

describe('products: read-only for the users of its devices', () => {
  it("lets a device's owner read the product without its secrets, and nobody else", async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/api/products',
      token: admin,
      payload: {
        name: 'Fleet DTU',
        properties: [{ key: 'temp', name: '温度', name_us: 'Temperature', unit: '°C' }],
        device_config: { interval: 30 },
      },
    });
    const p = data<{ product_key: string; product_secret: string }>(created);
    const base = `/api/products/${p.product_key}`;
    // Admin-created devices are in stock; user A claims one with its secret, the other stays the admin's.
    await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: admin,
      payload: { product_key: p.product_key, sn: ['RO-1', 'RO-2'] },
    });
    const secret = data<{ secret: string }>(
      await t.inject({ method: 'GET', url: '/api/devices/RO-1', token: admin }),
    ).secret;
    const bound = await t.inject({
      method: 'POST',
      url: '/api/devices/bind',
      token: a.token,
      payload: { sn: 'RO-1', secret },
    });
    expect(bound.statusCode).toBe(200);

    // The owner (an admin here) reads it in full.
    const full = data(await t.inject({ method: 'GET', url: base, token: admin }));
    expect(full).toMatchObject({ access: 'manage', product_secret: p.product_secret, device_count: 2 });
    expect(full.device_config).toMatchObject({ interval: 30 });

    // The device's owner reads its fields and properties; secrets and configuration stay with the owner, and the
    // device figures count her device only.
    const seen = data(await t.inject({ method: 'GET', url: base, token: a.token }));
    expect(seen).toMatchObject({
      access: 'view',
      name: 'Fleet DTU',
      product_key: p.product_key,
      product_secret: '',
      iot_platform_config: {},
      device_config: {},
      device_count: 1,
      properties: [{ key: 'temp', name: '温度', name_us: 'Temperature', unit: '°C' }],
    });

    // Reading is all she may do: every change answers as for a stranger.
    const changes = [
      { method: 'PUT' as const, url: base, payload: { name: 'mine now' } },
      { method: 'DELETE' as const, url: base },
      { method: 'POST' as const, url: `${base}/secret` },
      { method: 'POST' as const, url: `${base}/properties`, payload: { key: 'x', name: 'X' } },
      { method: 'PUT' as const, url: `${base}/properties/temp`, payload: { key: 'temp', name: 'T' } },
      { method: 'DELETE' as const, url: `${base}/properties/temp` },
      { method: 'GET' as const, url: `${base}/platform-credentials` },
    ];
    for (const req of changes) {
      const res = await t.inject({ ...req, token: a.token });
      expect(res.statusCode, `${req.method} ${req.url}`).toBe(400);
      expect(errorOf(res).code, `${req.method} ${req.url}`).toBe(10107);
    }
    expect(data(await t.inject({ method: 'GET', url: base, token: admin }))).toMatchObject({
      name: 'Fleet DTU',
      properties: [{ key: 'temp', name: '温度' }],
    });

    // A user with no device of the product gets "does not exist", exactly as for a missing product.
    const stranger = await t.inject({ method: 'GET', url: base, token: b.token });
    expect(stranger.statusCode).toBe(400);
    expect(errorOf(stranger).code).toBe(10107);
    const list = await t.inject({ method: 'GET', url: '/api/products', token: a.token });
    expect((list.json().data as { product_key: string }[]).map((x) => x.product_key)).not.toContain(
      p.product_key,
    );

    // Once the device is back in stock, the product is closed to her again.
    expect(
      (await t.inject({ method: 'POST', url: '/api/devices/RO-1/unbind', token: a.token })).statusCode,
    ).toBe(200);
    expect(errorOf(await t.inject({ method: 'GET', url: base, token: a.token })).code).toBe(10107);
  });
});

describe('products: properties', () => {
  it('adds, refuses a duplicate key, edits (renames), deletes', async () => {
    const p = await createProduct(a.token, { name: 'Props' });
    const url = `/api/products/${p.product_key}/properties`;
    const added = data<{ properties: { key: string }[] }>(
      await t.inject({
        method: 'POST',
        url,
        token: a.token,
        payload: {
          key: 'humidity',
          name: '湿度',
          name_us: 'Humidity',
          unit: '%',
          charttype: 'bar',
          cycles: 30,
        },
      }),
    );
    expect(added.properties).toEqual([
      {
        key: 'humidity',
        name: '湿度',
        name_us: 'Humidity',
        unit: '%',
        charttype: 'bar',
        datatype: 'number',
        cycles: 30,
      },
    ]);
    const dup = await t.inject({
      method: 'POST',
      url,
      token: a.token,
      payload: { key: 'humidity', name: 'x' },
    });
    expect(errorOf(dup).code).toBe(70002);

    await t.inject({
      method: 'POST',
      url,
      token: a.token,
      payload: { key: 'door', name: 'Door', datatype: 'bool' },
    });
    const renamed = data<{ properties: { key: string; name: string }[] }>(
      await t.inject({
        method: 'PUT',
        url: `${url}/humidity`,
        token: a.token,
        payload: { key: 'rh', name: 'RH', datatype: 'number' },
      }),
    );
    expect(renamed.properties.map((x) => x.key)).toEqual(['rh', 'door']);
    const clash = await t.inject({
      method: 'PUT',
      url: `${url}/rh`,
      token: a.token,
      payload: { key: 'door', name: 'x' },
    });
    expect(errorOf(clash).code).toBe(70002);

    const afterDelete = data<{ properties: { key: string }[] }>(
      await t.inject({ method: 'DELETE', url: `${url}/rh`, token: a.token }),
    );
    expect(afterDelete.properties.map((x) => x.key)).toEqual(['door']);
    const missing = await t.inject({ method: 'DELETE', url: `${url}/rh`, token: a.token });
    expect(errorOf(missing).code).toBe(10107);
  });
});

describe('products: secret and deletion', () => {
  it('rotates the registration secret', async () => {
    const p = await createProduct(a.token, { name: 'Rotate' });
    const rotated = data<{ product_secret: string }>(
      await t.inject({ method: 'POST', url: `/api/products/${p.product_key}/secret`, token: a.token }),
    );
    expect(rotated.product_secret).not.toBe(p.product_secret);
    expect(rotated.product_secret.length).toBeGreaterThanOrEqual(32);
    const again = data<{ product_secret: string }>(
      await t.inject({ method: 'GET', url: `/api/products/${p.product_key}`, token: a.token }),
    );
    expect(again.product_secret).toBe(rotated.product_secret);
  });

  it('refuses to delete a product with devices (10112, details.device_count), deletes it once empty', async () => {
    const p = await createProduct(a.token, { name: 'Has devices' });
    await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: a.token,
      payload: { product_key: p.product_key, sn: ['DEL-P-1', 'DEL-P-2'] },
    });
    const refused = await t.inject({
      method: 'DELETE',
      url: `/api/products/${p.product_key}`,
      token: a.token,
    });
    expect(refused.statusCode).toBe(400);
    const err = errorOf(refused);
    expect(err.code).toBe(10112);
    expect(err.details).toEqual({ device_count: 2 });
    expect(err.message).toContain('2 device');

    for (const sn of ['DEL-P-1', 'DEL-P-2']) {
      expect(
        (await t.inject({ method: 'DELETE', url: `/api/devices/${sn}`, token: a.token })).statusCode,
      ).toBe(200);
    }
    const done = await t.inject({ method: 'DELETE', url: `/api/products/${p.product_key}`, token: a.token });
    expect(done.statusCode).toBe(200);
    const gone = await t.inject({ method: 'GET', url: `/api/products/${p.product_key}`, token: a.token });
    expect(errorOf(gone).code).toBe(10107);
  });
});
