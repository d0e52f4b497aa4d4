import type { Packet } from 'mqtt-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HwGroupItem, HwInfoItem, HwValueItem } from '@cellhub/contract/hardware';
import type { ProductionDeviceItem, ProductionTaskItem } from '@cellhub/contract/production';
import { upTopic } from '@cellhub/contract/protocol';
import { createDevices, eventually, type TestDevice } from '../../test/gateway-test-kit';
import { RawDevice } from '../../test/raw-device';
import { buildTestApp, type TestApp } from '../../test/app';
import { parseHw, parseTest } from './factory-test';

let t: TestApp;
let admin: string;
let task: ProductionTaskItem;
const pk = 'pk_factory_test1';
const raws: RawDevice[] = [];

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;
const list = <T>(res: { json(): unknown }) => res.json() as { data: T[]; total: number };

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  await t.inject({
    method: 'POST',
    url: '/api/products',
    token: admin,
    payload: { name: 'DTU', product_key: pk },
  });
  const ids: number[] = [];
  for (const [type, value] of [
    ['module_model', 'EC200U-CN'],
    ['board_revision', 'V1.2'],
    ['mcu', 'STM32F103'],
  ]) {
    const v = await t.inject({
      method: 'POST',
      url: '/api/hw/values',
      token: admin,
      payload: { type, value },
    });
    ids.push(data<HwValueItem>(v).id);
  }
  const group = data<HwGroupItem>(
    await t.inject({
      method: 'POST',
      url: '/api/hw/groups',
      token: admin,
      payload: { name: 'G1', value_ids: ids },
    }),
  );
  task = data<ProductionTaskItem>(
    await t.inject({
      method: 'POST',
      url: '/api/production/tasks',
      token: admin,
      payload: {
        name: 'Factory',
        product_key: pk,
        hw_group_id: group.id,
        sn_rule: { type: 'list', sns: ['FT-1', 'FT-2', 'FT-3'] },
        planned_date: '2026-11-26',
      },
    }),
  );
  const started = await t.inject({
    method: 'POST',
    url: `/api/production/tasks/${task.id}/start`,
    token: admin,
  });
  expect(started.statusCode, started.body).toBe(200);
});
afterAll(async () => {
  for (const r of raws) r.destroy();
  await t.close();
});

async function deviceOf(sn: string, token = admin): Promise<TestDevice> {
  const d = data<{ secret: string; product_key: string }>(
    await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token }),
  );
  return { sn, productKey: d.product_key, secret: d.secret };
}

let messageId = 1;
/** Connects as the device over MQTT, publishes `info` on up/info (QoS 1) and waits for its PUBACK (= stored). */
async function reportInfo(d: TestDevice, info: unknown): Promise<void> {
  const raw = await RawDevice.connect({ mqttPort: t.app.broker.port! }, 'tcp', 4, d);
  raws.push(raw);
  await raw.connack();
  const publish: Packet = {
    cmd: 'publish',
    topic: upTopic(d.productKey, d.sn, 'info'),
    payload: Buffer.from(JSON.stringify(info)),
    qos: 1,
    messageId: messageId++,
    dup: false,
    retain: false,
  };
  raw.send(publish);
  const ack = await raw.next('puback');
  expect(ack.messageId).toBe(publish.messageId);
  await raw.disconnect();
}

const infoOf = async (sn: string, token = admin) =>
  list<HwInfoItem>(await t.inject({ method: 'GET', url: `/api/hw/info?keyword=${sn}`, token })).data.find(
    (i) => i.sn === sn,
  );

