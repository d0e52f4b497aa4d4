import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downTopic, upTopic } from '@cellhub/contract/protocol';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import {
  connectDevice,
  createDevices,
  eventually,
  nextMessage,
  type TestDevice,
} from '../../test/gateway-test-kit';

type Person = { uid: number; token: string; username: string };
interface Result {
  results: { sn: string; code: number; message: string }[];
  done: number;
  failed: number;
}

let t: TestApp;
let owner: Person;
/** The app and owner of the first describe, for the embedded broker's flows. */
const outer = {} as { t: TestApp; owner: Person };
let stranger: Person;
let admin: string;
let gw: TestDevice;
let gw2: TestDevice;
let subs: TestDevice[];
let direct: TestDevice;
let strangerGw: TestDevice;
let strangerSub: TestDevice;

const dataOf = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await t.createUser();
  stranger = await t.createUser();
  admin = await t.adminToken();
  outer.t = t;
  outer.owner = owner;
  const gws = await createDevices(t, owner.token, ['GR-GW-1', 'GR-GW-2'], {
    name: 'Gateway',
    nodetype: 'gateway',
  });
  gw = gws[0]!;
  gw2 = gws[1]!;
  subs = await createDevices(t, owner.token, ['GR-SUB-1', 'GR-SUB-2', 'GR-SUB-3'], {
    name: 'Sensor',
    nodetype: 'sub_device',
    properties: [{ key: 'temp', name: 'Temperature', datatype: 'number' }],
  });
  direct = (await createDevices(t, owner.token, ['GR-DIRECT-1'], { name: 'DTU' }))[0]!;
  strangerGw = (
    await createDevices(t, stranger.token, ['GR-XGW-1'], { name: 'X gw', nodetype: 'gateway' })
  )[0]!;
  strangerSub = (
    await createDevices(t, stranger.token, ['GR-XSUB-1'], {
      name: 'X sub',
      nodetype: 'sub_device',
    })
  )[0]!;
});
afterAll(() => t.close());

const create = (token: string, payload: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: '/api/gateway-rules', token, payload });
const bind = (token: string, id: number, sns: string[]) =>
  t.inject({
    method: 'POST',
    url: `/api/gateway-rules/${id}/bind`,
    token,
    payload: { sub_devices: sns.map((sn, i) => ({ sn, address: String(i + 1), name: `S${i + 1}` })) },
  });
const codes = (res: { json(): unknown }) =>
  Object.fromEntries(dataOf<Result>(res).results.map((r) => [r.sn, r.code]));

