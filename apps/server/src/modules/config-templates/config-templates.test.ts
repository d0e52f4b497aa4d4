import { eq } from 'drizzle-orm';
import { auditLogs } from '../audit/audit.table';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigApply, ConfigApplySummary, ConfigTemplateItem } from '@cellhub/contract/config-templates';
import { downTopic } from '@cellhub/contract/protocol';
import {
  connectDevice,
  createDevices,
  eventually,
  nextMessage,
  type TestDevice,
  up,
} from '../../test/gateway-test-kit';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { applyConfigTemplate } from './config-templates.service';

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };
let aDevices: TestDevice[];
const clients: MqttClient[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
  aDevices = await createDevices(t, a.token, ['CT-A1', 'CT-A2', 'CT-A3']);
  await createDevices(t, b.token, ['CT-B1']);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
  await t.close();
});

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

async function online(d: TestDevice): Promise<MqttClient> {
  const c = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, d);
  clients.push(c);
  await c.subscribeAsync(`dev/${d.productKey}/${d.sn}/down/#`, { qos: 1 });
  await c.publishAsync(up(d, 'status'), '{"online":1}', { qos: 1 });
  await eventually(async () => {
    const res = await t.inject({ method: 'GET', url: `/api/devices/${d.sn}`, token: a.token });
    return data<{ online: number }>(res).online === 1 ? true : undefined;
  });
  return c;
}

const apnTemplate = {
  name: 'China Mobile APN',
  config: { global: { apn: { name: 'cmiot', username: 'iot' } }, mqtt: { keepalive: 120 } },
};

describe('templates', () => {
  it('refuses an empty or invalid configuration (10113)', async () => {
    for (const payload of [
      { name: 'empty', config: {} },
      { name: 'bad port', config: { mqtt: { port: 70000 } } },
      { name: '', config: { mqtt: { port: 1883 } } },
      { name: 'too many topics', config: { mqtt: { subscribe: Array(9).fill({ topic: 't' }) } } },
    ]) {
      const res = await t.inject({ method: 'POST', url: '/api/config-templates', token: a.token, payload });
      expect(res.statusCode, payload.name).toBe(400);
      expect(errorOf(res).code, payload.name).toBe(10113);
    }
  });

  it('creates, lists, edits and deletes its own templates; B sees none of them (10107)', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/config-templates',
      token: a.token,
      payload: apnTemplate,
    });
    expect(res.statusCode).toBe(200);
    const tpl = data<ConfigTemplateItem>(res);
    expect(tpl).toMatchObject({ uid: a.uid, name: apnTemplate.name, config: apnTemplate.config, applies: 0 });
    expect(
      (await t.inject({ method: 'GET', url: '/api/config-templates?keyword=mobile', token: a.token })).json()
        .total,
    ).toBe(1);
    expect(
      (await t.inject({ method: 'GET', url: '/api/config-templates', token: b.token })).json().total,
    ).toBe(0);
    expect(
      (await t.inject({ method: 'GET', url: `/api/config-templates/${tpl.id}`, token: admin })).statusCode,
    ).toBe(200);
    for (const [method, url, payload] of [
      ['GET', `/api/config-templates/${tpl.id}`, undefined],
      ['PUT', `/api/config-templates/${tpl.id}`, { name: 'mine' }],
      ['DELETE', `/api/config-templates/${tpl.id}`, undefined],
      ['POST', `/api/config-templates/${tpl.id}/apply`, { sns: ['CT-B1'] }],
      ['GET', `/api/config-templates/${tpl.id}/applies`, undefined],
      ['GET', `/api/config-templates/${tpl.id}/applies/1`, undefined],
    ] as const) {
      const other = await t.inject({ method, url, token: b.token, payload });
      expect(other.statusCode, `${method} ${url}`).toBe(400);
      expect(errorOf(other).code, `${method} ${url}`).toBe(10107);
    }
    const edited = await t.inject({
      method: 'PUT',
      url: `/api/config-templates/${tpl.id}`,
      token: a.token,
      payload: { description: 'APN for the CMIOT cards', config: { mqtt: { keepalive: 90 } } },
    });
    expect(data<ConfigTemplateItem>(edited)).toMatchObject({
      name: apnTemplate.name,
      description: 'APN for the CMIOT cards',
      config: { mqtt: { keepalive: 90 } },
    });
    expect(
      (await t.inject({ method: 'DELETE', url: `/api/config-templates/${tpl.id}`, token: a.token }))
        .statusCode,
    ).toBe(200);
    expect(
      errorOf(await t.inject({ method: 'GET', url: `/api/config-templates/${tpl.id}`, token: a.token })).code,
    ).toBe(10107);
  });
});

