// Scenes against the real server: CRUD, model -> scene binding, files, rights, live values over the WebSocket, a
// Modbus write through devsim's slave behind a transparent DTU, and an alert on a scene variable.
import { existsSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ModelDocumentInput,
  SceneDetail,
  SceneDocumentInput,
  SceneModelDetail,
  SceneValues,
} from '@cellhub/contract/scenes';
import { VirtualDevice } from '../../../../devsim/src/device';
import { ModbusBus } from '../../../../devsim/src/modbus';
import { alertDevices, historyOf, report as ingest } from '../../test/alerts-test-kit';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { connectDevice, createDevices, eventually, type TestDevice, up } from '../../test/gateway-test-kit';
import { listenUrl, signedInSocket, type TestSocket } from '../../test/ws-test-client';
import { auditLogs } from '../audit/audit.table';
import {
  dataTemplates,
  dataTemplateSlaves,
  dataTemplateVariables,
  deviceDataTemplates,
} from '../data-templates/data-templates.table';
import { devices } from '../devices/devices.table';
import { sceneImageDir } from './scenes.service';
import { fileStore, storedFilePath } from '../../lib/file-store';

type User = { uid: number; token: string; username: string };
let t: TestApp;
let owner: User;
let viewer: User;
let controller: User;
let stranger: User;
let d1: TestDevice;
let d2: TestDevice;
let other: TestDevice;
let templateId = 0;
const sims: VirtualDevice[] = [];
const clients: MqttClient[] = [];
const sockets: TestSocket[] = [];

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

async function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  token: string,
  payload?: unknown,
) {
  return t.inject({ method, url, token, ...(payload === undefined ? {} : { payload: payload as object }) });
}

const box = { w: 100, h: 40 };

function modelDoc(): ModelDocumentInput {
  return {
    format: 'cellhub.scene',
    version: 1,
    canvas: { width: 800, height: 600, grid: 10 },
    widgets: [
      {
        id: 'temp',
        kind: 'value',
        x: 10,
        y: 10,
        ...box,
        binding: { slot: 'boiler', key: 'temp' },
        unit: '°C',
      },
      {
        id: 'sp',
        kind: 'setpoint',
        x: 10,
        y: 60,
        ...box,
        binding: { slot: 'boiler', key: 'sp' },
        write: { mode: 'modbus', tag: 'sp' },
        min: 0,
        max: 100,
      },
      { id: 'go', kind: 'link', x: 10, y: 110, ...box, target: { slot: 'boiler' }, label: 'Open' },
      { id: 'title', kind: 'text', x: 10, y: 160, ...box, text: 'Boiler' },
    ],
  };
}

function sceneDoc(sn1: string, sn2: string): SceneDocumentInput {
  return {
    format: 'cellhub.scene',
    version: 1,
    canvas: { width: 800, height: 600 },
    widgets: [
      { id: 'a', kind: 'value', x: 0, y: 0, ...box, binding: { sn: sn1, key: 'temp' } },
      { id: 'b', kind: 'gauge', x: 0, y: 50, ...box, binding: { sn: sn2, key: 'temp' }, min: 0, max: 50 },
      {
        id: 'sw',
        kind: 'switch',
        x: 0,
        y: 100,
        ...box,
        binding: { sn: sn1, key: 'on' },
        write: { mode: 'property' },
      },
    ],
  };
}

async function makeScene(token: string, document: SceneDocumentInput, name = 'Plant'): Promise<SceneDetail> {
  const res = await call('POST', '/api/scenes', token, { name, document });
  expect(res.statusCode, res.body).toBe(200);
  return data<SceneDetail>(res);
}

async function report(d: TestDevice, params: Record<string, unknown>): Promise<void> {
  let c = clients.find((x) => x.options.clientId === d.sn);
  if (!c) {
    c = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, d);
    clients.push(c);
  }
  await c.publishAsync(up(d, 'property'), JSON.stringify({ params }));
}