describe('the factory test on up/info', () => {
  it('records hardware and test results of a matching device', async () => {
    const d = await deviceOf('FT-1');
    await reportInfo(d, {
      imei: '861234567890121',
      fw_version: '1.0.0',
      hw: {
        module_model: 'ec200u-cn',
        module_fw: 'EC200UCNAAR03A04M08',
        mcu_id: '0x0414',
        mac: '02:00:00:00:00:01',
        board_revision: 'V1.2',
      },
      test: {
        ok: true,
        items: [
          { name: 'rs485', ok: true },
          { name: 'sim', ok: true, detail: 'CSQ 23' },
        ],
      },
    });
    const info = await infoOf('FT-1');
    expect(info).toMatchObject({
      imei: '861234567890121',
      module_model: 'ec200u-cn',
      module_fw: 'EC200UCNAAR03A04M08',
      mcu_id: '0x0414',
      mac: '02:00:00:00:00:01',
      board_revision: 'V1.2',
      test_ok: true,
      test_items: [
        { name: 'rs485', ok: true },
        { name: 'sim', ok: true, detail: 'CSQ 23' },
      ],
      mismatch: [],
      task_id: task.id,
    });
    // A later report keeps the first time, updates the last, and keeps fields it does not repeat.
    const first = info!.first_at;
    await reportInfo(d, { hw: { module_fw: 'EC200UCNAAR03A05M08' } });
    const again = await infoOf('FT-1');
    expect(again).toMatchObject({
      first_at: first,
      module_fw: 'EC200UCNAAR03A05M08',
      mcu_id: '0x0414',
      test_ok: true,
    });
    expect(Date.parse(again!.last_at)).toBeGreaterThanOrEqual(Date.parse(first));
  });

  it("flags fields that differ from the task's hardware group", async () => {
    await reportInfo(await deviceOf('FT-2'), {
      hw: { module_model: 'ML307R', board_revision: 'V1.3' },
      test: { ok: false, items: [{ name: 'rs485', ok: false, detail: 'no echo' }] },
    });
    expect(await infoOf('FT-2')).toMatchObject({
      module_model: 'ML307R',
      mismatch: ['module_model', 'board_revision'],
      test_ok: false,
    });
  });

  it('ignores bad values field by field and still stores the rest of the message', async () => {
    await reportInfo(await deviceOf('FT-3'), {
      fw_version: '2.0.0',
      hw: { module_model: 123, mac: 'x'.repeat(65), mcu_id: '', board_revision: 'v1.2', extra: 'ignored' },
      test: {
        ok: 'yes',
        items: [{ name: 'a' }, 5, { name: 'sim', ok: false }, { name: 'x'.repeat(65), ok: true }],
      },
    });
    expect(await infoOf('FT-3')).toMatchObject({
      module_model: '',
      mac: '',
      mcu_id: '',
      board_revision: 'v1.2',
      test_ok: false,
      test_items: [{ name: 'sim', ok: false }],
      mismatch: [],
    });
    const dev = data<{ fw_version: string }>(
      await t.inject({ method: 'GET', url: '/api/devices/FT-3', token: admin }),
    );
    expect(dev.fw_version).toBe('2.0.0');
  });

  it("counts the task's progress and filters the records", async () => {
    const got = data<ProductionTaskItem>(
      await t.inject({ method: 'GET', url: `/api/production/tasks/${task.id}`, token: admin }),
    );
    expect(got.progress).toEqual({ created: 3, tested_ok: 1, failed: 2, mismatch: 1, shipped: 0 });
    const mismatching = list<ProductionDeviceItem>(
      await t.inject({ method: 'GET', url: `/api/production/info?mismatch=1`, token: admin }),
    );
    expect(mismatching.data.map((d) => d.sn)).toEqual(['FT-2']);
    const failed = list<ProductionDeviceItem>(
      await t.inject({
        method: 'GET',
        url: `/api/production/info?tested=failed&task_id=${task.id}`,
        token: admin,
      }),
    );
    expect(failed.data.map((d) => d.sn)).toEqual(['FT-2', 'FT-3']);
    const csv = await t.inject({
      method: 'GET',
      url: `/api/hw/info/export?task_id=${task.id}`,
      token: admin,
    });
    const lines = csv.body.replace('\ufeff', '').trim().split('\r\n');
    expect(lines).toHaveLength(4);
    expect(lines.find((l) => l.startsWith('FT-2,'))).toContain('module_model board_revision');
  });

  it('shows a user only the records of their own devices', async () => {
    const user = await t.createUser();
    const [own] = await createDevices(t, user.token, ['FT-USER-1']);
    await reportInfo(own!, { hw: { module_model: 'EC800M' }, test: { items: [{ name: 'gps', ok: true }] } });
    const mine = list<HwInfoItem>(await t.inject({ method: 'GET', url: '/api/hw/info', token: user.token }));
    expect(mine.data.map((i) => i.sn)).toEqual(['FT-USER-1']);
    // No task made it: nothing to compare with.
    expect(mine.data[0]).toMatchObject({ task_id: null, mismatch: [], test_ok: true });
    const csv = await t.inject({ method: 'GET', url: '/api/hw/info/export', token: user.token });
    expect(csv.body).not.toContain('FT-1');
    expect(await infoOf('FT-1', user.token)).toBeUndefined();
  });

  it("does not take a stock device's factory connection for its first connect; its owner's first is", async () => {
    const activatedAfterConnect = async (sn: string, token: string, connects: number) => {
      // The connect's log row and the device row are written by one statement: once the row is there, so is
      // whatever the connect set.
      await eventually(async () => {
        const logs = list<unknown>(
          await t.inject({ method: 'GET', url: `/api/devices/${sn}/logs?event=connect`, token }),
        );
        return logs.data.length >= connects ? true : undefined;
      });
      return data<{ activatedat: string | null }>(
        await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token }),
      ).activatedat;
    };
    // FT-3 connected for its factory test above, in stock.
    expect(await activatedAfterConnect('FT-3', admin, 1)).toBeNull();
    const user = await t.createUser();
    const d = await deviceOf('FT-3');
    const bound = await t.inject({
      method: 'POST',
      url: '/api/devices/bind',
      token: user.token,
      payload: { sn: 'FT-3', secret: d.secret },
    });
    expect(bound.statusCode, bound.body).toBe(200);
    await reportInfo(d, { csq: 20 });
    expect(await activatedAfterConnect('FT-3', user.token, 2)).not.toBeNull();
  });
});

describe('parsing hw and test', () => {
  it('keeps only usable fields', () => {
    expect(parseHw('EC200U')).toEqual({});
    expect(parseHw({ module_model: ' EC200U ', mcu_id: 'a\u0000b', mac: null })).toEqual({
      module_model: 'EC200U',
    });
    expect(parseTest([true])).toBeUndefined();
    expect(parseTest({ ok: 1, items: 'all' })).toBeUndefined();
    expect(
      parseTest({ items: Array.from({ length: 40 }, (_, i) => ({ name: `t${i}`, ok: true })) })?.items,
    ).toHaveLength(32);
    expect(
      parseTest({ ok: true, items: [{ name: 'x', ok: true, detail: 'd'.repeat(300) }] })?.items?.[0]?.detail,
    ).toHaveLength(200);
  });
});
