import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HwGroupItem, HwValueItem } from '@cellhub/contract/hardware';
import type {
  ProductionDeviceItem,
  ProductionTaskBody,
  ProductionTaskItem,
  TaskLabels,
} from '@cellhub/contract/production';
import { deviceLogs } from '../device-log/device-log.table';
import { devices } from '../devices/devices.table';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';

let t: TestApp;
let admin: string;
let group: HwGroupItem;
const pk = 'pk_production_t1';

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  const product = await t.inject({
    method: 'POST',
    url: '/api/products',
    token: admin,
    payload: { name: 'DTU-400', product_key: pk },
  });
  expect(product.statusCode, product.body).toBe(200);
  const model = await t.inject({
    method: 'POST',
    url: '/api/hw/values',
    token: admin,
    payload: { type: 'module_model', value: 'EC200U-CN' },
  });
  const board = await t.inject({
    method: 'POST',
    url: '/api/hw/values',
    token: admin,
    payload: { type: 'board_revision', value: 'V1.2' },
  });
  const res = await t.inject({
    method: 'POST',
    url: '/api/hw/groups',
    token: admin,
    payload: {
      name: 'DTU-400 rev B',
      value_ids: [data<HwValueItem>(model).id, data<HwValueItem>(board).id],
    },
  });
  group = data<HwGroupItem>(res);
});
afterAll(() => t.close());

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;
const list = <T>(res: { json(): unknown }) => res.json() as { data: T[]; total: number };

const ruleTask = (over: Partial<ProductionTaskBody> = {}): ProductionTaskBody => ({
  name: 'November batch',
  product_key: pk,
  hw_group_id: group.id,
  quantity: 20,
  sn_rule: { type: 'rule', prefix: 'DTU', digits: 4, start: 1 },
  planned_date: '2026-11-26',
  ...over,
});