beforeAll(async () => {
  t = await buildTestApp();
  t.app.modbusPoller.options.timeoutMs = 300;
  owner = await t.createUser();
  viewer = await t.createUser();
  controller = await t.createUser();
  stranger = await t.createUser();
  const made = await createDevices(t, owner.token, ['SC-1', 'SC-2']);
  d1 = made[0]!;
  d2 = made[1]!;
  other = (await createDevices(t, owner.token, ['SC-OTHER'], { name: 'Other product' }))[0]!;
  // The viewer may view SC-1 only; the controller may control SC-1 and SC-2.
  for (const [who, right, sns] of [
    [viewer, 'view', ['SC-1']],
    [controller, 'control', ['SC-1', 'SC-2']],
  ] as const) {
    const res = await call('POST', '/api/shares', owner.token, { sns, to: who.username, right });
    expect(res.statusCode, res.body).toBe(200);
  }
  const db = t.app.deps.db;
  const [tpl] = await db
    .insert(dataTemplates)
    .values({ uid: owner.uid, name: 'boiler', collectMode: 'platform' })
    .returning();
  templateId = tpl!.id;
  const [slave] = await db
    .insert(dataTemplateSlaves)
    .values({ templateId, name: 'meter', address: 7 })
    .returning();
  await db.insert(dataTemplateVariables).values([
    {
      templateId,
      slaveId: slave!.id,
      name: 'temp',
      tag: 'temp',
      registerType: 'holding',
      registerAddress: 1,
      dataFormat: 'uint16',
      samplingCycleS: 3600,
      functionCode: 3,
    },
    {
      templateId,
      slaveId: slave!.id,
      name: 'sp',
      tag: 'sp',
      registerType: 'holding',
      registerAddress: 2,
      dataFormat: 'uint16',
      access: 'rw',
      samplingCycleS: 3600,
      functionCode: 3,
    },
  ]);
  const [dev] = await db.select({ id: devices.id }).from(devices).where(eq(devices.sn, d1.sn));
  await db.insert(deviceDataTemplates).values({ deviceId: dev!.id, templateId });
});

afterAll(async () => {
  for (const s of sockets) s.close();
  for (const c of clients) await c.endAsync().catch(() => undefined);
  await Promise.all(sims.map((s) => s.close()));
  await t.close();
});

