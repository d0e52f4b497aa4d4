import { sql } from 'drizzle-orm';
import type { Packet } from 'mqtt-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downTopic } from '@cellhub/contract/protocol';
import { buildTestApp, type TestApp } from '../test/app';
import { createDevices, eventually, type TestDevice, up } from '../test/gateway-test-kit';
import { type BrokerAddress, RawDevice, type Transport, type Version } from '../test/raw-device';
import { BrokerSessions } from './broker-sessions';

// Raw packets, MQTT 3.1.1 and 5.0, over TCP and the /mqtt WebSocket: QoS 2 exactly once, Session Present for kept
// sessions, MQTT 5.0 session lifetimes, the configuration a subscribing device gets (issue 12).

let t: TestApp;
let at: BrokerAddress;
let owner: { token: string; uid: number };
let sessions: BrokerSessions;
/** Every uplink the adapter handed to the gateway: sn, kind, payload. */
const handed: { sn: string; kind: string; payload: string }[] = [];
const raws: RawDevice[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  at = { mqttPort: t.app.broker.port!, httpPort: (t.app.server.address() as { port: number }).port };
  owner = await t.createUser();
  sessions = BrokerSessions.of(t.app.broker.aedes!)!;
  const gateway = t.app.gateway;
  const uplink = gateway.uplink.bind(gateway);
  gateway.uplink = (device, kind, payload, meta) => {
    handed.push({ sn: device.sn, kind, payload: payload.toString() });
    return uplink(device, kind, payload, meta);
  };
});
afterAll(async () => {
  for (const r of raws) r.destroy();
  await t.close();
});

let serial = 0;
const device = async () => (await createDevices(t, owner.token, [`BS-${++serial}`]))[0]!;
const open = async (
  d: TestDevice,
  transport: Transport,
  version: Version,
  over: Parameters<typeof RawDevice.connect>[4] = {},
) => {
  const raw = await RawDevice.connect(at, transport, version, d, over);
  raws.push(raw);
  return raw;
};
const get = async (path: string) => (await t.inject({ method: 'GET', url: path, token: owner.token })).json();
const online = async (sn: string) =>
  ((await get(`/api/devices/${sn}`)) as { data: { online: number } }).data.online;
const rows = async (sn: string, key: string) => {
  const res = await t.app.deps.db.execute(sql`
    select count(*)::int as n from device_properties p join devices d on d.id = p.device_id
    where d.sn = ${sn} and p.key = ${key}`);
  return (res as unknown as { rows: { n: number }[] }).rows[0]!.n;
};
const logs = async (sn: string, event: string) =>
  ((await get(`/api/devices/${sn}/logs?event=${event}&per_page=100`)) as { total: number }).total;
const handedTo = (sn: string, kind: string) => handed.filter((h) => h.sn === sn && h.kind === kind);

const publish = (
  topic: string,
  payload: unknown,
  qos: 0 | 1 | 2,
  messageId?: number,
  dup = false,
): Packet => ({
  cmd: 'publish',
  topic,
  payload: Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload)),
  qos,
  ...(qos > 0 ? { messageId } : {}),
  retain: false,
  dup,
});
const downAll = (d: TestDevice) => `dev/${d.productKey}/${d.sn}/down/#`;
/** A kept session: 3.1.1 clean 0, MQTT 5.0 Clean Start 0 with a Session Expiry Interval. */
const keep = (version: Version, expiry = 600) =>
  version === 5 ? { clean: false, properties: { sessionExpiryInterval: expiry } } : { clean: false };

async function subscribe(raw: RawDevice, filter: string, messageId = 1): Promise<void> {
  raw.send({ cmd: 'subscribe', messageId, subscriptions: [{ topic: filter, qos: 1 }] });
  const suback = await raw.next('suback');
  expect(suback.granted).toEqual([1]);
}

/** Sends a command to an online device; the device's raw connection receives it (and acknowledges it). */
async function command(d: TestDevice, raw: RawDevice, data: string): Promise<string> {
  await eventually(async () => ((await online(d.sn)) === 1 ? true : undefined));
  const sent = await t.inject({
    method: 'POST',
    url: `/api/devices/${d.sn}/commands`,
    token: owner.token,
    payload: { type: 'string', data },
  });
  expect(sent.statusCode).toBe(200);
  const id = (sent.json() as { data: { id: string } }).data.id;
  const p = await raw.next('publish');
  expect(p.topic).toBe(downTopic(d.productKey, d.sn, 'cmd'));
  expect(JSON.parse(p.payload.toString())).toMatchObject({ id, data });
  if (p.qos > 0) raw.send({ cmd: 'puback', messageId: p.messageId });
  return id;
}

const combos: [Version, Transport][] = [
  [4, 'tcp'],
  [4, 'ws'],
  [5, 'tcp'],
  [5, 'ws'],
];

