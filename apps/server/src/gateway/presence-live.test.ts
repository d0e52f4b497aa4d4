import { sql } from 'drizzle-orm';
import type { IPublishPacket, Packet } from 'mqtt-packet';
import type { DeviceEvent } from '@cellhub/contract/realtime';
import { downTopic } from '@cellhub/contract/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from '../test/app';
import { createDevices, eventually, type TestDevice } from '../test/gateway-test-kit';
import { RawMqtt, type RawTarget, listenForRawDevices } from '../test/raw-mqtt';
import { PresenceWriter } from './presence-writer';

/**
 * Presence as the API sees it, with raw MQTT packets on every transport and version: a device is online for
 * commands from its CONNACK on (not once the batched online flag is written), and the browser stream learns of
 * presence from the `presence.changed` domain event only.
 */

type Transport = 'tcp' | 'ws';
type Version = 4 | 5;

let t: TestApp;
let at: Record<Transport, RawTarget>;
let owner: { token: string; uid: number };
const raws: RawMqtt[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  at = await listenForRawDevices(t.app);
  owner = await t.createUser();
});
afterAll(async () => {
  for (const r of raws) r.destroy();
  await t.close();
});

const track = (r: RawMqtt) => (raws.push(r), r);

/** Opens a connection, sends the device's CONNECT and waits for a CONNACK that accepts it. */
async function connect(
  transport: Transport,
  version: Version,
  d: TestDevice,
  over: Parameters<RawMqtt['connectPacket']>[1] = {},
): Promise<RawMqtt> {
  const raw = track(await RawMqtt.open(at[transport], version));
  raw.send(raw.connectPacket(d, over));
  const connack = await raw.next('connack');
  expect(version === 5 ? connack.reasonCode : connack.returnCode).toBe(0);
  return raw;
}

/** The PUBLISH packets received on a topic, once there are `n`. */
async function published(raw: RawMqtt, topic: string, n: number): Promise<IPublishPacket[]> {
  const on = (ps: Packet[]) =>
    ps.filter((p): p is IPublishPacket => p.cmd === 'publish' && p.topic === topic);
  await raw.until((ps) => on(ps).length >= n, `${n} messages on ${topic}`);
  return on(raw.packets);
}
const online = async (sn: string) =>
  (
    (await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token: owner.token })).json() as {
      data: { online: number };
    }
  ).data.online;
const command = (sn: string, data: string) =>
  t.inject({
    method: 'POST',
    url: `/api/devices/${sn}/commands`,
    token: owner.token,
    payload: { type: 'string', data },
  });

/** A normal DISCONNECT; done once the broker let the connection go (a WebSocket stream never says it closed). */
async function bye(raw: RawMqtt, sn: string): Promise<void> {
  raw.send(raw.version === 5 ? { cmd: 'disconnect', reasonCode: 0 } : { cmd: 'disconnect' });
  const clients = (t.app.broker.aedes as unknown as { clients: Record<string, unknown> }).clients;
  await eventually(async () => (clients[sn] === undefined ? true : undefined));
  raw.destroy();
}

const CASES: [Transport, Version][] = [
  ['tcp', 4],
  ['tcp', 5],
  ['ws', 4],
  ['ws', 5],
];

describe.each(CASES)('a device that just got its CONNACK (%s, MQTT %i)', (transport, version) => {
  let d: TestDevice;
  beforeAll(async () => {
    d = (await createDevices(t, owner.token, [`LIVE-${transport}-${version}`]))[0]!;
    // A kept session that holds the device's subscription, as a DTU that reconnects has.
    const first = await connect(transport, version, d, {
      clean: false,
      ...(version === 5 ? { properties: { sessionExpiryInterval: 3600 } } : {}),
    });
    first.send({
      cmd: 'subscribe',
      messageId: 1,
      subscriptions: [{ topic: `dev/${d.productKey}/${d.sn}/down/#`, qos: 1 }],
    });
    await first.next('suback');
    await eventually(async () => ((await online(d.sn)) === 1 ? true : undefined));
    await bye(first, d.sn);
    await eventually(async () => ((await online(d.sn)) === 0 ? true : undefined));
  });

  it('takes commands at once and 20 ms later, and gets both', async () => {
    const raw = await connect(transport, version, d, {
      clean: false,
      ...(version === 5 ? { properties: { sessionExpiryInterval: 3600 } } : {}),
    });
    // The batched online flag is written PRESENCE_WINDOW_MS (20 ms) after the connect at the earliest.
    const atOnce = command(d.sn, 'at-once');
    const later = new Promise((r) => setTimeout(r, 20)).then(() => command(d.sn, 'after-20ms'));
    const answers = await Promise.all([atOnce, later]);
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    const ids = answers.map((res) => (res.json() as { data: { id: string; status: string } }).data.id);
    const got = await published(raw, downTopic(d.productKey, d.sn, 'cmd'), 2);
    expect(got).toHaveLength(2);
    expect(new Set(got.map((p) => (JSON.parse(p.payload.toString()) as { id: string }).id))).toEqual(
      new Set(ids),
    );
    await bye(raw, d.sn);
  });

  it('is refused (20401) once its connection closed, before the offline flag is written', async () => {
    const raw = await connect(transport, version, d);
    await eventually(async () => ((await online(d.sn)) === 1 ? true : undefined));
    await bye(raw, d.sn);
    const res = await command(d.sn, 'too-late');
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe(20401);
    await eventually(async () => ((await online(d.sn)) === 0 ? true : undefined));
  });
});