async function createTask(body: ProductionTaskBody): Promise<ProductionTaskItem> {
  const res = await t.inject({ method: 'POST', url: '/api/production/tasks', token: admin, payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return data<ProductionTaskItem>(res);
}

const act = (id: number, action: string) =>
  t.inject({ method: 'POST', url: `/api/production/tasks/${id}/${action}`, token: admin });

describe('production tasks', () => {
  it('plans a task: sns from prefix + yyMMdd of the planned date + sequence', async () => {
    const task = await createTask(ruleTask());
    expect(task).toMatchObject({
      state: 'draft',
      quantity: 20,
      product_name: 'DTU-400',
      hw_group_name: 'DTU-400 rev B',
      hw_version: 'DTU-400 rev B (EC200U-CN / V1.2)',
      first_sn: 'DTU2611260001',
      last_sn: 'DTU2611260020',
      progress: { created: 0, tested_ok: 0, failed: 0, mismatch: 0, shipped: 0 },
    });
  });

  it('refuses bad plans with the field that is wrong (10113) or the firmware code', async () => {
    const cases: [string, ProductionTaskBody, number][] = [
      ['quantity 0', ruleTask({ quantity: 0 }), 10113],
      ['quantity 10001', ruleTask({ quantity: 10_001 }), 10113],
      ['no quantity', ruleTask({ quantity: undefined }), 10113],
      ['bad prefix', ruleTask({ sn_rule: { type: 'rule', prefix: 'A B' } }), 10113],
      [
        'sequence too long',
        ruleTask({ quantity: 1000, sn_rule: { type: 'rule', prefix: 'X', digits: 3 } }),
        10113,
      ],
      ['bad date', ruleTask({ planned_date: '2026-02-30' }), 10113],
      ['bad listed sn', ruleTask({ sn_rule: { type: 'list', sns: 'A1\nbad sn' } }), 10113],
      ['repeated sn', ruleTask({ sn_rule: { type: 'list', sns: ['A1', 'A1'] } }), 10113],
      ['unknown product', ruleTask({ product_key: 'pk_nope_nope' }), 10113],
      ['unknown group', ruleTask({ hw_group_id: 999_999 }), 10113],
      ['unknown firmware', ruleTask({ firmware_version_id: 999_999 }), 70001],
    ];
    for (const [name, payload, code] of cases) {
      const res = await t.inject({ method: 'POST', url: '/api/production/tasks', token: admin, payload });
      expect(res.statusCode, name).toBe(400);
      expect(errorOf(res).code, `${name}: ${res.body}`).toBe(code);
    }
  });

  it('starts: 20 stock devices with secrets in one go, labels in sn order, then done', async () => {
    const task = await createTask(
      ruleTask({ name: 'Start me', sn_rule: { type: 'rule', prefix: 'ST', digits: 3 } }),
    );
    const res = await act(task.id, 'start');
    expect(res.statusCode, res.body).toBe(200);
    const started = data<ProductionTaskItem>(res);
    expect(started.state).toBe('producing');
    expect(started.startedat).not.toBeNull();
    expect(started.progress).toEqual({ created: 20, tested_ok: 0, failed: 0, mismatch: 0, shipped: 0 });

    const sns = Array.from({ length: 20 }, (_, i) => `ST261126${String(i + 1).padStart(3, '0')}`);
    const rows = await t.app.deps.db.select().from(devices).where(inArray(devices.sn, sns));
    expect(rows).toHaveLength(20);
    for (const d of rows) {
      expect(d.uid).toBeNull();
      expect(d.productKey).toBe(pk);
      expect(t.app.deps.box.decrypt(d.secret, `device:${d.sn}`)).toMatch(/^[\w-]{32}$/);
    }
    const logs = await t.app.deps.db
      .select()
      .from(deviceLogs)
      .where(and(eq(deviceLogs.deviceId, rows[0]!.id), eq(deviceLogs.event, 'created')));
    expect(logs[0]?.detail).toMatchObject({ production_task: task.id, uid: null });

    const labels = data<TaskLabels>(
      await t.inject({ method: 'GET', url: `/api/production/tasks/${task.id}/labels`, token: admin }),
    );
    expect(labels).toMatchObject({ product_name: 'DTU-400', hw_version: 'DTU-400 rev B (EC200U-CN / V1.2)' });
    expect(labels.sns).toEqual(sns);

    const page = list<ProductionDeviceItem>(
      await t.inject({
        method: 'GET',
        url: `/api/production/tasks/${task.id}/devices?per_page=5&current=2`,
        token: admin,
      }),
    );
    expect(page.total).toBe(20);
    expect(page.data.map((d) => d.sn)).toEqual(sns.slice(5, 10));
    expect(page.data[0]).toMatchObject({
      tested: 'untested',
      mismatch: [],
      uid: null,
      task_name: 'Start me',
    });

    // Started: no edit, no delete, no second start; cancel is still possible, here it is finished.
    for (const res2 of [
      await t.inject({
        method: 'PUT',
        url: `/api/production/tasks/${task.id}`,
        token: admin,
        payload: ruleTask(),
      }),
      await t.inject({ method: 'DELETE', url: `/api/production/tasks/${task.id}`, token: admin }),
      await act(task.id, 'start'),
    ])
      expect(errorOf(res2).code).toBe(71001);
    const done = data<ProductionTaskItem>(await act(task.id, 'finish'));
    expect(done.state).toBe('done');
    expect(errorOf(await act(task.id, 'cancel')).code).toBe(71001);

    // The group it builds cannot be deleted.
    const del = await t.inject({ method: 'DELETE', url: `/api/hw/groups/${group.id}`, token: admin });
    expect(errorOf(del)).toMatchObject({ code: 10112 });
    expect(errorOf(del).message).toContain('Start me');
  });

  it('refuses a start when an sn exists, names the clashes and creates nothing', async () => {
    await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: admin,
      payload: { product_key: pk, sn: ['CL-2'] },
    });
    const task = await createTask(
      ruleTask({
        name: 'Clash',
        quantity: undefined,
        sn_rule: { type: 'list', sns: 'CL-1\r\nCL-2\nCL-3,extra\n\n' },
      }),
    );
    expect(task.quantity).toBe(3);
    const res = await act(task.id, 'start');
    expect(res.statusCode).toBe(400);
    const err = errorOf(res);
    expect(err.code).toBe(20402);
    expect(err.details).toEqual({ sns: ['CL-2'], count: 1 });
    expect(err.message).toContain('CL-2');
    const made = await t.app.deps.db
      .select()
      .from(devices)
      .where(inArray(devices.sn, ['CL-1', 'CL-3']));
    expect(made).toEqual([]);
    const after = data<ProductionTaskItem>(
      await t.inject({ method: 'GET', url: `/api/production/tasks/${task.id}`, token: admin }),
    );
    expect(after.state).toBe('draft');

    // The draft can be fixed, then cancelled; a cancelled task neither starts nor finishes.
    const fixed = await t.inject({
      method: 'PUT',
      url: `/api/production/tasks/${task.id}`,
      token: admin,
      payload: ruleTask({
        name: 'Clash fixed',
        quantity: undefined,
        sn_rule: { type: 'list', sns: ['CL-1', 'CL-3'] },
      }),
    });
    expect(data<ProductionTaskItem>(fixed)).toMatchObject({
      name: 'Clash fixed',
      quantity: 2,
      last_sn: 'CL-3',
    });
    expect(data<ProductionTaskItem>(await act(task.id, 'cancel')).state).toBe('cancelled');
    expect(errorOf(await act(task.id, 'start')).code).toBe(71001);
    expect(errorOf(await act(task.id, 'finish')).code).toBe(71001);
  });

  it('lists tasks with filters, and deletes a draft', async () => {
    const draft = await createTask(ruleTask({ name: 'Throwaway', sn_rule: { type: 'rule', prefix: 'TW' } }));
    const drafts = list<ProductionTaskItem>(
      await t.inject({ method: 'GET', url: '/api/production/tasks?state=draft&keyword=throw', token: admin }),
    );
    expect(drafts.data.map((d) => d.id)).toEqual([draft.id]);
    const del = await t.inject({ method: 'DELETE', url: `/api/production/tasks/${draft.id}`, token: admin });
    expect(del.statusCode).toBe(200);
    expect(
      errorOf(await t.inject({ method: 'GET', url: `/api/production/tasks/${draft.id}`, token: admin })).code,
    ).toBe(10107);
  });

  it('lists produced devices with tested, shipped and mismatch filters', async () => {
    const all = list<ProductionDeviceItem>(
      await t.inject({ method: 'GET', url: '/api/production/info?shipped=0&tested=untested', token: admin }),
    );
    expect(all.total).toBe(20);
    const none = list<ProductionDeviceItem>(
      await t.inject({ method: 'GET', url: '/api/production/info?mismatch=1', token: admin }),
    );
    expect(none.total).toBe(0);
    const one = list<ProductionDeviceItem>(
      await t.inject({ method: 'GET', url: '/api/production/info?keyword=ST261126007', token: admin }),
    );
    expect(one.data.map((d) => d.sn)).toEqual(['ST261126007']);
  });
});