describe.each(combos)('QoS 2 exactly once, MQTT %s over %s', (version, transport) => {
  it('hands a PUBLISH resent with DUP before its PUBREL to the gateway once, and answers every copy with PUBREC', async () => {
    const d = await device();
    const raw = await open(d, transport, version);
    await raw.connack();
    await subscribe(raw, downAll(d));

    // A property message, and its copy resent at once with DUP (one write: they reach the broker together).
    const property = { params: { q2: 1 } };
    raw.send(publish(up(d, 'property'), property, 2, 7), publish(up(d, 'property'), property, 2, 7, true));
    expect((await raw.next('pubrec')).messageId).toBe(7);
    expect((await raw.next('pubrec')).messageId).toBe(7);
    // A third copy after the PUBREC (the device missed it), still before the PUBREL.
    raw.send(publish(up(d, 'property'), property, 2, 7, true));
    expect((await raw.next('pubrec')).messageId).toBe(7);
    raw.send({ cmd: 'pubrel', messageId: 7 });
    expect((await raw.next('pubcomp')).messageId).toBe(7);
    expect(await rows(d.sn, 'q2')).toBe(1);
    expect(handedTo(d.sn, 'property')).toHaveLength(1);

    // The PUBREL released id 7: a new message may use it and is stored.
    raw.send(publish(up(d, 'property'), { params: { q2: 2 } }, 2, 7));
    expect((await raw.next('pubrec')).messageId).toBe(7);
    raw.send({ cmd: 'pubrel', messageId: 7 });
    await raw.next('pubcomp');
    expect(await rows(d.sn, 'q2')).toBe(2);

    // A command reply and an OTA report, each sent twice with the same packet id.
    const id = await command(d, raw, 'AT+CSQ');
    const reply = { id, code: 0, data: 'OK' };
    raw.send(publish(up(d, 'cmd_reply'), reply, 2, 8), publish(up(d, 'cmd_reply'), reply, 2, 8, true));
    await raw.next('pubrec');
    await raw.next('pubrec');
    const reports = t.app.ota.stats.reports;
    const report = { id: 'upgrade-of-nobody', status: 1 };
    raw.send(publish(up(d, 'ota'), report, 2, 9), publish(up(d, 'ota'), report, 2, 9, true));
    await raw.next('pubrec');
    await raw.next('pubrec');
    raw.send({ cmd: 'pubrel', messageId: 8 }, { cmd: 'pubrel', messageId: 9 });
    await raw.next('pubcomp');
    await raw.next('pubcomp');
    expect(handedTo(d.sn, 'cmd_reply')).toHaveLength(1);
    expect(handedTo(d.sn, 'ota')).toHaveLength(1);
    // The PUBREC came after the gateway handled the message: the reply is stored once (a second one would be
    // refused as a reply to an unknown command, and counted), the report reached the OTA engine once.
    expect(await logs(d.sn, 'command_reply')).toBe(1);
    expect(t.app.ota.stats.reports - reports).toBe(1);
    await raw.disconnect();
  });

  it('hands a message resent after a reconnect to the session to the gateway once; the session is present', async () => {
    const d = await device();
    const first = await open(d, transport, version, keep(version));
    expect((await first.connack()).sessionPresent).toBe(false);
    first.send(publish(up(d, 'property'), { params: { again: 1 } }, 2, 21));
    await first.next('pubrec');
    // The connection drops before the device sent its PUBREL: the session holds nothing but that QoS 2 state.
    first.destroy();
    await first.closed;

    const second = await open(d, transport, version, keep(version));
    // MQTT-3.2.2-2: no subscriptions, only the unreleased message, and still Session Present 1.
    expect((await second.connack()).sessionPresent).toBe(true);
    second.send(publish(up(d, 'property'), { params: { again: 1 } }, 2, 21, true));
    expect((await second.next('pubrec')).messageId).toBe(21);
    second.send({ cmd: 'pubrel', messageId: 21 });
    expect((await second.next('pubcomp')).messageId).toBe(21);
    expect(await rows(d.sn, 'again')).toBe(1);
    expect(handedTo(d.sn, 'property')).toHaveLength(1);
    expect(sessions.stats.qos2Resent).toBeGreaterThan(0);
    await second.disconnect();
  });

  it('answers Session Present 1 for a kept session without subscriptions, 0 after a clean one', async () => {
    const d = await device();
    const connack = async (over: Parameters<typeof open>[3]) => {
      const raw = await open(d, transport, version, over);
      const c = await raw.connack();
      await raw.disconnect();
      return c.sessionPresent;
    };
    expect(await connack(keep(version))).toBe(false);
    expect(await connack(keep(version))).toBe(true);
    expect(await connack(keep(version))).toBe(true);
    expect(await connack({ clean: true })).toBe(false);
    // The clean session ended with its connection: nothing to resume.
    expect(await connack(keep(version))).toBe(false);
  });

  it('sends the desired configuration to a device that subscribes, without config_get', async () => {
    const d = await device();
    const config = { global: { apn: { name: `apn-${version}-${transport}` } } };
    const put = await t.inject({
      method: 'PUT',
      url: `/api/devices/${d.sn}/config`,
      token: owner.token,
      payload: { config },
    });
    expect(put.statusCode).toBe(200);
    const expectConfig = async (raw: RawDevice) => {
      const p = await raw.next('publish');
      expect(p.topic).toBe(downTopic(d.productKey, d.sn, 'config'));
      expect(JSON.parse(p.payload.toString())).toEqual({ version: 1, config });
      if (p.qos > 0) raw.send({ cmd: 'puback', messageId: p.messageId });
    };

    // A clean session: it comes once the device subscribed, never before.
    const clean = await open(d, transport, version);
    await clean.connack();
    await subscribe(clean, downAll(d));
    await expectConfig(clean);
    await clean.disconnect();

    // A kept session that holds no subscription: the same (sent at connect, it would reach nobody).
    const empty = await open(d, transport, version, keep(version));
    expect((await empty.connack()).sessionPresent).toBe(false);
    await empty.disconnect();
    const resumed = await open(d, transport, version, keep(version));
    expect((await resumed.connack()).sessionPresent).toBe(true);
    await subscribe(resumed, `dev/${d.productKey}/${d.sn}/down/config`);
    await expectConfig(resumed);
    await resumed.disconnect();

    // A kept session with its subscription: at connect, with no SUBSCRIBE.
    const kept = await open(d, transport, version, keep(version));
    expect((await kept.connack()).sessionPresent).toBe(true);
    await expectConfig(kept);
    // The device reports the version it runs: nothing more is sent.
    kept.send(publish(up(d, 'config'), { version: 1, config }, 1, 3));
    await kept.next('puback');
    await kept.disconnect();
  });
});

