import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
  const a = await t.createUser();
  const p = await t.inject({
    method: 'POST',
    url: '/api/products',
    token: a.token,
    payload: { name: 'Meter' },
  });
  const productKey = (p.json() as { data: { product_key: string } }).data.product_key;
  await t.inject({
    method: 'POST',
    url: '/api/devices',
    token: a.token,
    payload: { product_key: productKey, sn: ['PUB-1'], name: 'Pump house' },
  });
});
afterAll(() => t.close());

describe('GET /api/public/devices/:sn', () => {
  it('shows name, product, online and last seen without sign-in, and nothing else', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/public/devices/PUB-1' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      sn: 'PUB-1',
      name: 'Pump house',
      product_name: 'Meter',
      online: 0,
      lastcommunicationat: null,
    });
    expect(res.body).not.toMatch(/secret|uid|owner|iccid|imei/);
  });

  it('answers 10117 for an unknown sn', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/public/devices/NOPE-1' });
    expect(errorOf(res).code).toBe(10117);
  });

  it('limits each address to 60 lookups a minute, shared across instances', async () => {
    t.clock.toNextDay(1000);
    t.clock.freeze();
    const ip = '198.51.100.7';
    for (let i = 0; i < 60; i++) {
      const res = await t.inject({ method: 'GET', url: `/api/public/devices/X-${i}`, remoteAddress: ip });
      expect(res.statusCode).toBe(400);
    }
    const over = await t.inject({ method: 'GET', url: '/api/public/devices/PUB-1', remoteAddress: ip });
    expect(over.statusCode).toBe(429);
    expect(errorOf(over).code).toBe(10104);
    const other = await t.inject({
      method: 'GET',
      url: '/api/public/devices/PUB-1',
      remoteAddress: '198.51.100.8',
    });
    expect(other.statusCode).toBe(200);
  });
});