describe('scene models', () => {
  it('create, read, list, update, copy and delete; bindings must name slots (83001)', async () => {
    const slots = [{ name: 'boiler', product_key: d1.productKey }];
    let res = await call('POST', '/api/scene-models', owner.token, {
      name: 'Boiler',
      slots,
      document: modelDoc(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const m = data<SceneModelDetail>(res);
    expect(m).toMatchObject({ name: 'Boiler', widget_count: 4, scene_count: 0, slots });
    expect(m.document.widgets[0]).toMatchObject({ decimals: 1, z: 0, style: {} });

    res = await call('POST', '/api/scene-models', owner.token, {
      name: 'Bad',
      slots: [],
      document: modelDoc(),
    });
    expect(errorOf(res)).toMatchObject({ code: 83001 });
    expect((errorOf(res).details as { field: string }[]).map((x) => x.field)).toContain(
      'document.widgets.0.binding.slot',
    );

    res = await call('GET', `/api/scene-models/${m.id}`, stranger.token);
    expect(errorOf(res).code).toBe(10107);
    res = await call('GET', '/api/scene-models?keyword=Boil', owner.token);
    expect((res.json() as { total: number }).total).toBe(1);

    res = await call('PUT', `/api/scene-models/${m.id}`, owner.token, { remark: 'two floors' });
    expect(data<SceneModelDetail>(res)).toMatchObject({ remark: 'two floors', widget_count: 4 });
    res = await call('POST', `/api/scene-models/${m.id}/copy`, owner.token, {});
    const copy = data<SceneModelDetail>(res);
    expect(copy).toMatchObject({ name: 'Boiler copy', widget_count: 4 });
    res = await call('DELETE', `/api/scene-models/${copy.id}`, owner.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(errorOf(await call('GET', `/api/scene-models/${copy.id}`, owner.token)).code).toBe(10107);
  });

  it('a scene from a model binds each slot in one step; mismatch 83003, a device one may not view 10117', async () => {
    const slots = [{ name: 'boiler', template_id: templateId }];
    const m = data<SceneModelDetail>(
      await call('POST', '/api/scene-models', owner.token, {
        name: 'By template',
        slots,
        document: modelDoc(),
      }),
    );
    // SC-2 is of the right product but has no template: the slot asks for the template.
    let res = await call('POST', '/api/scenes/from-model', owner.token, {
      model_id: m.id,
      name: 'x',
      bindings: { boiler: d2.sn },
    });
    expect(errorOf(res)).toMatchObject({ code: 83003, details: [{ field: 'bindings.boiler' }] });
    res = await call('POST', '/api/scenes/from-model', owner.token, {
      model_id: m.id,
      name: 'x',
      bindings: {},
    });
    expect(errorOf(res)).toMatchObject({ code: 83003, details: [{ field: 'bindings.boiler' }] });

    const byProduct = data<SceneModelDetail>(
      await call('POST', '/api/scene-models', owner.token, {
        name: 'By product',
        slots: [{ name: 'boiler', product_key: d1.productKey }],
        document: modelDoc(),
      }),
    );
    res = await call('POST', '/api/scenes/from-model', owner.token, {
      model_id: byProduct.id,
      name: 'x',
      bindings: { boiler: other.sn },
    });
    expect(errorOf(res)).toMatchObject({ code: 83003, details: [{ field: 'bindings.boiler' }] });
    // The stranger owns the model copy but may not view SC-1.
    const theirs = data<SceneModelDetail>(
      await call('POST', '/api/scene-models', stranger.token, {
        name: 'Theirs',
        slots: [{ name: 'boiler', product_key: d1.productKey }],
        document: modelDoc(),
      }),
    );
    res = await call('POST', '/api/scenes/from-model', stranger.token, {
      model_id: theirs.id,
      name: 'x',
      bindings: { boiler: d1.sn },
    });
    expect(errorOf(res).code).toBe(10117);

    res = await call('POST', '/api/scenes/from-model', owner.token, {
      model_id: m.id,
      name: 'Boiler 1',
      bindings: { boiler: d1.sn },
    });
    expect(res.statusCode, res.body).toBe(200);
    const s = data<SceneDetail>(res);
    expect(s).toMatchObject({ model_id: m.id, model_name: 'By template', device_count: 1, access: 'owner' });
    expect(
      s.document.widgets.map((w) => ('binding' in w ? w.binding : 'target' in w ? w.target : null)),
    ).toEqual([{ sn: d1.sn, key: 'temp' }, { sn: d1.sn, key: 'sp' }, { sn: d1.sn }, null]);
    expect(s.devices).toEqual([
      { sn: d1.sn, name: d1.sn, product_key: d1.productKey, online: 0, visible: true, control: true },
    ]);
    // A model in use is kept.
    expect(errorOf(await call('DELETE', `/api/scene-models/${m.id}`, owner.token)).code).toBe(83004);
    expect(
      data<SceneModelDetail>(await call('GET', `/api/scene-models/${m.id}`, owner.token)).scene_count,
    ).toBe(1);
  });
});

describe('scene files', () => {
  it('export and import round trip, for scenes and models', async () => {
    const s = await makeScene(owner.token, sceneDoc(d1.sn, d2.sn), 'Round trip');
    let res = await call('GET', `/api/scenes/${s.id}/export`, owner.token);
    const file = data<Record<string, unknown>>(res);
    expect(file).toMatchObject({ format: 'cellhub.scene', version: 1, kind: 'scene', name: 'Round trip' });
    res = await call('POST', '/api/scenes/import', owner.token, { file: JSON.parse(JSON.stringify(file)) });
    expect(res.statusCode, res.body).toBe(200);
    const back = data<SceneDetail>(res);
    expect(back.id).not.toBe(s.id);
    expect(back.document).toEqual(s.document);

    const m = data<SceneModelDetail>(
      await call('POST', '/api/scene-models', owner.token, {
        name: 'M',
        slots: [{ name: 'boiler', product_key: d1.productKey }],
        document: modelDoc(),
      }),
    );
    const mf = data<Record<string, unknown>>(
      await call('GET', `/api/scene-models/${m.id}/export`, owner.token),
    );
    expect(mf).toMatchObject({ kind: 'model', slots: m.slots });
    res = await call('POST', '/api/scene-models/import', owner.token, { file: mf });
    expect(res.statusCode, res.body).toBe(200);
    expect(data<SceneModelDetail>(res).document).toEqual(m.document);
  });

  it('bad files: per-field details (83001), version (83002), too many widgets (83006)', async () => {
    const s = await makeScene(owner.token, sceneDoc(d1.sn, d2.sn), 'Source');
    const file = data<Record<string, unknown> & { widgets: Record<string, unknown>[] }>(
      await call('GET', `/api/scenes/${s.id}/export`, owner.token),
    );
    const broken = structuredClone(file);
    broken.widgets[0]!.binding = { sn: 'bad sn!', key: 'temp' };
    broken.widgets[1]!.max = 'high';
    let res = await call('POST', '/api/scenes/import', owner.token, { file: broken });
    expect(errorOf(res).code).toBe(83001);
    expect((errorOf(res).details as { field: string }[]).map((x) => x.field).sort()).toEqual([
      'widgets.0.binding.sn',
      'widgets.1.max',
    ]);
    res = await call('POST', '/api/scenes/import', owner.token, { file: { ...file, version: 9 } });
    expect(errorOf(res)).toMatchObject({ code: 83002, details: [{ field: 'version' }] });
    res = await call('POST', '/api/scenes/import', owner.token, { file: 'not json object' });
    expect(errorOf(res).code).toBe(83001);
    res = await call('POST', '/api/scenes/import', owner.token, { file: { ...file, kind: 'model' } });
    expect(errorOf(res)).toMatchObject({ code: 83001, details: [{ field: 'kind' }] });
    const many = Array.from({ length: 501 }, (_, i) => ({
      id: `t${i}`,
      kind: 'text',
      x: 0,
      y: 0,
      ...box,
      text: '',
    }));
    res = await call('POST', '/api/scenes/import', owner.token, { file: { ...file, widgets: many } });
    expect(errorOf(res).code).toBe(83006);
    res = await call('POST', '/api/scenes', owner.token, {
      name: 'big',
      document: { ...file, widgets: many },
    });
    expect(errorOf(res).code).toBe(83006);
    // NUL in a name: a clear refusal, not a server error.
    res = await call('POST', '/api/scenes/import', owner.token, { file: { ...file, name: 'a\u0000b' } });
    expect(res.statusCode).toBe(400);
  });
});

describe('scene rights and live values', () => {
  let s: SceneDetail;
  beforeAll(async () => {
    s = await makeScene(owner.token, sceneDoc(d1.sn, d2.sn), 'Shared');
    const res = await call('POST', `/api/scenes/${s.id}/shares`, owner.token, { to: viewer.username });
    expect(res.statusCode, res.body).toBe(200);
    await call('POST', `/api/scenes/${s.id}/shares`, owner.token, { to: controller.username });
    await report(d1, { temp: 21.5, on: true });
    await report(d2, { temp: 30 });
    await eventually(async () => {
      const v = data<SceneValues>(await call('GET', `/api/scenes/${s.id}/values`, owner.token));
      return v.items.filter((i) => i.value !== null).length === 3 ? true : undefined;
    });
  });

  it('a stranger gets 10107 for every scene route; a share holder reads but does not edit', async () => {
    for (const [m, u] of [
      ['GET', ''],
      ['GET', '/values'],
      ['GET', '/export'],
      ['PUT', ''],
      ['DELETE', ''],
    ] as const) {
      const res = await call(
        m,
        `/api/scenes/${s.id}${u}`,
        stranger.token,
        m === 'PUT' ? { name: 'x' } : undefined,
      );
      expect(errorOf(res).code, `${m} ${u}`).toBe(10107);
    }
    expect(errorOf(await call('PUT', `/api/scenes/${s.id}`, viewer.token, { name: 'x' })).code).toBe(10108);
    expect(errorOf(await call('DELETE', `/api/scenes/${s.id}`, viewer.token)).code).toBe(10108);
    expect(errorOf(await call('GET', `/api/scenes/${s.id}/shares`, viewer.token)).code).toBe(10108);
    const list = await call('GET', '/api/scenes', viewer.token);
    expect((list.json() as { data: { id: number; access: string }[] }).data).toEqual([
      expect.objectContaining({ id: s.id, access: 'view' }),
    ]);
  });

  it('never shows a device the viewer may not view', async () => {
    const detail = data<SceneDetail>(await call('GET', `/api/scenes/${s.id}`, viewer.token));
    expect(detail.devices).toEqual([
      expect.objectContaining({ sn: d1.sn, visible: true, control: false }),
      { sn: d2.sn, name: d2.sn, product_key: '', online: 0, visible: false, control: false },
    ]);
    const v = data<SceneValues>(await call('GET', `/api/scenes/${s.id}/values`, viewer.token));
    expect(v.items.map((i) => [i.sn, i.key, i.value])).toEqual([
      [d1.sn, 'temp', 21.5],
      [d1.sn, 'on', true],
    ]);
    // The owner sees all three, with the template's sampling cycle where the key is a template variable.
    const all = data<SceneValues>(await call('GET', `/api/scenes/${s.id}/values`, owner.token));
    expect(all.items).toEqual([
      expect.objectContaining({ sn: d1.sn, key: 'temp', value: 21.5, cycle_s: 3600, online: 1 }),
      expect.objectContaining({ sn: d2.sn, key: 'temp', value: 30, cycle_s: null }),
      expect.objectContaining({ sn: d1.sn, key: 'on', value: true, cycle_s: null }),
    ]);
  });

  it('writes: 83005 not a control, 10108 a view share, a control share sends; audited', async () => {
    let res = await call('POST', `/api/scenes/${s.id}/widgets/a/write`, owner.token, { value: 1 });
    expect(errorOf(res).code).toBe(83005);
    res = await call('POST', `/api/scenes/${s.id}/widgets/nope/write`, owner.token, { value: 1 });
    expect(errorOf(res).code).toBe(10107);
    res = await call('POST', `/api/scenes/${s.id}/widgets/sw/write`, viewer.token, { value: true });
    expect(errorOf(res).code).toBe(10108);
    res = await call('POST', `/api/scenes/${s.id}/widgets/sw/write`, stranger.token, { value: true });
    expect(errorOf(res).code).toBe(10107);
    res = await call('POST', `/api/scenes/${s.id}/widgets/sw/write`, controller.token, { value: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(data(res)).toMatchObject({
      mode: 'property',
      sn: d1.sn,
      reply: { data: '{"on":true}', status: 'sent' },
    });
    const audits = await t.app.deps.db.select().from(auditLogs).where(eq(auditLogs.action, 'scene_write'));
    expect(audits.map((a) => [a.uid, (a.detail as { outcome: string }).outcome])).toEqual(
      expect.arrayContaining([
        [viewer.uid, '10108'],
        [controller.uid, 'ok'],
      ]),
    );
  });

  it('live values arrive over the WebSocket for the scene devices the viewer may see', async () => {
    const url = await listenUrl(t.app);
    const ws = await signedInSocket(url, viewer.token);
    sockets.push(ws);
    const detail = data<SceneDetail>(await call('GET', `/api/scenes/${s.id}`, viewer.token));
    const sns = detail.devices.filter((d) => d.visible).map((d) => d.sn);
    ws.send({ type: 'subscribe', sns });
    await ws.next('subscribed');
    await report(d2, { temp: 31 });
    await report(d1, { temp: 22.5 });
    const ev = await ws.next(
      'event',
      (m) => m.event.type === 'device.properties' && m.event.sn === d1.sn,
      5000,
    );
    expect(ev.event).toMatchObject({ type: 'device.properties', sn: d1.sn, values: { temp: 22.5 } });
    expect(ws.messages.some((m) => m.type === 'event' && m.event.sn === d2.sn)).toBe(false);
  });
});

describe('a Modbus write from a scene', () => {
  it('reaches the slave through the DTU for owner and control share; a view share gets 10108', async () => {
    const bus = new ModbusBus([{ address: 7, holdingRegisters: { 0: 42, 1: 0 } }]);
    const slave = bus.slave(7)!;
    const sim = new VirtualDevice(
      { sn: d1.sn, product_key: d1.productKey, secret: d1.secret },
      { url: `mqtt://127.0.0.1:${t.app.broker.port}`, configGet: false, modbus: bus },
    );
    // The test's own MQTT client for SC-1 gives way to the simulated DTU.
    for (const c of clients.filter((x) => x.options.clientId === d1.sn)) await c.endAsync();
    clients.splice(0, clients.length, ...clients.filter((x) => x.options.clientId !== d1.sn));
    await sim.connect();
    sims.push(sim);
    t.app.modbusPoller.invalidate();
    await eventually(async () => (slave.requests.length >= 1 ? true : undefined));
    const s = await makeScene(owner.token, {
      format: 'cellhub.scene',
      version: 1,
      canvas: { width: 400, height: 300 },
      widgets: [
        {
          id: 'sp',
          kind: 'setpoint',
          x: 0,
          y: 0,
          ...box,
          binding: { sn: d1.sn, key: 'sp' },
          write: { mode: 'modbus', tag: 'sp' },
          min: 0,
          max: 100,
        },
      ],
    });
    await call('POST', `/api/scenes/${s.id}/shares`, owner.token, { to: viewer.username });
    await call('POST', `/api/scenes/${s.id}/shares`, owner.token, { to: controller.username });
    const write = (token: string, value: number) =>
      call('POST', `/api/scenes/${s.id}/widgets/sp/write`, token, { value });
    let res = await write(owner.token, 55);
    expect(res.statusCode, res.body).toBe(200);
    expect(data(res)).toMatchObject({ mode: 'modbus', sn: d1.sn, reply: { outcome: 'response', value: 55 } });
    expect(slave.words('holding', 1, 1)).toEqual([55]);
    res = await write(controller.token, 60);
    expect(res.statusCode, res.body).toBe(200);
    expect(slave.words('holding', 1, 1)).toEqual([60]);
    expect(errorOf(await write(viewer.token, 70)).code).toBe(10108);
    expect(slave.words('holding', 1, 1)).toEqual([60]);
    // Outside the set-point's range.
    expect(errorOf(await write(owner.token, 101)).code).toBe(10113);
  });
});

describe('alerts on a scene variable', () => {
  it('11000 without or with a missing scene, 11009 for a scene without variables; raised and recovered', async () => {
    const [dev] = await alertDevices(t, owner.token, ['SC-ALERT']);
    const s = await makeScene(owner.token, {
      format: 'cellhub.scene',
      version: 1,
      canvas: { width: 400, height: 300 },
      widgets: [{ id: 'hot', kind: 'value', x: 0, y: 0, ...box, binding: { sn: 'SC-ALERT', key: 'temp' } }],
    });
    const empty = await makeScene(owner.token, {
      format: 'cellhub.scene',
      version: 1,
      canvas: { width: 400, height: 300 },
      widgets: [{ id: 'x', kind: 'text', x: 0, y: 0, ...box, text: 'nothing bound' }],
    });
    const trigger = (body: Record<string, unknown>) =>
      call('POST', '/api/alert/triggers', owner.token, {
        name: 'Scene hot',
        source: 'scene',
        sn: 'SC-ALERT',
        key: 'temp',
        type: 4,
        b: 30,
        ...body,
      });
    expect(errorOf(await trigger({ scene_id: null })).code).toBe(11000);
    expect(errorOf(await trigger({ scene_id: 999_999 })).code).toBe(11000);
    // Another user's scene is missing for this owner.
    const theirs = await makeScene(stranger.token, sceneDoc('SC-ALERT', 'SC-ALERT'));
    expect(errorOf(await trigger({ scene_id: theirs.id })).code).toBe(11000);
    expect(errorOf(await trigger({ scene_id: empty.id })).code).toBe(11009);
    expect(errorOf(await trigger({ scene_id: s.id, key: 'door' })).code).toBe(83003);
    const res = await trigger({ scene_id: s.id });
    expect(res.statusCode, res.body).toBe(200);
    const tr = data<{ id: number; source: string; scene_id: number }>(res);
    expect(tr).toMatchObject({ source: 'scene', scene_id: s.id });

    await ingest(t, dev!, { temp: 42 });
    let rows = await historyOf(t, owner.token, tr.id);
    expect(rows.map((r) => [r.status, r.raised_value])).toEqual([['active', 42]]);
    await ingest(t, dev!, { temp: 20 });
    rows = await historyOf(t, owner.token, tr.id);
    expect(rows.map((r) => [r.status, r.raised_value, r.recovered_value])).toEqual([['recovered', 42, 20]]);
  });
});

describe('scene images', () => {
  const BOUNDARY = 'scene-image-boundary';
  const upload = (id: number, token: string, bytes: Buffer, name = 'bg.png') =>
    t.inject({
      method: 'POST',
      url: `/api/scenes/${id}/images`,
      token,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: Buffer.concat([
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
            'Content-Type: application/octet-stream\r\n\r\n',
        ),
        bytes,
        Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
      ]),
    });
  const PNG = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.alloc(600, 7),
  ]);

  it('stores PNG for the owner, serves it to readers of the scene, refuses SVG, and goes with the scene', async () => {
    const s = await makeScene(owner.token, sceneDoc(d1.sn, d2.sn), 'With image');
    await call('POST', `/api/scenes/${s.id}/shares`, owner.token, { to: viewer.username });
    let res = await upload(s.id, owner.token, PNG);
    expect(res.statusCode, res.body).toBe(200);
    const img = data<{ file: string; content_type: string; size: number }>(res);
    expect(img).toMatchObject({ content_type: 'image/png', size: PNG.length });
    res = await call('PUT', `/api/scenes/${s.id}`, owner.token, {
      document: { ...s.document, canvas: { ...s.document.canvas, background: img.file } },
    });
    expect(data<SceneDetail>(res).document.canvas.background).toBe(img.file);
    for (const token of [owner.token, viewer.token]) {
      res = await call('GET', `/api/scenes/${s.id}/images/${img.file}`, token);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.rawPayload.equals(PNG)).toBe(true);
    }
    expect(errorOf(await call('GET', `/api/scenes/${s.id}/images/${img.file}`, stranger.token)).code).toBe(
      10107,
    );
    expect(errorOf(await upload(s.id, viewer.token, PNG)).code).toBe(10108);
    res = await upload(
      s.id,
      owner.token,
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>'),
      'x.svg',
    );
    expect(res.statusCode).toBe(415);
    expect(errorOf(res).code).toBe(50002);
    // Another scene cannot serve it.
    const other2 = await makeScene(owner.token, sceneDoc(d1.sn, d2.sn), 'Other');
    expect(errorOf(await call('GET', `/api/scenes/${other2.id}/images/${img.file}`, owner.token)).code).toBe(
      10107,
    );
    const ref = { area: 'scenes', fileId: img.file };
    expect(await fileStore(t.app.deps).size(ref)).toBeGreaterThan(0);
    if (fileStore(t.app.deps).kind === 'dir')
      expect(existsSync(storedFilePath(sceneImageDir(t.app.deps), img.file))).toBe(true);
    expect((await call('DELETE', `/api/scenes/${s.id}`, owner.token)).statusCode).toBe(200);
    expect(await fileStore(t.app.deps).size(ref)).toBeUndefined();
    expect(existsSync(storedFilePath(sceneImageDir(t.app.deps), img.file))).toBe(false);
  });
});