describe('gateway rules', () => {
  let ruleId: number;

  it('are owned by a gateway-type device only, one rule per gateway', async () => {
    expect(errorOf(await create(owner.token, { name: 'R', gateway_sn: direct.sn })).code).toBe(85002);
    expect(errorOf(await create(owner.token, { name: 'R', gateway_sn: subs[0]!.sn })).code).toBe(85002);
    const res = await create(owner.token, { name: 'Boiler room', gateway_sn: gw.sn });
    expect(res.statusCode).toBe(200);
    const rule = dataOf<{ id: number; gateway_sn: string; sub_devices: unknown[] }>(res);
    expect(rule).toMatchObject({ gateway_sn: gw.sn, sub_devices: [] });
    ruleId = rule.id;
    expect(errorOf(await create(owner.token, { name: 'Again', gateway_sn: gw.sn })).code).toBe(85003);
  });

  it('cannot be made on, read or changed by a stranger', async () => {
    expect(errorOf(await create(stranger.token, { name: 'Mine', gateway_sn: gw.sn })).code).toBe(10117);
    const get = await t.inject({ method: 'GET', url: `/api/gateway-rules/${ruleId}`, token: stranger.token });
    expect(errorOf(get).code).toBe(85001);
    expect(errorOf(await bind(stranger.token, ruleId, [strangerSub.sn])).code).toBe(85001);
    const del = await t.inject({
      method: 'DELETE',
      url: `/api/gateway-rules/${ruleId}`,
      token: stranger.token,
    });
    expect(errorOf(del).code).toBe(85001);
    const list = await t.inject({ method: 'GET', url: '/api/gateway-rules', token: stranger.token });
    expect(dataOf<unknown[]>(list)).toEqual([]);
  });

  it('bind sub_device-type devices of the gateway owner, each with its own result', async () => {
    const res = await bind(owner.token, ruleId, [
      subs[0]!.sn,
      direct.sn,
      strangerSub.sn,
      'GR-NONE',
      subs[1]!.sn,
    ]);
    expect(res.statusCode).toBe(200);
    expect(codes(res)).toEqual({
      [subs[0]!.sn]: 0,
      [direct.sn]: 85004,
      [strangerSub.sn]: 10117,
      'GR-NONE': 10117,
      [subs[1]!.sn]: 0,
    });
    expect(dataOf<Result>(res)).toMatchObject({ done: 2, failed: 3 });
    const detail = dataOf<{ sub_devices: { sn: string; address: string; name: string; online: number }[] }>(
      await t.inject({ method: 'GET', url: `/api/gateway-rules/${ruleId}`, token: owner.token }),
    );
    expect(detail.sub_devices.map((s) => [s.sn, s.address, s.name, s.online])).toEqual([
      [subs[0]!.sn, '1', 'S1', 0],
      [subs[1]!.sn, '5', 'S5', 0],
    ]);
  });

  it('keep a sub-device on one gateway at a time, and both ends with one owner', async () => {
    const other = dataOf<{ id: number }>(await create(owner.token, { name: 'Second', gateway_sn: gw2.sn }));
    expect(codes(await bind(owner.token, other.id, [subs[0]!.sn]))).toEqual({ [subs[0]!.sn]: 85005 });
    // The stranger's own gateway cannot take the owner's sub-device (not visible to them).
    const theirs = dataOf<{ id: number }>(
      await create(stranger.token, { name: 'X', gateway_sn: strangerGw.sn }),
    );
    expect(codes(await bind(stranger.token, theirs.id, [subs[2]!.sn]))).toEqual({ [subs[2]!.sn]: 10117 });
    // An admin sees both, but never joins two owners' devices.
    expect(codes(await bind(admin, theirs.id, [subs[2]!.sn]))).toEqual({ [subs[2]!.sn]: 85007 });
    expect(codes(await bind(admin, theirs.id, [strangerSub.sn]))).toEqual({ [strangerSub.sn]: 0 });
    // Binding one again updates its address and name.
    const again = await t.inject({
      method: 'POST',
      url: `/api/gateway-rules/${ruleId}/bind`,
      token: owner.token,
      payload: { sub_devices: [{ sn: subs[1]!.sn, address: '7', name: 'Pump' }] },
    });
    expect(codes(again)).toEqual({ [subs[1]!.sn]: 0 });
    // Again without address and name: they stay.
    const bare = await t.inject({
      method: 'POST',
      url: `/api/gateway-rules/${ruleId}/bind`,
      token: owner.token,
      payload: { sub_devices: [{ sn: subs[1]!.sn }] },
    });
    expect(codes(bare)).toEqual({ [subs[1]!.sn]: 0 });
    const kept = dataOf<{ sub_devices: { sn: string; address: string; name: string }[] }>(
      await t.inject({ method: 'GET', url: `/api/gateway-rules/${ruleId}`, token: owner.token }),
    );
    expect(kept.sub_devices.find((s) => s.sn === subs[1]!.sn)).toMatchObject({ address: '7', name: 'Pump' });
  });

  it('list with search and paging, and offer candidates for the pickers', async () => {
    const all = await t.inject({ method: 'GET', url: '/api/gateway-rules', token: owner.token });
    expect((all.json() as { total: number }).total).toBe(2);
    const found = await t.inject({
      method: 'GET',
      url: '/api/gateway-rules',
      token: owner.token,
      query: { keyword: 'boiler', per_page: '1' },
    });
    const items = dataOf<{ name: string; sub_device_count: number }[]>(found);
    expect(items).toEqual([expect.objectContaining({ name: 'Boiler room', sub_device_count: 2 })]);
    const byAdmin = await t.inject({ method: 'GET', url: '/api/gateway-rules', token: admin });
    expect((byAdmin.json() as { total: number }).total).toBe(3);
    const gws = await t.inject({
      method: 'GET',
      url: '/api/gateway-rules/candidates',
      token: owner.token,
      query: { nodetype: 'gateway' },
    });
    expect(dataOf<unknown[]>(gws)).toEqual([]);
    const free = await t.inject({
      method: 'GET',
      url: '/api/gateway-rules/candidates',
      token: owner.token,
      query: { nodetype: 'sub_device' },
    });
    expect(dataOf<{ sn: string }[]>(free).map((d) => d.sn)).toEqual([subs[2]!.sn]);
  });

  it('refuse bad input with a code, never a 500', async () => {
    const cases = [
      { method: 'POST' as const, url: '/api/gateway-rules', payload: { name: '', gateway_sn: gw.sn } },
      {
        method: 'POST' as const,
        url: '/api/gateway-rules',
        payload: { name: 'a\u0000b', gateway_sn: gw.sn },
      },
      {
        method: 'POST' as const,
        url: '/api/gateway-rules',
        payload: { name: 'x'.repeat(65), gateway_sn: gw.sn },
      },
      { method: 'POST' as const, url: '/api/gateway-rules', payload: { name: 'R', gateway_sn: 'bad sn' } },
      { method: 'POST' as const, url: `/api/gateway-rules/${ruleId}/bind`, payload: { sub_devices: [] } },
      {
        method: 'POST' as const,
        url: `/api/gateway-rules/${ruleId}/bind`,
        payload: { sub_devices: [{ sn: 'A', name: '\ud800' }] },
      },
      {
        method: 'POST' as const,
        url: `/api/gateway-rules/${ruleId}/bind`,
        payload: { sub_devices: Array.from({ length: 101 }, (_, i) => ({ sn: `S${i}` })) },
      },
      { method: 'POST' as const, url: `/api/gateway-rules/${ruleId}/unbind`, payload: { sns: ['a/b'] } },
      { method: 'GET' as const, url: '/api/gateway-rules/abc' },
      { method: 'GET' as const, url: '/api/gateway-rules/candidates?nodetype=direct' },
    ];
    for (const c of cases) {
      const res = await t.inject({ ...c, token: owner.token });
      expect(res.statusCode, JSON.stringify(c).slice(0, 120)).toBe(400);
      expect(errorOf(res).code).toBe(10113);
    }
    expect(errorOf(await bind(owner.token, 999_999, [subs[0]!.sn])).code).toBe(85001);
  });

  it('unbind with a result per sn, and delete with its sub-devices', async () => {
    const res = await t.inject({
      method: 'POST',
      url: `/api/gateway-rules/${ruleId}/unbind`,
      token: owner.token,
      payload: { sns: [subs[1]!.sn, subs[2]!.sn] },
    });
    expect(codes(res)).toEqual({ [subs[1]!.sn]: 0, [subs[2]!.sn]: 85006 });
    const other = dataOf<{ id: number }[]>(
      await t.inject({
        method: 'GET',
        url: '/api/gateway-rules',
        token: owner.token,
        query: { keyword: 'Second' },
      }),
    );
    const del = await t.inject({
      method: 'DELETE',
      url: `/api/gateway-rules/${other[0]!.id}`,
      token: owner.token,
    });
    expect(del.statusCode).toBe(200);
    const get = await t.inject({
      method: 'GET',
      url: `/api/gateway-rules/${other[0]!.id}`,
      token: owner.token,
    });
    expect(errorOf(get).code).toBe(85001);
  });
});

