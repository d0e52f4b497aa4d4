// The client against a real Cellhub server over HTTP: the server is built in-process on its own database (PGlite,
// or PostgreSQL with TEST_DB=postgres) by the server's test harness and listens on a free port; the devices are MQTT
// clients of its embedded broker. Keys are created and verified the way a person does it in the console (session
// token, SMS code); everything after that goes through @cellhub/client only.
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downTopic } from '@cellhub/contract/protocol';
import { buildTestApp, type TestApp } from '../../../apps/server/src/test/app';
import {
  connectDevice,
  createDevices,
  eventually,
  type TestDevice,
  up,
} from '../../../apps/server/src/test/gateway-test-kit';
import { CellhubError, type CellhubClient, createClient } from './index';

const PHONE = '13800138111';

let t: TestApp;
let baseUrl: string;
let owner: { uid: number; token: string };
let devices: TestDevice[];
let control: CellhubClient;
let readOnly: CellhubClient;
let rw: { access_key: string; secret: string };
const mqttClients: MqttClient[] = [];

async function api<T>(method: 'GET' | 'POST' | 'PUT', url: string, payload?: object): Promise<T> {
  const res = await t.inject({ method, url, token: owner.token, ...(payload ? { payload } : {}) });
  if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: T }).data;
}

/** What a person does in the console: create a key (the secret is shown once), then confirm it with an SMS code. */
async function verifiedKey(name: string, scopes: string[]): Promise<{ access_key: string; secret: string }> {
  const key = await api<{ access_key: string; secret: string; verified: boolean }>(
    'POST',
    '/api/access-keys',
    {
      name,
      scopes,
    },
  );
  expect(key.verified).toBe(false);
  await api('POST', `/api/access-keys/${key.access_key}/verify-code`, { channel: 'sms' });
  const code = t.sms.lastCode(PHONE);
  expect(code).toMatch(/^\d{6}$/);
  await api('POST', `/api/access-keys/${key.access_key}/verify`, { code });
  return key;
}

beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  owner = await t.createUser();
  // A phone, through the real SMS code path, so keys can be verified by SMS.
  await api('POST', '/api/user/smscode', { phone: PHONE, purpose: 'change_phone' });
  await api('PUT', '/api/user/phone', { phone: PHONE, captcha: t.sms.lastCode(PHONE) });
  devices = await createDevices(t, owner.token, ['CLIENT-1', 'CLIENT-2']);
  // Someone else's device, which no key of the owner may see.
  const stranger = await t.createUser();
  await createDevices(t, stranger.token, ['CLIENT-X']);

  rw = await verifiedKey('integration', ['devices:read', 'devices:control']);
  control = createClient({ baseUrl, accessKey: rw.access_key, secret: rw.secret });
  const ro = await verifiedKey('read only', ['devices:read']);
  readOnly = createClient({ baseUrl, accessKey: ro.access_key, secret: ro.secret });
});

afterAll(async () => {
  await Promise.all(mqttClients.map((c) => c.endAsync(true).catch(() => undefined)));
  await t?.close();
});

async function online(d: TestDevice): Promise<MqttClient> {
  const client = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, d);
  mqttClients.push(client);
  await eventually(async () => ((await control.getDevice(d.sn)).online === 1 ? true : undefined));
  return client;
}