describe.each(['tcp', 'ws'] as const)('MQTT 5.0 session lifetimes over %s', (transport) => {
  it('resumes a session started with Clean Start 1 and an expiry, subscriptions included', async () => {
    const d = await device();
    const start = await open(d, transport, 5, { clean: true, properties: { sessionExpiryInterval: 600 } });
    expect((await start.connack()).sessionPresent).toBe(false);
    await subscribe(start, downAll(d));
    await start.disconnect();

    const resumed = await open(d, transport, 5, { clean: false, properties: { sessionExpiryInterval: 600 } });
    expect((await resumed.connack()).sessionPresent).toBe(true);
    // No SUBSCRIBE on this connection: the kept subscription delivers the command.
    await command(d, resumed, 'kept');
    await resumed.disconnect();
  });

  it('resumes the session with Clean Start 0 and expiry 0, which then ends with the connection', async () => {
    const d = await device();
    const start = await open(d, transport, 5, { clean: true, properties: { sessionExpiryInterval: 600 } });
    await start.connack();
    await subscribe(start, downAll(d));
    await start.disconnect();

    const resumed = await open(d, transport, 5, { clean: false });
    expect((await resumed.connack()).sessionPresent).toBe(true);
    await command(d, resumed, 'still here');
    await resumed.disconnect();
    await eventually(async () => (sessions.has(d.sn) ? undefined : true));

    const after = await open(d, transport, 5, { clean: false, properties: { sessionExpiryInterval: 600 } });
    expect((await after.connack()).sessionPresent).toBe(false);
    await after.disconnect();
  });

  it('ends a session once its Session Expiry Interval has passed', async () => {
    const d = await device();
    const start = await open(d, transport, 5, { clean: true, properties: { sessionExpiryInterval: 2 } });
    await start.connack();
    await subscribe(start, downAll(d));
    await start.disconnect();
    const closedAt = Date.now();
    // Kept after the connection ...
    expect(sessions.has(d.sn)).toBe(true);
    // ... until the interval has passed.
    await eventually(async () => (sessions.has(d.sn) ? undefined : true), 20_000);
    expect(Date.now() - closedAt).toBeGreaterThanOrEqual(1500);
    const after = await open(d, transport, 5, { clean: false, properties: { sessionExpiryInterval: 600 } });
    expect((await after.connack()).sessionPresent).toBe(false);
    await after.disconnect();
  });
});

describe('sessions across a takeover', () => {
  it('keeps the session a new connection takes over, whatever the old connection would have done with it', async () => {
    const d = await device();
    const start = await open(d, 'tcp', 5, { clean: true, properties: { sessionExpiryInterval: 600 } });
    await start.connack();
    await subscribe(start, downAll(d));
    await start.disconnect();
    // The old connection resumed it with expiry 0: the session would end with it ...
    const old = await open(d, 'tcp', 5, { clean: false });
    expect((await old.connack()).sessionPresent).toBe(true);
    // ... but a new one takes over before that (3.1.1 this time, clean 0).
    const next = await open(d, 'tcp', 4, { clean: false });
    expect((await next.connack()).sessionPresent).toBe(true);
    expect((await old.next('disconnect')).reasonCode).toBe(0x8e);
    await command(d, next, 'after takeover');
    await next.disconnect();
    expect(sessions.has(d.sn)).toBe(true);
  });
});
