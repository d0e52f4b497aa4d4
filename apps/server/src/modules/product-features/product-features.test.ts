import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceCommandGroup } from '@cellhub/contract/command-groups';
import type { ProductFeatureItem } from '@cellhub/contract/product-features';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { createDevices, type TestDevice } from '../../test/gateway-test-kit';

let t: TestApp;
let admin: string;
let user: { uid: number; token: string };
let dev: TestDevice;
let cmdId: number;

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  user = await t.createUser();
  dev = (await createDevices(t, user.token, ['PF-1']))[0]!;
  const g = await t.inject({
    method: 'POST',
    url: '/api/command-groups',
    token: admin,
    payload: { product_key: dev.productKey, name: 'G' },
  });
  const c = await t.inject({
    method: 'POST',
    url: `/api/command-groups/${data<{ id: number }>(g).id}/commands`,
    token: admin,
    payload: { name: 'Ping', type: 'string', data: 'PING' },
  });
  cmdId = data<{ id: number }>(c).id;
});
afterAll(() => t.close());

const create = (payload: Record<string, unknown>, token = admin) =>
  t.inject({ method: 'POST', url: '/api/product-features', token, payload });
const groupsOnDevice = async () =>
  data<DeviceCommandGroup[]>(
    await t.inject({ method: 'GET', url: `/api/devices/${dev.sn}/command-groups`, token: user.token }),
  );

describe('product features', () => {
  it('creates, lists, edits and deletes features with their products; keys are unique (70002)', async () => {
    const res = await create({
      key: 'gps',
      name: 'GPS 定位',
      name_us: 'GPS',
      product_keys: [dev.productKey],
    });
    expect(res.statusCode, res.body).toBe(200);
    const f = data<ProductFeatureItem>(res);
    expect(f).toMatchObject({ key: 'gps', panels: [], products: [{ product_key: dev.productKey }] });
    expect(errorOf(await create({ key: 'gps', name: 'again' })).code).toBe(70002);
    const list = await t.inject({
      method: 'GET',
      url: '/api/product-features',
      token: admin,
      query: { product_key: dev.productKey },
    });
    expect(data<ProductFeatureItem[]>(list).map((x) => x.key)).toEqual(['gps']);
    const put = await t.inject({
      method: 'PUT',
      url: `/api/product-features/${f.id}`,
      token: admin,
      payload: { key: 'gps', name: 'GPS', product_keys: [] },
    });
    expect(data<ProductFeatureItem>(put).products).toEqual([]);
    const del = await t.inject({ method: 'DELETE', url: `/api/product-features/${f.id}`, token: admin });
    expect(del.statusCode).toBe(200);
    const gone = await t.inject({ method: 'GET', url: `/api/product-features/${f.id}`, token: admin });
    expect(errorOf(gone).code).toBe(10107);
  });

  it('refuses bad input (10113), unknown products (10107) and users (10108)', async () => {
    for (const payload of [
      { key: 'GPS', name: 'x' },
      { key: 'gps', name: '' },
      { key: 'gps', name: 'x', panels: ['map'] },
      { key: 'gps', name: 'x\u0000' },
    ]) {
      expect(errorOf(await create(payload)).code, JSON.stringify(payload)).toBe(10113);
    }
    expect(errorOf(await create({ key: 'rs485', name: 'RS485', product_keys: ['nope-product'] })).code).toBe(
      10107,
    );
    expect(errorOf(await create({ key: 'x', name: 'x' }, user.token)).code).toBe(10108);
  });

  it('gates the command groups panel: no features shows it, features show it only when one enables it', async () => {
    expect(await groupsOnDevice()).toHaveLength(1);
    // A feature without the panel: the product now says what it has, and command groups is not among it.
    const modbus = data<ProductFeatureItem>(
      await create({ key: 'modbus', name: 'Modbus 主站', product_keys: [dev.productKey] }),
    );
    expect(await groupsOnDevice()).toEqual([]);
    const send = await t.inject({
      method: 'POST',
      url: `/api/devices/${dev.sn}/command-groups/commands/${cmdId}/send`,
      token: user.token,
      payload: { params: {} },
    });
    expect(errorOf(send).code).toBe(10107);
    // A second feature that enables it brings the groups back.
    await create({
      key: 'commands',
      name: '预定义指令',
      panels: ['command_groups'],
      product_keys: [dev.productKey],
    });
    expect(await groupsOnDevice()).toHaveLength(1);
    await t.inject({ method: 'DELETE', url: `/api/product-features/${modbus.id}`, token: admin });
    expect(await groupsOnDevice()).toHaveLength(1);
  });
});