describe('@cellhub/client against a running server', () => {
  it('lists the devices of the key owner, with query parameters signed', async () => {
    const all = await control.listDevices({ per_page: 50 });
    expect(all.status).toBe(true);
    expect(all.data.map((d) => d.sn).sort()).toEqual(['CLIENT-1', 'CLIENT-2']);
    expect(all.total).toBe(2);

    const one = await control.listDevices({ keyword: 'CLIENT-2', current: 1, per_page: 10 });
    expect(one.data.map((d) => d.sn)).toEqual(['CLIENT-2']);

    // The generic typed request reaches the same routes.
    const detail = await readOnly.request('get', '/api/devices/{sn}', {
      params: { path: { sn: 'CLIENT-1' } },
    });
    expect(detail.data.sn).toBe('CLIENT-1');
  });

  it('reads properties: none before a report, the reported values after one', async () => {
    const d = devices[0]!;
    expect((await readOnly.getDeviceProperties(d.sn)).data).toEqual([]);

    const mqtt = await online(d);
    await mqtt.publishAsync(up(d, 'property'), JSON.stringify({ params: { temp: 21.5, door: 'open' } }), {
      qos: 1,
    });
    const latest = await eventually(async () => {
      const { data } = await readOnly.getDeviceProperties(d.sn);
      return data.length === 2 ? data : undefined;
    });
    expect(Object.fromEntries(latest.map((p) => [p.key, p.value]))).toEqual({ temp: 21.5, door: 'open' });

    const history = await readOnly.getDeviceProperties(d.sn, { key: 'temp' });
    expect(history.data.map((p) => p.value)).toEqual([21.5]);
  });

  it('sends a command that the device answers, and reads the reply', async () => {
    const d = devices[1]!;
    const mqtt = await online(d);
    const cmdTopic = downTopic(d.productKey, d.sn, 'cmd');
    await mqtt.subscribeAsync(cmdTopic, { qos: 1 });
    const received: string[] = [];
    mqtt.on('message', (topic, payload) => {
      if (topic !== cmdTopic) return;
      const cmd = JSON.parse(payload.toString()) as { id: string; data: string };
      received.push(cmd.data);
      void mqtt.publishAsync(
        up(d, 'cmd_reply'),
        JSON.stringify({ id: cmd.id, code: 0, data: `did ${cmd.data}` }),
        {
          qos: 1,
        },
      );
    });

    const sent = await control.sendCommand(d.sn, { type: 'string', data: 'reboot' });
    expect(sent).toMatchObject({ sn: d.sn, type: 'string', data: 'reboot' });
    const replied = await eventually(async () => {
      const { data } = await readOnly.listCommands(d.sn);
      const c = data.find((x) => x.id === sent.id);
      return c?.status === 'replied' ? c : undefined;
    });
    expect(replied).toMatchObject({ code: 0, reply: 'did reboot' });
    expect(received).toEqual(['reboot']);
  });

  it('surfaces refusals as CellhubError with the server code', async () => {
    // A key without devices:control may not send commands.
    const refused = await readOnly
      .sendCommand(devices[1]!.sn, { type: 'string', data: 'reboot' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CellhubError);
    expect(refused).toMatchObject({ code: 10227, status: 400 });

    // The right key with a wrong secret: the signature does not match.
    const key = (await api<{ access_key: string }[]>('GET', '/api/access-keys'))[0]!;
    const wrong = createClient({
      baseUrl,
      accessKey: key.access_key,
      secret: 'not-the-secret-0123456789abcdef',
    });
    await expect(wrong.listDevices()).rejects.toMatchObject({
      name: 'CellhubError',
      code: 10221,
      status: 403,
    });

    // A key that does not exist.
    const unknown = createClient({ baseUrl, accessKey: 'AKAAAAAAAAAAAAAAAAAAAA', secret: 'x'.repeat(32) });
    await expect(unknown.listDevices()).rejects.toMatchObject({ code: 10220, status: 403 });

    // A key not yet confirmed by its code.
    const fresh = await api<{ access_key: string; secret: string }>('POST', '/api/access-keys', {
      name: 'unverified',
      scopes: ['devices:read'],
    });
    const unverified = createClient({ baseUrl, accessKey: fresh.access_key, secret: fresh.secret });
    await expect(unverified.listDevices()).rejects.toMatchObject({ code: 10226, status: 403 });

    // A clock ten minutes behind the server's.
    const late = createClient({
      baseUrl,
      accessKey: rw.access_key,
      secret: rw.secret,
      now: () => Math.floor(t.clock.now().getTime() / 1000) - 600,
    });
    await expect(late.listDevices()).rejects.toMatchObject({ code: 10222, status: 403 });

    // Someone else's device answers like one that does not exist.
    const other = await control.getDevice('CLIENT-X').catch((e: unknown) => e);
    expect(other).toBeInstanceOf(CellhubError);
    expect((other as CellhubError).status).toBe(400);
  });
});
