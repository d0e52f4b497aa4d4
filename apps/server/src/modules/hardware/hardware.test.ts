import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HwGroupItem, HwValueItem } from '@cellhub/contract/hardware';
import { auditLogs } from '../audit/audit.table';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';

let t: TestApp;
let admin: string;
let user: { uid: number; token: string };

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  user = await t.createUser();
});
afterAll(() => t.close());

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;
const list = <T>(res: { json(): unknown }) => res.json() as { data: T[]; total: number };

async function addValue(type: string, value: string, description = ''): Promise<HwValueItem> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/hw/values',
    token: admin,
    payload: { type, value, description },
  });
  expect(res.statusCode, res.body).toBe(200);
  return data<HwValueItem>(res);
}

describe('hardware values', () => {
  it('adds typed values and refuses the same type and value ignoring case and spaces (70002)', async () => {
    const v = await addValue('module_model', 'EC200U-CN', 'Quectel Cat.1');
    expect(v).toMatchObject({
      type: 'module_model',
      value: 'EC200U-CN',
      description: 'Quectel Cat.1',
      groups: 0,
    });
    for (const value of ['EC200U-CN', 'ec200u-cn', '  Ec200U-cn ']) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/hw/values',
        token: admin,
        payload: { type: 'module_model', value },
      });
      expect(res.statusCode, value).toBe(400);
      expect(errorOf(res).code, value).toBe(70002);
    }
    // The same text under another type is a different value.
    await addValue('other', 'EC200U-CN');
    const [row] = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.target, `hw-value:${v.id}`));
    expect(row?.action).toBe('hw_value_create');
  });

  it('refuses an unknown type, an empty value and NUL (10113)', async () => {
    for (const payload of [
      { type: 'cpu', value: 'x' },
      { type: 'mcu', value: '   ' },
      { type: 'mcu', value: 'a\u0000b' },
      { type: 'mcu', value: 'v'.repeat(65) },
    ]) {
      const res = await t.inject({ method: 'POST', url: '/api/hw/values', token: admin, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(res).code).toBe(10113);
    }
  });

  it('lists with a type filter, keyword search and paging', async () => {
    await addValue('mcu', 'STM32F103C8', 'ARM Cortex-M3');
    await addValue('mcu', 'GD32F303', 'GigaDevice');
    await addValue('mcu', 'ESP32-C3');
    const mcus = list<HwValueItem>(
      await t.inject({ method: 'GET', url: '/api/hw/values?type=mcu&per_page=2', token: admin }),
    );
    expect(mcus.total).toBe(3);
    expect(mcus.data.map((v) => v.value)).toEqual(['ESP32-C3', 'GD32F303']);
    const page2 = list<HwValueItem>(
      await t.inject({ method: 'GET', url: '/api/hw/values?type=mcu&per_page=2&current=2', token: admin }),
    );
    expect(page2.data.map((v) => v.value)).toEqual(['STM32F103C8']);
    const search = list<HwValueItem>(
      await t.inject({ method: 'GET', url: '/api/hw/values?keyword=gigadev', token: admin }),
    );
    expect(search.data.map((v) => v.value)).toEqual(['GD32F303']);
  });

  it('edits a value and refuses an edit onto an existing one (70002)', async () => {
    const a = await addValue('antenna', 'FPC 4G');
    await addValue('antenna', 'SMA 4G');
    const ok = await t.inject({
      method: 'PUT',
      url: `/api/hw/values/${a.id}`,
      token: admin,
      payload: { value: 'FPC 4G v2', description: 'flex' },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(data<HwValueItem>(ok)).toMatchObject({ value: 'FPC 4G v2', description: 'flex' });
    const dup = await t.inject({
      method: 'PUT',
      url: `/api/hw/values/${a.id}`,
      token: admin,
      payload: { value: 'sma 4g' },
    });
    expect(errorOf(dup).code).toBe(70002);
    const missing = await t.inject({
      method: 'PUT',
      url: '/api/hw/values/999999',
      token: admin,
      payload: { value: 'x' },
    });
    expect(errorOf(missing).code).toBe(10107);
  });

  it('is for admins only (10108)', async () => {
    for (const [method, url] of [
      ['GET', '/api/hw/values'],
      ['POST', '/api/hw/values'],
      ['GET', '/api/hw/groups'],
      ['GET', '/api/hw/groups/1'],
    ] as const) {
      const res = await t.inject({
        method,
        url,
        token: user.token,
        payload: method === 'POST' ? {} : undefined,
      });
      expect(errorOf(res).code, url).toBe(10108);
    }
  });
});

describe('hardware groups', () => {
  let model: HwValueItem;
  let mcu: HwValueItem;
  let board: HwValueItem;
  let otherModel: HwValueItem;

  beforeAll(async () => {
    model = await addValue('module_model', 'EC800M-CN');
    otherModel = await addValue('module_model', 'ML307R');
    mcu = await addValue('mcu', 'APM32F103');
    board = await addValue('board_revision', 'V1.2');
  });

  it('creates a group with one value per type, in type order', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/hw/groups',
      token: admin,
      payload: { name: 'DTU-400 rev B', description: 'Cat.1 DTU', value_ids: [board.id, mcu.id, model.id] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const g = data<HwGroupItem>(res);
    expect(g).toMatchObject({ name: 'DTU-400 rev B', tasks: 0 });
    expect(g.values.map((v) => v.type)).toEqual(['module_model', 'mcu', 'board_revision']);
    const detail = data<HwGroupItem>(
      await t.inject({ method: 'GET', url: `/api/hw/groups/${g.id}`, token: admin }),
    );
    expect(detail).toEqual(g);
  });

  it('refuses two values of one type, an unknown value and a repeated id (10113)', async () => {
    for (const value_ids of [[model.id, otherModel.id], [999999], [mcu.id, mcu.id]]) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/hw/groups',
        token: admin,
        payload: { name: 'bad', value_ids },
      });
      expect(res.statusCode, JSON.stringify(value_ids)).toBe(400);
      expect(errorOf(res).code).toBe(10113);
    }
    const none = list<HwGroupItem>(
      await t.inject({ method: 'GET', url: '/api/hw/groups?keyword=bad', token: admin }),
    );
    expect(none.total).toBe(0);
  });

  it('refuses to delete a value a group uses (10112, naming the group), then allows it once dropped', async () => {
    const g = data<HwGroupItem>(
      await t.inject({
        method: 'POST',
        url: '/api/hw/groups',
        token: admin,
        payload: { name: 'ML307 board', value_ids: [otherModel.id] },
      }),
    );
    const values = list<HwValueItem>(
      await t.inject({ method: 'GET', url: '/api/hw/values?keyword=ML307R', token: admin }),
    );
    expect(values.data[0]?.groups).toBe(1);
    const refused = await t.inject({
      method: 'DELETE',
      url: `/api/hw/values/${otherModel.id}`,
      token: admin,
    });
    expect(refused.statusCode).toBe(400);
    const err = errorOf(refused);
    expect(err.code).toBe(10112);
    expect(err.message).toContain('ML307 board');
    expect(err.details).toEqual({ groups: [{ id: g.id, name: 'ML307 board' }] });
    // Its type cannot change while used either.
    const retype = await t.inject({
      method: 'PUT',
      url: `/api/hw/values/${otherModel.id}`,
      token: admin,
      payload: { type: 'other' },
    });
    expect(errorOf(retype).code).toBe(10110);

    const changed = await t.inject({
      method: 'PUT',
      url: `/api/hw/groups/${g.id}`,
      token: admin,
      payload: { name: 'ML307 board (no module)', value_ids: [] },
    });
    expect(data<HwGroupItem>(changed)).toMatchObject({ name: 'ML307 board (no module)', values: [] });
    const gone = await t.inject({ method: 'DELETE', url: `/api/hw/values/${otherModel.id}`, token: admin });
    expect(gone.statusCode, gone.body).toBe(200);
    const del = await t.inject({ method: 'DELETE', url: `/api/hw/groups/${g.id}`, token: admin });
    expect(del.statusCode).toBe(200);
    expect(errorOf(await t.inject({ method: 'GET', url: `/api/hw/groups/${g.id}`, token: admin })).code).toBe(
      10107,
    );
  });
});

describe('hardware info', () => {
  it('answers any signed-in role with what it may see (nothing reported yet: empty)', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/hw/info?keyword=SN', token: user.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(list(res)).toMatchObject({ data: [], total: 0 });
    const csv = await t.inject({ method: 'GET', url: '/api/hw/info/export', token: user.token });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.replace('\ufeff', '').split('\r\n')[0]).toBe(
      'sn,product_key,imei,module_model,module_fw,mcu_id,mac,board_revision,test_ok,mismatch,task_id,first_at,last_at,test_items',
    );
  });
});