describe('the browser stream of presence', () => {
  it('carries one device.online per change, made from presence.changed, with the reason of an offline', async () => {
    const d = (await createDevices(t, owner.token, ['LIVE-EV']))[0]!;
    const browser: string[] = [];
    const domain: string[] = [];
    const offBrowser = t.app.deps.events.subscribe((e: DeviceEvent) => {
      if (e.type === 'device.online' && e.sn === d.sn) browser.push(`${e.online}:${e.reason ?? ''}`);
    });
    const offDomain = t.app.deps.events.on('presence.changed', (e) => {
      if (e.device.sn === d.sn) domain.push(`${e.online}:${e.reason ?? ''}`);
    });
    try {
      const raw = await connect('tcp', 4, d);
      await eventually(async () => (browser.length === 1 ? true : undefined));
      await bye(raw, d.sn);
      await eventually(async () => (browser.length === 2 ? true : undefined));
      // A takeover: the first connection's end keeps the device online and says nothing.
      const a = await connect('tcp', 4, d);
      const b = await connect('tcp', 4, d);
      await a.closed;
      await bye(b, d.sn);
      await eventually(async () => (browser.length === 5 ? true : undefined));
      expect(browser).toEqual(['1:', '0:client close', '1:', '1:', '0:client close']);
      expect(domain).toEqual(browser);
    } finally {
      offBrowser();
      offDomain();
    }
  });
});

describe('the holder of a connection', () => {
  it('is the only one whose late disconnect sets the device offline', async () => {
    const d = (await createDevices(t, owner.token, ['LIVE-MOVE']))[0]!;
    const ref = (await t.app.gateway.auth.get(d.sn))!;
    // Two instances' writers: the device connected to A, then to B before A noticed it gone.
    const a = new PresenceWriter(t.app.deps);
    a.holder = 'instance-a';
    const b = new PresenceWriter(t.app.deps);
    b.holder = 'instance-b';
    await a.online(ref, { ip: '', protocol: 'mqtt/4', keepalive: 30 });
    await b.online(ref, { ip: '', protocol: 'mqtt/4', keepalive: 30 });
    expect(await a.offline(ref, 'keep-alive timeout', true)).toBe(false);
    expect(await online(d.sn)).toBe(1);
    expect(await b.offline(ref, 'client close', true)).toBe(true);
    expect(await online(d.sn)).toBe(0);
  });

  it('writes its connections online again after others swept them while its heartbeat had stopped', async () => {
    const d = (await createDevices(t, owner.token, ['LIVE-REVIVE']))[0]!;
    const raw = await connect('tcp', 4, d);
    await eventually(async () => ((await online(d.sn)) === 1 ? true : undefined));
    // What another instance's sweep does to the devices of an instance it takes for gone.
    await t.app.deps.db.execute(sql`
      with gone as (delete from device_connections c using devices d
        where c.device_id = d.id and d.sn = ${d.sn} returning d.id)
      update devices set online = 0 where id in (select id from gone)`);
    expect(await online(d.sn)).toBe(0);
    // The next heartbeat comes long after the previous one.
    t.clock.advance(t.app.gateway.keeper.options.instanceTimeoutMs + 1000);
    await t.app.gateway.keeper.runNow();
    await eventually(async () => ((await online(d.sn)) === 1 ? true : undefined));
    await bye(raw, d.sn);
  });
});
