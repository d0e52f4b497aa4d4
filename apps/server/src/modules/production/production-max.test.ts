import { count, like } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { HwGroupItem } from '@cellhub/contract/hardware';
import type { ProductionTaskItem } from '@cellhub/contract/production';
import { devices } from '../devices/devices.table';
import { buildTestApp, type TestApp } from '../../test/app';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
});
afterAll(() => t.close());

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

it(
  'starts a task of the largest quantity (10,000 devices) in one transaction',
  { timeout: 120_000 },
  async () => {
    await t.inject({
      method: 'POST',
      url: '/api/products',
      token: admin,
      payload: { name: 'Big', product_key: 'pk_big_batch' },
    });
    const group = data<HwGroupItem>(
      await t.inject({ method: 'POST', url: '/api/hw/groups', token: admin, payload: { name: 'Big' } }),
    );
    const task = data<ProductionTaskItem>(
      await t.inject({
        method: 'POST',
        url: '/api/production/tasks',
        token: admin,
        payload: {
          name: 'Big',
          product_key: 'pk_big_batch',
          hw_group_id: group.id,
          quantity: 10_000,
          sn_rule: { type: 'rule', prefix: 'BIG', digits: 5, start: 0 },
          planned_date: '2026-11-26',
        },
      }),
    );
    const res = await t.inject({
      method: 'POST',
      url: `/api/production/tasks/${task.id}/start`,
      token: admin,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(data<ProductionTaskItem>(res).progress.created).toBe(10_000);
    const [n] = await t.app.deps.db
      .select({ n: count() })
      .from(devices)
      .where(like(devices.sn, 'BIG261126%'));
    expect(n?.n).toBe(10_000);
  },
);