describe('applying a template', () => {
  it("merges into each device's expected configuration, pushes to online devices and follows their sync", async () => {
    const [d1, d2, d3] = aDevices as [TestDevice, TestDevice, TestDevice];
    // d1 already expects a configuration the template must not wipe out.
    await t.inject({
      method: 'PUT',
      url: `/api/devices/${d1.sn}/config`,
      token: a.token,
      payload: { config: { global: { apn: { password: 'secret' }, ntp: { server: 'ntp.example' } } } },
    });
    const c1 = await online(d1);
    const c2 = await online(d2);
    const tpl = data<ConfigTemplateItem>(
      await t.inject({ method: 'POST', url: '/api/config-templates', token: a.token, payload: apnTemplate }),
    );
    const down1 = nextMessage(c1, downTopic(d1.productKey, d1.sn, 'config'));
    const down2 = nextMessage(c2, downTopic(d2.productKey, d2.sn, 'config'));
    const res = await t.inject({
      method: 'POST',
      url: `/api/config-templates/${tpl.id}/apply`,
      token: a.token,
      payload: { sns: [d1.sn, d2.sn, d3.sn, 'CT-B1'] },
    });
    expect(res.statusCode).toBe(200);
    const applied = data<ConfigApply>(res);
    expect(applied).toMatchObject({ template_id: tpl.id, total: 4, synced: 0 });
    expect(applied.results).toEqual([
      { sn: d1.sn, status: 'pending', version: 2, config_version: 0, online: 1, sent: true },
      { sn: d2.sn, status: 'pending', version: 1, config_version: 0, online: 1, sent: true },
      { sn: d3.sn, status: 'pending', version: 1, config_version: 0, online: 0, sent: false },
      { sn: 'CT-B1', status: 'not_found', version: null, config_version: null, online: null, sent: false },
    ]);

    const msg1 = JSON.parse((await down1).toString()) as { version: number; config: unknown };
    expect(msg1).toEqual({
      version: 2,
      config: {
        global: {
          apn: { name: 'cmiot', username: 'iot', password: 'secret' },
          ntp: { server: 'ntp.example' },
        },
        mqtt: { keepalive: 120 },
      },
    });
    const msg2 = JSON.parse((await down2).toString()) as { version: number; config: unknown };
    expect(msg2).toEqual({ version: 1, config: apnTemplate.config });

    // Only d1 reports the new configuration: one of three in sync.
    await c1.publishAsync(up(d1, 'config'), JSON.stringify(msg1), { qos: 1 });
    const after = await eventually(async () => {
      const r = data<ConfigApply>(
        await t.inject({
          method: 'GET',
          url: `/api/config-templates/${tpl.id}/applies/${applied.id}`,
          token: a.token,
        }),
      );
      return r.synced === 1 ? r : undefined;
    });
    expect(after.results.map((r) => r.status)).toEqual(['synced', 'pending', 'pending', 'not_found']);
    expect(after.results[0]).toMatchObject({ config_version: 2 });

    const list = await t.inject({
      method: 'GET',
      url: `/api/config-templates/${tpl.id}/applies`,
      token: a.token,
    });
    expect(list.json().total).toBe(1);
    expect(data<ConfigApplySummary[]>(list)[0]).toMatchObject({ id: applied.id, total: 4, synced: 1 });

    // B's device was never touched.
    const bConfig = await t.inject({ method: 'GET', url: '/api/devices/CT-B1/config', token: b.token });
    expect(data<{ expect_config_version: number }>(bConfig).expect_config_version).toBe(0);

    // The offline device gets it when it connects (the device config service sends what it lacks).
    const c3 = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, d3);
    clients.push(c3);
    const down3 = nextMessage(c3, downTopic(d3.productKey, d3.sn, 'config'));
    await c3.subscribeAsync(`dev/${d3.productKey}/${d3.sn}/down/#`, { qos: 1 });
    await c3.publishAsync(up(d3, 'config_get'), '{}', { qos: 1 });
    expect(JSON.parse((await down3).toString())).toEqual({ version: 1, config: apnTemplate.config });
  });

  it('refuses bad targets with 10113', async () => {
    const tpl = data<ConfigTemplateItem>(
      await t.inject({ method: 'POST', url: '/api/config-templates', token: a.token, payload: apnTemplate }),
    );
    for (const sns of [[], ['x y']]) {
      const res = await t.inject({
        method: 'POST',
        url: `/api/config-templates/${tpl.id}/apply`,
        token: a.token,
        payload: { sns },
      });
      expect(errorOf(res).code).toBe(10113);
    }
  });

  it('keeps every change when applies and edits of one device run at the same time (row lock)', async () => {
    const [created] = data<{ code: number }[]>(
      await t.inject({
        method: 'POST',
        url: '/api/devices',
        token: a.token,
        payload: { product_key: aDevices[0]!.productKey, sn: ['CT-RACE'] },
      }),
    );
    expect(created?.code).toBe(0);
    // Each template sets its own field; applied together, the device must end with all of them.
    const patches = [
      { global: { apn: { name: 'race-apn' } } },
      { global: { ntp: { server: 'ntp.race.example' } } },
      { mqtt: { client_id: 'race-client' } },
      { mqtt: { username: 'race-user' } },
      { mqtt: { keepalive: 321 } },
      { serial: { rs485: { baud: 19200 } } },
    ];
    const ids = await Promise.all(
      patches.map(async (config, i) => {
        const res = await t.inject({
          method: 'POST',
          url: '/api/config-templates',
          token: a.token,
          payload: { name: `race ${i}`, config },
        });
        expect(res.statusCode, res.body).toBe(200);
        return data<ConfigTemplateItem>(res).id;
      }),
    );
    // Called in one tick (HTTP requests would arrive staggered), every apply reads the device before any of them
    // writes: without the row lock each write is merged from that stale read and the others' changes are lost.
    const actor = {
      uid: a.uid,
      username: 'race',
      role: 'user' as const,
      sessionId: 0,
      ip: '127.0.0.1',
      userAgent: 'test',
    };
    const applied = await Promise.all(
      ids.map((id) => applyConfigTemplate(t.app.deps, actor, id, ['CT-RACE'])),
    );
    const state = data<{ expect_config: unknown; expect_config_version: number }>(
      await t.inject({ method: 'GET', url: '/api/devices/CT-RACE/config', token: a.token }),
    );
    expect(state.expect_config).toEqual({
      global: { apn: { name: 'race-apn' }, ntp: { server: 'ntp.race.example' } },
      mqtt: { client_id: 'race-client', username: 'race-user', keepalive: 321 },
      serial: { rs485: { baud: 19200 } },
    });
    expect(state.expect_config_version).toBe(patches.length);
    // Each apply produced its own version: 1..n, none reused.
    const versions = applied.map((r) => r.results[0]?.version).sort();
    expect(versions).toEqual(patches.map((_, i) => i + 1));
  });
});

describe('audit', () => {
  it('writes an audit row with every create, update and delete', async () => {
    const made = await t.inject({
      method: 'POST',
      url: '/api/config-templates',
      token: a.token,
      payload: { name: 'audited', config: { global: { apn: { name: 'cmnet' } } } },
    });
    expect(made.statusCode, made.body).toBe(200);
    const id = (made.json() as { data: { id: number } }).data.id;
    const upd = await t.inject({
      method: 'PUT',
      url: `/api/config-templates/${id}`,
      token: a.token,
      payload: { name: 'audited 2' },
    });
    expect(upd.statusCode, upd.body).toBe(200);
    const del = await t.inject({ method: 'DELETE', url: `/api/config-templates/${id}`, token: a.token });
    expect(del.statusCode, del.body).toBe(200);
    const rows = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.target, `config-template:${id}`));
    expect(rows.map((r) => [r.action, r.uid])).toEqual([
      ['config_template_create', a.uid],
      ['config_template_update', a.uid],
      ['config_template_delete', a.uid],
    ]);
  });
});
