import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceEventItem, ThingModel } from '@cellhub/contract/thing-model';
import { VirtualDevice } from '../../../../devsim/src/device';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { connectDevice, createDevices, eventually, type TestDevice, up } from '../../test/gateway-test-kit';
import { listenUrl, signedInSocket, type TestSocket } from '../../test/ws-test-client';

/**
 * `P/up/event` end to end (docs/device-protocol.md): a real MQTT client on the embedded broker publishes, the event
 * is checked against the product's thing model, stored, pushed to the sockets that may see the device and listed by
 * `GET /api/devices/:sn/events`; what the model does not allow is dropped and counted as invalid.
 */
let t: TestApp;
let owner: { uid: number; token: string; username: string };
let viewer: { uid: number; token: string; username: string };
let stranger: { uid: number; token: string; username: string };
let dev: TestDevice;
let bare: TestDevice;
let client: MqttClient;
let bareClient: MqttClient;
let wsUrl: string;
const sockets: TestSocket[] = [];

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;
const get = (url: string, token: string) => t.inject({ method: 'GET', url, token });
const events = async (token: string, q = '') =>
  data<DeviceEventItem[]>(await get(`/api/devices/${dev.sn}/events${q}`, token));
const publish = (c: MqttClient, d: TestDevice, payload: string | Buffer) =>
  c.publishAsync(up(d, 'event'), payload, { qos: 1 });

async function dropsOf(sn: string, reason: string, atLeast: number): Promise<number> {
  return eventually(async () => {
    const r = data<{ reasons: { reason: string; count: number }[] }>(
      await get(`/api/devices/${sn}/drops`, owner.token),
    );
    const n = r.reasons.find((x) => x.reason === reason)?.count ?? 0;
    return n >= atLeast ? n : undefined;
  }, 10_000);
}

beforeAll(async () => {
  t = await buildTestApp();
  const admin = await t.adminToken();
  owner = await t.createUser();
  viewer = await t.createUser();
  stranger = await t.createUser();
  dev = (await createDevices(t, owner.token, ['EVT001']))[0]!;
  bare = (await createDevices(t, owner.token, ['EVT002'], { name: 'No model' }))[0]!;
  const put = await t.inject({
    method: 'PUT',
    url: `/api/thing-models/${dev.productKey}`,
    token: admin,
    payload: {
      properties: [{ key: 'temp', name: '温度', unit: '°C', datatype: 'number' }],
      events: [
        {
          key: 'overheat',
          name: '过热',
          name_us: 'Overheat',
          level: 'error',
          output: [
            { key: 'temp', name: '温度', datatype: 'float', unit: '°C' },
            { key: 'zone', name: '区域', datatype: 'int' },
            { key: 'note', name: '备注', datatype: 'string' },
            { key: 'ok', name: '恢复', datatype: 'bool' },
          ],
        },
        { key: 'boot', name: '启动', level: 'info', output: [] },
      ],
      services: [{ key: 'reboot', name: '重启' }],
    },
  });
  expect(put.statusCode).toBe(200);
  const shared = await t.inject({
    method: 'POST',
    url: '/api/shares',
    token: owner.token,
    payload: { sns: [dev.sn], to: viewer.username, right: 'view' },
  });
  expect(shared.statusCode).toBe(200);
  const url = `mqtt://127.0.0.1:${t.app.broker.port}`;
  client = await connectDevice(url, dev);
  bareClient = await connectDevice(url, bare);
  wsUrl = await listenUrl(t.app);
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await client?.endAsync(true);
  await bareClient?.endAsync(true);
  await t.close();
});