describe('productive groups', () => {
  it("adds a task's stock devices and sns by hand, line by line, and lists them", async () => {
    const made = await t.inject({
      method: 'POST',
      url: '/api/production/groups',
      token: admin,
      payload: { name: 'Shipment 1' },
    });
    expect(made.statusCode, made.body).toBe(200);
    const group = data<{ id: number; devices: number }>(made);
    const tasks = list<ProductionTaskItem>(
      await t.inject({ method: 'GET', url: '/api/production/tasks?keyword=Start%20me', token: admin }),
    );
    const taskId = tasks.data[0]!.id;
    // One device of the task leaves stock first; it is refused, the other 19 are added.
    const owner = await t.createUser();
    await t.app.deps.db.update(devices).set({ uid: owner.uid }).where(eq(devices.sn, 'ST261126020'));
    const add = await t.inject({
      method: 'POST',
      url: `/api/production/groups/${group.id}/devices`,
      token: admin,
      payload: { task_id: taskId, sns: 'ST261126001\nNO-SUCH-SN' },
    });
    expect(add.statusCode, add.body).toBe(200);
    const lines = data<{ sn: string; code: number; result: string }[]>(add);
    expect(lines.filter((l) => l.result === 'added')).toHaveLength(19);
    expect(lines.find((l) => l.sn === 'ST261126020')).toEqual({
      sn: 'ST261126020',
      code: 11014,
      result: 'not_in_stock',
    });
    expect(lines.find((l) => l.sn === 'NO-SUCH-SN')).toEqual({
      sn: 'NO-SUCH-SN',
      code: 10117,
      result: 'not_found',
    });
    const again = data<{ result: string }[]>(
      await t.inject({
        method: 'POST',
        url: `/api/production/groups/${group.id}/devices`,
        token: admin,
        payload: { sns: ['ST261126001'] },
      }),
    );
    expect(again).toEqual([{ sn: 'ST261126001', code: 0, result: 'already' }]);

    const members = list<{ sn: string; task_name: string | null; uid: number | null }>(
      await t.inject({
        method: 'GET',
        url: `/api/production/groups/${group.id}/devices?per_page=5`,
        token: admin,
      }),
    );
    expect(members.total).toBe(19);
    expect(members.data[0]).toMatchObject({ sn: 'ST261126001', task_name: 'Start me', uid: null });
    const removed = await t.inject({
      method: 'POST',
      url: `/api/production/groups/${group.id}/devices/remove`,
      token: admin,
      payload: { sns: ['ST261126001'] },
    });
    expect(removed.statusCode).toBe(200);
    const item = data<{ devices: number }>(
      await t.inject({ method: 'GET', url: `/api/production/groups/${group.id}`, token: admin }),
    );
    expect(item.devices).toBe(18);
    const empty = await t.inject({
      method: 'POST',
      url: `/api/production/groups/${group.id}/devices`,
      token: admin,
      payload: {},
    });
    expect(errorOf(empty).code).toBe(10113);
    expect(
      (await t.inject({ method: 'DELETE', url: `/api/production/groups/${group.id}`, token: admin }))
        .statusCode,
    ).toBe(200);
    // The devices stay.
    const [still] = await t.app.deps.db.select().from(devices).where(eq(devices.sn, 'ST261126002'));
    expect(still?.uid).toBeNull();
  });
});