const MOSQUITTO_URL = process.env.TEST_MQTT_URL;
const modes = ['embedded', ...(MOSQUITTO_URL ? ['mosquitto'] : [])] as const;

describe.each(modes)('a gateway speaking for its sub-devices (%s broker)', (mode) => {
  // The embedded mode shares the app above; a shared Mosquitto gets an app of its own and names unique per run.
  let t: TestApp;
  let owner: Person;
  const tag = randomBytes(3).toString('hex');
  const sn = (name: string) => (mode === 'embedded' ? name : `${name}-${tag}`);
  const create = (token: string, payload: Record<string, unknown>) =>
    t.inject({ method: 'POST', url: '/api/gateway-rules', token, payload });
  const bind = (token: string, id: number, sns: string[]) =>
    t.inject({
      method: 'POST',
      url: `/api/gateway-rules/${id}/bind`,
      token,
      payload: { sub_devices: sns.map((s) => ({ sn: s })) },
    });
  /** Connects as the gateway; on an external broker its status message (and will) are all the server hears. */
  const connectGateway = async () => {
    const c = await connectDevice(url, flowGw, {
      will: {
        topic: upTopic(flowGw.productKey, flowGw.sn, 'status'),
        payload: Buffer.from('{"online":0}'),
        qos: 1,
        retain: false,
      },
    });
    await c.subscribeAsync(`dev/${flowGw.productKey}/${flowGw.sn}/down/#`, { qos: 1 });
    await c.publishAsync(upTopic(flowGw.productKey, flowGw.sn, 'status'), '{"online":1}', { qos: 1 });
    return c;
  };
  let url: string;
  let client: MqttClient;
  let ruleId: number;
  let flowGw: TestDevice;
  let flowSubs: TestDevice[];

  const device = async (sn: string) =>
    dataOf<{ online: number }>(
      await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token: owner.token }),
    );
  const online = (sn: string, want: number) =>
    eventually(async () => ((await device(sn)).online === want ? true : undefined));
  const publish = (kind: string, body: unknown) =>
    client.publishAsync(`dev/${flowGw.productKey}/${flowGw.sn}/up/${kind}`, JSON.stringify(body), { qos: 1 });

  beforeAll(async () => {
    if (mode === 'embedded') {
      t = outer.t;
      owner = outer.owner;
      url = `mqtt://127.0.0.1:${t.app.broker.port}`;
    } else {
      t = await buildTestApp({ config: { mqttUrl: MOSQUITTO_URL, mqttShareGroup: `test${tag}` } });
      owner = await t.createUser();
      url = MOSQUITTO_URL!;
      await eventually(async () => (t.app.broker.healthy() ? true : undefined));
    }
    flowGw = (
      await createDevices(t, owner.token, [sn('GF-GW-1')], {
        name: 'Flow gateway',
        nodetype: 'gateway',
      })
    )[0]!;
    flowSubs = await createDevices(t, owner.token, [sn('GF-SUB-1'), sn('GF-SUB-2'), sn('GF-SUB-9')], {
      name: 'Flow sensor',
      nodetype: 'sub_device',
      properties: [{ key: 'temp', name: 'Temperature', datatype: 'number' }],
    });
    ruleId = dataOf<{ id: number }>(await create(owner.token, { name: 'Flow', gateway_sn: flowGw.sn })).id;
    await bind(owner.token, ruleId, [flowSubs[0]!.sn, flowSubs[1]!.sn]);
    client = await connectGateway();
    await online(flowGw.sn, 1);
  });
  afterAll(async () => {
    await client?.endAsync(true).catch(() => undefined);
    if (mode !== 'embedded') await t?.close();
  });

  it('stores sub-device data as the sub-device\u2019s, answered to the gateway', async () => {
    const reply = nextMessage(client, downTopic(flowGw.productKey, flowGw.sn, 'property_reply'));
    await publish('sub_property', { sub: flowSubs[0]!.sn, id: 'm1', params: { temp: 21.5 } });
    expect(JSON.parse((await reply).toString())).toEqual({ id: 'm1', code: 0 });
    const props = dataOf<{ key: string; value: unknown }[]>(
      await t.inject({
        method: 'GET',
        url: `/api/devices/${flowSubs[0]!.sn}/properties`,
        token: owner.token,
      }),
    );
    expect(props).toEqual([expect.objectContaining({ key: 'temp', value: 21.5 })]);
    const gwProps = dataOf<unknown[]>(
      await t.inject({ method: 'GET', url: `/api/devices/${flowGw.sn}/properties`, token: owner.token }),
    );
    expect(gwProps).toEqual([]);
    // Data for a sub-device makes it online (through its gateway).
    await online(flowSubs[0]!.sn, 1);
  });

  it('applies the sub-device\u2019s thing model, and drops data for a device that is not its sub-device', async () => {
    const bad = nextMessage(client, downTopic(flowGw.productKey, flowGw.sn, 'property_reply'));
    await publish('sub_property', { sub: flowSubs[0]!.sn, id: 'm2', params: { nope: 1 } });
    expect(JSON.parse((await bad).toString())).toMatchObject({ id: 'm2', code: 70003 });
    const foreign = nextMessage(client, downTopic(flowGw.productKey, flowGw.sn, 'property_reply'));
    await publish('sub_property', { sub: flowSubs[2]!.sn, id: 'm3', params: { temp: 1 } });
    expect(JSON.parse((await foreign).toString())).toMatchObject({ id: 'm3', code: 85006 });
    const props = dataOf<unknown[]>(
      await t.inject({
        method: 'GET',
        url: `/api/devices/${flowSubs[2]!.sn}/properties`,
        token: owner.token,
      }),
    );
    expect(props).toEqual([]);
  });

  it('drops what a gateway sends for a disabled sub-device, and takes it offline', async () => {
    const sub = flowSubs[0]!;
    const off = await t.inject({
      method: 'PUT',
      url: `/api/devices/${sub.sn}`,
      token: owner.token,
      payload: { disabled: true },
    });
    expect(off.statusCode).toBe(200);
    await online(sub.sn, 0);
    const reply = nextMessage(client, downTopic(flowGw.productKey, flowGw.sn, 'property_reply'));
    await publish('sub_property', { sub: sub.sn, id: 'm4', params: { temp: 3 } });
    expect(JSON.parse((await reply).toString())).toMatchObject({ id: 'm4', code: 85010 });
    await t.inject({
      method: 'PUT',
      url: `/api/devices/${sub.sn}`,
      token: owner.token,
      payload: { disabled: false },
    });
    const back = nextMessage(client, downTopic(flowGw.productKey, flowGw.sn, 'property_reply'));
    await publish('sub_property', { sub: sub.sn, id: 'm5', params: { temp: 4 } });
    expect(JSON.parse((await back).toString())).toEqual({ id: 'm5', code: 0 });
    await online(sub.sn, 1);
  });

  it('keeps the presence the gateway reports for a sub-device', async () => {
    await publish('sub_status', { sub: flowSubs[1]!.sn, online: 1 });
    await online(flowSubs[1]!.sn, 1);
    await publish('sub_status', { sub: flowSubs[1]!.sn, online: 0 });
    await online(flowSubs[1]!.sn, 0);
    await publish('sub_status', { sub: flowSubs[1]!.sn, online: 1 });
    await online(flowSubs[1]!.sn, 1);
    const detail = dataOf<{ sub_devices: { sn: string; online: number }[] }>(
      await t.inject({ method: 'GET', url: `/api/gateway-rules/${ruleId}`, token: owner.token }),
    );
    expect(detail.sub_devices.map((s) => s.online)).toEqual([1, 1]);
  });

  it('routes a command through the gateway and matches its reply', async () => {
    const sub = flowSubs[0]!;
    const down = nextMessage(client, downTopic(flowGw.productKey, flowGw.sn, 'sub_cmd'));
    const sent = await t.inject({
      method: 'POST',
      url: `/api/devices/${sub.sn}/commands`,
      token: owner.token,
      payload: { type: 'hex', data: '010300000001840A' },
    });
    expect(sent.statusCode).toBe(200);
    const cmd = JSON.parse((await down).toString()) as {
      sub: string;
      id: string;
      type: string;
      data: string;
    };
    expect(cmd).toEqual({
      sub: sub.sn,
      id: dataOf<{ id: string }>(sent).id,
      type: 'hex',
      data: '010300000001840A',
    });
    await publish('sub_cmd_reply', { sub: sub.sn, id: cmd.id, code: 0, data: '0103020017F84A' });
    const replied = await eventually(async () => {
      const list = dataOf<{ id: string; status: string; reply: string | null }[]>(
        await t.inject({ method: 'GET', url: `/api/devices/${sub.sn}/commands`, token: owner.token }),
      );
      const c = list.find((x) => x.id === cmd.id);
      return c?.status === 'replied' ? c : undefined;
    });
    expect(replied.reply).toBe('0103020017F84A');
    const raw = nextMessage(client, downTopic(flowGw.productKey, flowGw.sn, 'sub_raw'));
    const rawSent = await t.inject({
      method: 'POST',
      url: `/api/devices/${sub.sn}/raw`,
      token: owner.token,
      payload: { data: 'A1B2' },
    });
    expect(rawSent.statusCode).toBe(200);
    expect(JSON.parse((await raw).toString())).toEqual({ sub: sub.sn, data: 'a1b2' });
  });

  it('stores raw bytes a gateway forwards as the sub-device\u2019s', async () => {
    const sub = flowSubs[0]!;
    await publish('sub_raw', { sub: sub.sn, data: '0102FF' });
    // The raw list also holds the downlink of the test before: wait for the uplink itself.
    const rows = await eventually(async () => {
      const list = dataOf<{ direction: string; data: string }[]>(
        await t.inject({ method: 'GET', url: `/api/devices/${sub.sn}/raw`, token: owner.token }),
      ).filter((r) => r.direction === 'up');
      return list.length > 0 ? list : undefined;
    });
    expect(rows.map((r) => Buffer.from(r.data, 'base64').toString('hex'))).toEqual(['0102ff']);
  });

  it('takes every sub-device offline with its gateway', async () => {
    await online(flowSubs[0]!.sn, 1);
    await online(flowSubs[1]!.sn, 1);
    await client.endAsync(true);
    await online(flowGw.sn, 0);
    await online(flowSubs[0]!.sn, 0);
    await online(flowSubs[1]!.sn, 0);
    const sent = await t.inject({
      method: 'POST',
      url: `/api/devices/${flowSubs[0]!.sn}/commands`,
      token: owner.token,
      payload: { type: 'string', data: 'x' },
    });
    expect(errorOf(sent).code).toBe(20401);
    // Back: sub-devices stay offline until the gateway speaks for them again.
    client = await connectGateway();
    await online(flowGw.sn, 1);
    expect((await device(flowSubs[0]!.sn)).online).toBe(0);
    await client.publishAsync(
      upTopic(flowGw.productKey, flowGw.sn, 'sub_status'),
      JSON.stringify({ sub: flowSubs[0]!.sn, online: 1 }),
      { qos: 1 },
    );
    await online(flowSubs[0]!.sn, 1);
  });

  it('takes an unbound sub-device offline and stops routing to it', async () => {
    const sub = flowSubs[0]!;
    await t.inject({
      method: 'POST',
      url: `/api/gateway-rules/${ruleId}/unbind`,
      token: owner.token,
      payload: { sns: [sub.sn] },
    });
    await online(sub.sn, 0);
    const sent = await t.inject({
      method: 'POST',
      url: `/api/devices/${sub.sn}/commands`,
      token: owner.token,
      payload: { type: 'string', data: 'x' },
    });
    expect(errorOf(sent).code).toBe(20401);
  });
});