describe('P/up/event', () => {
  it('stores a valid event with its level and pushes it to the owner and a view share', async () => {
    const ownerWs = await signedInSocket(wsUrl, owner.token);
    const viewerWs = await signedInSocket(wsUrl, viewer.token);
    const strangerWs = await signedInSocket(wsUrl, stranger.token);
    sockets.push(ownerWs, viewerWs, strangerWs);
    const ts = Date.UTC(2026, 0, 2, 3, 4, 5);
    await publish(client, dev, JSON.stringify({ event: 'overheat', params: { temp: 81.5, zone: 2 }, ts }));

    // The PUBACK came once the row was stored.
    const list = await events(owner.token);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      event: 'overheat',
      name: '过热',
      name_us: 'Overheat',
      level: 'error',
      params: { temp: 81.5, zone: 2 },
      ts: new Date(ts).toISOString(),
    });
    const isEvent = (m: { event: { type: string; sn: string } }) =>
      m.event.type === 'device.event' && m.event.sn === dev.sn;
    for (const ws of [ownerWs, viewerWs]) {
      const m = await ws.next('event', isEvent);
      expect(m.event).toMatchObject({
        type: 'device.event',
        event: 'overheat',
        level: 'error',
        id: list[0]!.id,
      });
    }
    // The stranger's socket got everything up to its ping answer, and no event of this device.
    strangerWs.send({ type: 'ping', id: 7 });
    await strangerWs.next('pong', (m) => m.id === 7);
    expect(strangerWs.messages.some((m) => m.type === 'event' && isEvent(m))).toBe(false);
  });

  it('uses server time without ts and keeps broken UTF-8 as replacement characters', async () => {
    const before = Date.now();
    await publish(
      client,
      dev,
      Buffer.concat([
        Buffer.from('{"event":"overheat","params":{"note":"a'),
        Buffer.from([0xff, 0xc3]),
        Buffer.from('b","ok":true}}'),
      ]),
    );
    const [latest] = await events(owner.token, '?event=overheat&per_page=1');
    expect(latest!.params).toEqual({ note: 'a\ufffd\ufffdb', ok: true });
    expect(Date.parse(latest!.ts)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('drops and counts as invalid: unknown event, bad params, NUL, lone surrogates, not JSON', async () => {
    const stored = (await events(owner.token, '?per_page=100')).length;
    const bad = [
      JSON.stringify({ event: 'meltdown', params: {} }),
      JSON.stringify({ event: 'overheat', params: { temp: 'hot' } }),
      JSON.stringify({ event: 'overheat', params: { zone: 1.5 } }),
      JSON.stringify({ event: 'overheat', params: { unknown: 1 } }),
      '{"event":"overheat","params":{"temp":1e400}}',
      JSON.stringify({ event: 'boot', params: { x: 1 } }),
      JSON.stringify({ event: 'overheat', params: { note: 'a\u0000b' } }),
      '{"event":"overheat","params":{"note":"\\ud800"}}',
      '{"event":"over\\u0000heat"}',
      JSON.stringify({ event: 'overheat', ts: 1_700_000_000 }),
      JSON.stringify({ event: 'overheat', extra: 1 }),
      JSON.stringify([1, 2]),
    ];
    for (const p of bad) await publish(client, dev, p);
    await publish(client, dev, 'not json');
    await dropsOf(dev.sn, 'invalid', bad.length);
    await dropsOf(dev.sn, 'not_json', 1);
    expect(await events(owner.token, '?per_page=100')).toHaveLength(stored);
    // The connection stays up and the next valid event is stored.
    await publish(client, dev, JSON.stringify({ event: 'boot' }));
    expect((await events(owner.token, '?event=boot')).map((e) => e.event)).toEqual(['boot']);
  });

  it('refuses every event of a product whose thing model defines none', async () => {
    await publish(bareClient, bare, JSON.stringify({ event: 'boot' }));
    await dropsOf(bare.sn, 'invalid', 1);
    expect(data<unknown[]>(await get(`/api/devices/${bare.sn}/events`, owner.token))).toEqual([]);
  });
});

describe('devsim', () => {
  it('sends an event the model defines with VirtualDevice.sendEvent, stored once acknowledged', async () => {
    const sim = new VirtualDevice(
      { sn: dev.sn, product_key: dev.productKey, secret: dev.secret },
      { url: `mqtt://127.0.0.1:${t.app.broker.port}`, configGet: false },
    );
    try {
      await sim.connect();
      await sim.sendEvent('overheat', { temp: 66.5, note: '模拟' });
      const [latest] = await events(owner.token, '?per_page=1');
      expect(latest).toMatchObject({
        event: 'overheat',
        params: { temp: 66.5, note: '模拟' },
        level: 'error',
      });
    } finally {
      await sim.close();
    }
  });
});

describe('GET /api/devices/:sn/events and /thing-model', () => {
  it('filters by event and time range and pages', async () => {
    const all = await events(owner.token, '?per_page=100');
    expect(all.length).toBeGreaterThanOrEqual(3);
    const res = await get(`/api/devices/${dev.sn}/events?per_page=1&current=2`, owner.token);
    expect((res.json() as { total: number }).total).toBe(all.length);
    expect(data<DeviceEventItem[]>(res)[0]!.id).toBe(all[1]!.id);
    const ranged = await events(
      owner.token,
      `?from=${encodeURIComponent('2026-01-02T00:00:00Z')}&to=${encodeURIComponent('2026-01-03T00:00:00Z')}`,
    );
    expect(ranged.map((e) => e.event)).toEqual(['overheat']);
    expect(await events(owner.token, '?event=nothing')).toEqual([]);
    const bad = await get(
      `/api/devices/${dev.sn}/events?event=${encodeURIComponent('a\u0000')}`,
      owner.token,
    );
    expect(errorOf(bad).code).toBe(10113);
  });

  it('lets whoever may view the device read its events and model; a stranger gets 10117', async () => {
    expect((await events(viewer.token)).length).toBeGreaterThan(0);
    const model = data<ThingModel>(await get(`/api/devices/${dev.sn}/thing-model`, viewer.token));
    expect(model.product_key).toBe(dev.productKey);
    expect(model.events.map((e) => e.key)).toEqual(['overheat', 'boot']);
    expect(model.services.map((s) => s.key)).toEqual(['reboot']);
    expect(model.properties.map((p) => p.key)).toEqual(['temp']);
    // The product-level route stays admin-only.
    expect(errorOf(await get(`/api/thing-models/${dev.productKey}`, viewer.token)).code).toBe(10108);
    for (const path of ['events', 'thing-model']) {
      const r = await get(`/api/devices/${dev.sn}/${path}`, stranger.token);
      expect(errorOf(r).code).toBe(10117);
    }
  });
});
