import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import mqttPacket, { type IConnectPacket, type Packet } from 'mqtt-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downTopic } from '@cellhub/contract/protocol';
import { buildTestApp, type TestApp } from '../../test/app';
import {
  connectDevice,
  createDevices,
  eventually,
  hmacPassword,
  nextMessage,
  type TestDevice,
  up,
} from '../../test/gateway-test-kit';
import { TOPIC_ALIAS_MAXIMUM } from './translate';

const run = promisify(execFile);

let t: TestApp;
let url: string;
let owner: { token: string; uid: number };
const clients: MqttClient[] = [];
const sockets: net.Socket[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  url = `mqtt://127.0.0.1:${t.app.broker.port}`;
  owner = await t.createUser();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
  for (const s of sockets) s.destroy();
  await t.close();
});

let serial = 0;
/** Fresh devices per test, so presence and logs of one test never leak into another. */
const devices = (n: number) =>
  createDevices(
    t,
    owner.token,
    Array.from({ length: n }, () => `V5-${++serial}`),
  );
const device = async () => (await devices(1))[0]!;

const v5 = (d: TestDevice, options: IClientOptions = {}) =>
  connectDevice(url, d, { protocolVersion: 5, ...options }).then((c) => (clients.push(c), c));
const track = (c: MqttClient) => (clients.push(c), c);
const get = async (path: string) => (await t.inject({ method: 'GET', url: path, token: owner.token })).json();
const logs = async (sn: string, event: string) =>
  ((await get(`/api/devices/${sn}/logs?event=${event}`)) as { data: { detail: Record<string, unknown> }[] })
    .data;
const refusedWith = (p: Promise<MqttClient>) =>
  p.then(
    async (c) => {
      await c.endAsync(true);
      return undefined;
    },
    (e: Error & { code?: number }) => e.code,
  );
const online = async (sn: string) =>
  ((await get(`/api/devices/${sn}`)) as { data: { online: number } }).data.online;
const disconnectReason = (sn: string) =>
  eventually(async () => {
    const l = await logs(sn, 'disconnect');
    return l[0]?.detail.reason as string | undefined;
  });
const downAll = (d: TestDevice) => `dev/${d.productKey}/${d.sn}/down/#`;
/** Connects over 5.0, subscribes to P/down/# and waits for the device row to say online (commands need it). */
async function v5Online(d: TestDevice, options: IClientOptions = {}): Promise<MqttClient> {
  const c = await v5(d, options);
  await c.subscribeAsync(downAll(d), { qos: 1 });
  await eventually(async () => ((await online(d.sn)) === 1 ? true : undefined));
  return c;
}

/** A bare MQTT 5.0 connection speaking packets, for what mqtt.js would not send or hides. */
class RawV5 {
  readonly packets: Packet[] = [];
  readonly closed: Promise<void>;
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: net.Socket) {
    const parser = mqttPacket.parser({ protocolVersion: 5 });
    parser.on('packet', (p: Packet) => {
      this.packets.push(p);
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on('data', (b) => parser.parse(b));
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  static async open(): Promise<RawV5> {
    const socket = net.connect(t.app.broker.port!, '127.0.0.1');
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    return new RawV5(socket);
  }

  static async connect(d: TestDevice, over: Partial<IConnectPacket> = {}): Promise<RawV5> {
    const raw = await RawV5.open();
    raw.send({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 5,
      clean: true,
      keepalive: 60,
      clientId: d.sn,
      username: d.sn,
      password: Buffer.from(d.secret),
      ...over,
    });
    return raw;
  }

  send(p: Packet): void {
    this.socket.write(mqttPacket.generate(p, { protocolVersion: 5 }));
  }

  /** The next packet of a kind not yet taken. */
  async next<C extends Packet['cmd']>(cmd: C, timeoutMs = 5000): Promise<Extract<Packet, { cmd: C }>> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const i = this.packets.findIndex((p) => p.cmd === cmd);
      if (i >= 0) return this.packets.splice(i, 1)[0] as Extract<Packet, { cmd: C }>;
      const left = end - Date.now();
      if (left <= 0) throw new Error(`no ${cmd} packet (got ${this.packets.map((p) => p.cmd).join(',')})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

describe('CONNECT over MQTT 5.0', () => {
  it('accepts the plain secret and an hmac password, marks the device online and logs protocol mqtt/5', async () => {
    const [a, b] = await devices(2);
    const c = await v5(a!);
    expect(c.connected).toBe(true);
    await eventually(async () => ((await online(a!.sn)) === 1 ? true : undefined));
    const h = await v5(b!, { password: hmacPassword(b!, t.clock.now().getTime()) });
    expect(h.connected).toBe(true);
    const connects = await eventually(async () => {
      const l = await logs(a!.sn, 'connect');
      return l.length ? l : undefined;
    });
    expect(connects[0]!.detail).toMatchObject({ ip: '127.0.0.1', protocol: 'mqtt/5' });
    await Promise.all([c.endAsync(), h.endAsync()]);
    expect(await disconnectReason(a!.sn)).toBe('client close');
    expect(await eventually(async () => ((await online(a!.sn)) === 0 ? 0 : undefined))).toBe(0);
  });

  it('answers with the 5.0 CONNACK and its server properties', async () => {
    const d = await device();
    const raw = await RawV5.connect(d);
    const connack = await raw.next('connack');
    expect(connack).toMatchObject({
      reasonCode: 0,
      sessionPresent: false,
      properties: {
        topicAliasMaximum: TOPIC_ALIAS_MAXIMUM,
        retainAvailable: false,
        maximumPacketSize: 256 * 1024,
        subscriptionIdentifiersAvailable: false,
        sharedSubscriptionAvailable: false,
        // Aedes' limit of inbound QoS 2 messages awaiting PUBREL.
        receiveMaximum: 1000,
      },
    });
    raw.send({ cmd: 'pingreq' });
    await raw.next('pingresp');
    raw.send({ cmd: 'disconnect', reasonCode: 0 });
    await raw.closed;
  });

  it('refuses with 5.0 reason codes: bad credentials 0x86, clientId != sn 0x85, disabled 0x87', async () => {
    const d = await device();
    expect(await refusedWith(v5(d, { password: 'x'.repeat(32) }))).toBe(0x86);
    expect(
      await refusedWith(v5(d, { password: hmacPassword(d, t.clock.now().getTime() - 16 * 60_000) })),
    ).toBe(0x86);
    expect(await refusedWith(v5(d, { clientId: 'NOPE-9', username: 'NOPE-9' }))).toBe(0x86);
    expect(await refusedWith(v5(d, { clientId: 'someone-else' }))).toBe(0x85);
    expect(await refusedWith(v5(d, { password: undefined }))).toBe(0x86);
    await t.inject({
      method: 'PUT',
      url: `/api/devices/${d.sn}`,
      token: owner.token,
      payload: { disabled: true },
    });
    expect(await refusedWith(v5(d))).toBe(0x87);
    // Counted on the device and written to its log, as for 3.1.1.
    const rejected = await eventually(async () => {
      const l = await logs(d.sn, 'rejected');
      return l.length >= 4 ? l : undefined;
    });
    expect(rejected[0]!.detail.reason).toMatch(/^connect refused/);
  });

  it('refuses enhanced authentication: CONNECT with a method gets 0x8C, an AUTH packet a DISCONNECT 0x82', async () => {
    const d = await device();
    const withMethod = await RawV5.connect(d, { properties: { authenticationMethod: 'SCRAM-SHA-1' } });
    expect(await withMethod.next('connack')).toMatchObject({ reasonCode: 0x8c });
    await withMethod.closed;

    const raw = await RawV5.connect(d);
    expect((await raw.next('connack')).reasonCode).toBe(0);
    raw.send({ cmd: 'auth', reasonCode: 0x19, properties: { authenticationMethod: 'SCRAM-SHA-1' } });
    // 0x8C "bad authentication method" is a CONNACK code only; for DISCONNECT it is a Protocol Error.
    expect(await raw.next('disconnect')).toMatchObject({ reasonCode: 0x82 });
    await raw.closed;
    expect(await disconnectReason(d.sn)).toBe('connection lost');
  });

  it('maps Clean Start and Session Expiry Interval to a persistent or clean session', async () => {
    const d = await device();
    const session = async (over: Partial<IConnectPacket>, subscribe = false) => {
      const raw = await RawV5.connect(d, over);
      const connack = await raw.next('connack');
      expect(connack.reasonCode).toBe(0);
      if (subscribe) {
        raw.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: downAll(d), qos: 1 }] });
        await raw.next('suback');
      }
      raw.send({ cmd: 'disconnect', reasonCode: 0 });
      await raw.closed;
      // The broker is done with the connection (and a session ending with it) before the next one comes.
      const clients = (t.app.broker.aedes as unknown as { clients: Record<string, unknown> }).clients;
      await eventually(async () => (clients[d.sn] ? undefined : true));
      return connack.sessionPresent;
    };
    const persistent = { clean: false, properties: { sessionExpiryInterval: 3600 } };
    expect(await session(persistent, true)).toBe(false);
    // Clean Start 0 with an expiry: the session and its subscription are still there.
    expect(await session(persistent)).toBe(true);
    // Clean Start 1 discards it; with an expiry the new session is kept after the connection.
    expect(await session({ clean: true, properties: { sessionExpiryInterval: 3600 } }, true)).toBe(false);
    expect(await session(persistent)).toBe(true);
    // Expiry 0 (the default): Clean Start 0 resumes the session, which then ends with the connection.
    expect(await session({ clean: false })).toBe(true);
    expect(await session({ clean: false }, true)).toBe(false);
    expect(await session({ clean: false })).toBe(false);
  });
});

describe('ACL, QoS 1 and limits over MQTT 5.0', () => {
  it('refuses subscriptions outside P/down/# with 0x87 and drops publishes into other topics', async () => {
    const [a, b] = await devices(2);
    const ca = await v5(a!);
    const cb = await v5(b!);
    const filters = [
      downAll(a!),
      `dev/${a!.productKey}/${a!.sn}/down/cmd`,
      '#',
      '$SYS/#',
      downAll(b!),
      `dev/${b!.productKey}/${b!.sn}/up/#`,
      `dev/${a!.productKey}/+/down/#`,
    ];
    const codes: number[] = [];
    for (const topic of filters) {
      codes.push(
        await ca.subscribeAsync(topic, { qos: 1 }).then(
          (g) => g[0]!.qos,
          // mqtt.js rejects on a failure code, with the SUBACK on the error.
          (e: { packet?: { granted?: number[] } }) => e.packet?.granted?.[0] ?? -1,
        ),
      );
    }
    expect(codes).toEqual([1, 1, 0x87, 0x87, 0x87, 0x87, 0x87]);

    await cb.subscribeAsync(downAll(b!), { qos: 1 });
    const seen: string[] = [];
    cb.on('message', (topic) => seen.push(topic));
    await ca.publishAsync(downTopic(b!.productKey, b!.sn, 'cmd'), '{"id":"x","type":"string","data":"hi"}', {
      qos: 1,
    });
    await ca.publishAsync(up(b!, 'property'), '{"params":{"t":1}}', { qos: 1 });
    // A command the server sends B afterwards is the sentinel: once it is in, A's publishes would have been too.
    const sentinel = nextMessage(cb, downTopic(b!.productKey, b!.sn, 'cmd'));
    const sent = await t.inject({
      method: 'POST',
      url: `/api/devices/${b!.sn}/commands`,
      token: owner.token,
      payload: { type: 'string', data: 'sentinel' },
    });
    expect(sent.statusCode).toBe(200);
    expect(JSON.parse((await sentinel).toString())).toMatchObject({ data: 'sentinel' });
    expect(seen).toEqual([downTopic(b!.productKey, b!.sn, 'cmd')]);
    expect(((await get(`/api/devices/${b!.sn}/properties`)) as { total: number }).total).toBe(0);
    const rejected = await eventually(async () => {
      const r = (await get(`/api/devices/${a!.sn}`)) as { data: { rejected_count: number } };
      return r.data.rejected_count >= 5 + 2 ? r.data.rejected_count : undefined;
    });
    expect(rejected).toBe(7);
    expect(ca.connected).toBe(true);
  });

  it('acknowledges a QoS 1 property message with PUBACK 0x00 only once its rows are in the database', async () => {
    const d = await device();
    const c = await v5(d);
    const stored = async () => {
      const res = await t.app.deps.db.execute(sql`
        select count(*)::int as n, max(p.num) as top from device_properties p join devices d on d.id = p.device_id
        where d.sn = ${d.sn} and p.key = 'n'`);
      return (res as unknown as { rows: { n: number; top: number | null }[] }).rows[0]!;
    };
    const acks: { cmd: string; reasonCode?: number }[] = [];
    c.on('packetreceive', (p) => {
      if (p.cmd === 'puback') acks.push(p as { cmd: string; reasonCode?: number });
    });
    for (let i = 0; i < 15; i++) {
      // publishAsync resolves on the PUBACK: right then the row must be there.
      await c.publishAsync(up(d, 'property'), JSON.stringify({ params: { n: i } }), {
        qos: 1,
        properties: { contentType: 'application/json', userProperties: { seq: String(i) } },
      });
      expect(await stored()).toEqual({ n: i + 1, top: i });
    }
    expect(acks).toHaveLength(15);
    expect(acks.every((a) => (a.reasonCode ?? 0) === 0)).toBe(true);
    const reply = nextMessage(c, downTopic(d.productKey, d.sn, 'property_reply'));
    await c.subscribeAsync(downAll(d), { qos: 1 });
    await c.publishAsync(up(d, 'property'), JSON.stringify({ id: 'r1', params: { n: 99 } }), { qos: 1 });
    expect(JSON.parse((await reply).toString())).toEqual({ id: 'r1', code: 0 });
  });

  it('stores QoS 2 and QoS 0 uplinks too', async () => {
    const d = await device();
    const c = await v5(d);
    const received: string[] = [];
    c.on('packetreceive', (p) => received.push(p.cmd));
    await c.publishAsync(up(d, 'property'), '{"params":{"q2":2}}', { qos: 2 });
    expect(received).toEqual(['pubrec', 'pubcomp']);
    await c.publishAsync(up(d, 'property'), '{"params":{"q0":0}}', { qos: 0 });
    const latest = await eventually(async () => {
      const r = (await get(`/api/devices/${d.sn}/properties`)) as { data: { key: string; value: number }[] };
      return r.data.length === 2 ? r.data : undefined;
    });
    expect(latest.map((p) => [p.key, p.value])).toEqual([
      ['q0', 0],
      ['q2', 2],
    ]);
  });

  it('applies the per-device rate limit', async () => {
    const d = await device();
    const c = await v5(d);
    const saved = { ...t.app.gateway.options };
    Object.assign(t.app.gateway.options, { ratePerSecond: 1, rateBurst: 2 });
    try {
      for (let i = 0; i < 5; i++) await c.publishAsync(up(d, 'property'), '{"params":{"r":1}}', { qos: 1 });
    } finally {
      Object.assign(t.app.gateway.options, saved);
    }
    const rejected = await eventually(async () => {
      const r = (await get(`/api/devices/${d.sn}`)) as { data: { rejected_count: number } };
      return r.data.rejected_count >= 3 ? r.data.rejected_count : undefined;
    });
    expect(rejected).toBe(3);
    expect(c.connected).toBe(true);
  });

  it('resolves topic aliases on uplinks, and disconnects with 0x94 on an alias it never saw', async () => {
    const d = await device();
    const c = await v5(d);
    await c.publishAsync(up(d, 'property'), '{"params":{"a":1}}', { qos: 1, properties: { topicAlias: 3 } });
    await c.publishAsync('', '{"params":{"a":2}}', { qos: 1, properties: { topicAlias: 3 } });
    await c.publishAsync('', '{"params":{"a":3}}', { qos: 1, properties: { topicAlias: 3 } });
    const history = (await get(`/api/devices/${d.sn}/properties?key=a`)) as { total: number };
    expect(history.total).toBe(3);

    // mqtt.js picks and reuses aliases itself with autoAssignTopicAlias.
    const auto = await devices(1);
    const ca = await v5(auto[0]!, { autoAssignTopicAlias: true });
    for (let i = 0; i < 4; i++) {
      await ca.publishAsync(up(auto[0]!, 'property'), JSON.stringify({ params: { b: i } }), { qos: 1 });
    }
    expect(((await get(`/api/devices/${auto[0]!.sn}/properties?key=b`)) as { total: number }).total).toBe(4);

    const raw = await RawV5.connect(d);
    expect((await raw.next('connack')).reasonCode).toBe(0);
    raw.send({
      cmd: 'publish',
      topic: '',
      payload: Buffer.from('{"params":{"a":4}}'),
      qos: 1,
      messageId: 1,
      retain: false,
      dup: false,
      properties: { topicAlias: 5 },
    });
    expect(await raw.next('disconnect')).toMatchObject({ reasonCode: 0x94 });
    await raw.closed;
    expect(((await get(`/api/devices/${d.sn}/properties?key=a`)) as { total: number }).total).toBe(3);
  });
});

describe('downlinks to an MQTT 5.0 device', () => {
  it('delivers commands, configuration and raw bytes, and takes the command reply', async () => {
    const d = await device();
    const c = await v5Online(d);

    const cmdDown = nextMessage(c, downTopic(d.productKey, d.sn, 'cmd'));
    const sent = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/commands`,
      token: owner.token,
      payload: { type: 'hex', data: '01030000000AC5CD' },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const cmd = sent.json().data as { id: string; status: string };
    expect(cmd.status).toBe('sent');
    expect(JSON.parse((await cmdDown).toString())).toEqual({
      id: cmd.id,
      type: 'hex',
      data: '01030000000AC5CD',
    });
    await c.publishAsync(up(d, 'cmd_reply'), JSON.stringify({ id: cmd.id, code: 0, data: '0103' }), {
      qos: 1,
    });
    const replied = await eventually(async () => {
      const list = (await get(`/api/devices/${d.sn}/commands`)).data as { id: string; status: string }[];
      return list.find((x) => x.id === cmd.id && x.status === 'replied');
    });
    expect(replied).toMatchObject({ code: 0, reply: '0103' });

    const configDown = nextMessage(c, downTopic(d.productKey, d.sn, 'config'));
    const config = { global: { apn: { name: 'cmiot' } } };
    const put = await t.inject({
      method: 'PUT',
      url: `/api/devices/${d.sn}/config`,
      token: owner.token,
      payload: { config },
    });
    expect(put.json().data).toMatchObject({ sent: true });
    expect(JSON.parse((await configDown).toString())).toEqual({ version: 1, config });

    const rawDown = nextMessage(c, downTopic(d.productKey, d.sn, 'raw'));
    const raw = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/raw`,
      token: owner.token,
      payload: { data: 'CAFE01', encoding: 'hex' },
    });
    expect(raw.statusCode).toBe(200);
    expect((await rawDown).toString('hex')).toBe('cafe01');
  });

  it('sends a missed configuration once a clean-start device subscribes', async () => {
    const d = await device();
    const config = { global: { apn: { name: 'late-v5' } } };
    await t.inject({
      method: 'PUT',
      url: `/api/devices/${d.sn}/config`,
      token: owner.token,
      payload: { config },
    });
    const c = await v5(d);
    const got = nextMessage(c, downTopic(d.productKey, d.sn, 'config'));
    await c.subscribeAsync(downAll(d), { qos: 1 });
    expect(JSON.parse((await got).toString())).toMatchObject({ version: 1, config });
  });

  it('drops a downlink larger than the device Maximum Packet Size and keeps delivering smaller ones', async () => {
    const d = await device();
    const c = await v5Online(d, { properties: { maximumPacketSize: 200 } });
    const cmdTopic = downTopic(d.productKey, d.sn, 'cmd');
    const received: string[] = [];
    c.on('message', (topic, payload) => {
      if (topic === cmdTopic) received.push((JSON.parse(payload.toString()) as { data: string }).data);
    });
    const before = t.app.broker.front!.stats.oversizeDropped;
    const send = (data: string) =>
      t.inject({
        method: 'POST',
        url: `/api/devices/${d.sn}/commands`,
        token: owner.token,
        payload: { type: 'string', data },
      });
    const big = await send('x'.repeat(180));
    expect(big.statusCode, big.body).toBe(200);
    await eventually(async () =>
      t.app.broker.front!.stats.oversizeDropped === before + 1 ? true : undefined,
    );
    const small = nextMessage(c, cmdTopic);
    expect((await send('small')).statusCode).toBe(200);
    await small;
    expect(received).toEqual(['small']);
    expect(c.connected).toBe(true);
  });

  it('answers UNSUBSCRIBE with one reason code per filter', async () => {
    const d = await device();
    const raw = await RawV5.connect(d);
    expect((await raw.next('connack')).reasonCode).toBe(0);
    raw.send({
      cmd: 'subscribe',
      messageId: 2,
      subscriptions: [
        { topic: downAll(d), qos: 1, nl: true, rap: false, rh: 0 },
        { topic: '#', qos: 0 },
      ],
    });
    expect(await raw.next('suback')).toMatchObject({ messageId: 2, granted: [1, 0x87] });
    raw.send({ cmd: 'unsubscribe', messageId: 3, unsubscriptions: [downAll(d), 'a/b', 'c/d'] });
    expect(await raw.next('unsuback')).toMatchObject({ messageId: 3, granted: [0, 0, 0] });
    raw.send({ cmd: 'disconnect', reasonCode: 0 });
    await raw.closed;
  });
});

describe('connection life over MQTT 5.0', () => {
  it('lets a 5.0 connection take over a 3.1.1 one and the other way round (DISCONNECT 0x8E)', async () => {
    const d = await device();
    const v4 = track(await connectDevice(url, d));
    const v4Closed = new Promise<void>((resolve) => v4.once('close', () => resolve()));
    const c5 = await v5(d);
    await v4Closed;
    expect(c5.connected).toBe(true);
    expect(await disconnectReason(d.sn)).toBe('takeover');
    expect(await online(d.sn)).toBe(1);

    const takenOver = new Promise<number | undefined>((resolve) =>
      c5.once('disconnect', (p: { reasonCode?: number }) => resolve(p.reasonCode)),
    );
    const c5Closed = new Promise<void>((resolve) => c5.once('close', () => resolve()));
    const back = track(await connectDevice(url, d));
    expect(await takenOver).toBe(0x8e);
    await c5Closed;
    expect(back.connected).toBe(true);
    const reasons = await eventually(async () => {
      const l = await logs(d.sn, 'disconnect');
      return l.length >= 2 ? l.map((x) => x.detail.reason) : undefined;
    });
    expect(reasons.slice(0, 2)).toEqual(['takeover', 'takeover']);
    expect(await online(d.sn)).toBe(1);
    // The newest connection keeps working.
    await back.publishAsync(up(d, 'property'), '{"params":{"after":1}}', { qos: 1 });
    expect(((await get(`/api/devices/${d.sn}/properties?key=after`)) as { total: number }).total).toBe(1);
  });

  it('disconnects a silent device after 1.5 x its keep-alive with 0x8D and marks it offline', async () => {
    const d = await device();
    const raw = await RawV5.connect(d, { keepalive: 1 });
    expect((await raw.next('connack')).reasonCode).toBe(0);
    await eventually(async () => ((await online(d.sn)) === 1 ? true : undefined));
    // No PINGREQ from here on.
    expect(await raw.next('disconnect', 4000)).toMatchObject({ reasonCode: 0x8d });
    await raw.closed;
    expect(await disconnectReason(d.sn)).toBe('keep-alive timeout');
    expect(await online(d.sn)).toBe(0);
  });

  it('keeps a device that pings alive past its keep-alive', async () => {
    const d = await device();
    const raw = await RawV5.connect(d, { keepalive: 1 });
    expect((await raw.next('connack')).reasonCode).toBe(0);
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 600));
      raw.send({ cmd: 'pingreq' });
      await raw.next('pingresp');
    }
    expect(raw.socket.destroyed).toBe(false);
    expect(await online(d.sn)).toBe(1);
    raw.send({ cmd: 'disconnect', reasonCode: 0 });
    await raw.closed;
  });

  it('publishes the will on DISCONNECT 0x04 and not on a normal DISCONNECT 0x00', async () => {
    const [withWill, normal] = await devices(2);
    const will = (d: TestDevice) => ({
      topic: up(d, 'raw'),
      payload: Buffer.from('last words'),
      qos: 1 as const,
      retain: false,
      properties: { willDelayInterval: 0, contentType: 'text/plain' },
    });
    const raws = async (sn: string) =>
      ((await get(`/api/devices/${sn}/raw`)) as { data: { direction: string; data: string }[] }).data;

    const a = await v5(withWill!, { will: will(withWill!) });
    await a.endAsync(false, { reasonCode: 0x04 });
    const rows = await eventually(async () => {
      const r = await raws(withWill!.sn);
      return r.length ? r : undefined;
    });
    expect(rows).toEqual([
      expect.objectContaining({ direction: 'up', data: Buffer.from('last words').toString('base64') }),
    ]);
    expect(await disconnectReason(withWill!.sn)).toBe('will');
    expect(await online(withWill!.sn)).toBe(0);

    const b = await v5(normal!, { will: will(normal!) });
    await b.endAsync(false, { reasonCode: 0 });
    expect(await disconnectReason(normal!.sn)).toBe('client close');
    // The sentinel: a raw message sent after reconnecting. A will would have been stored before it.
    const again = await v5(normal!);
    await again.publishAsync(up(normal!, 'raw'), 'sentinel', { qos: 1 });
    const after = await eventually(async () => {
      const r = await raws(normal!.sn);
      return r.length ? r : undefined;
    });
    expect(after.map((r) => Buffer.from(r.data, 'base64').toString())).toEqual(['sentinel']);
    await again.endAsync();
  });

  it('publishes the will when the connection drops without DISCONNECT', async () => {
    const d = await device();
    const c = await v5(d, {
      will: { topic: up(d, 'raw'), payload: Buffer.from('gone'), qos: 1, retain: false },
    });
    c.stream.destroy();
    const rows = await eventually(async () => {
      const r = ((await get(`/api/devices/${d.sn}/raw`)) as { data: unknown[] }).data;
      return r.length ? r : undefined;
    });
    expect(rows).toHaveLength(1);
    expect(await disconnectReason(d.sn)).toBe('will');
  });

  it('closes the 5.0 connection when the device is disabled', async () => {
    const d = await device();
    const c = await v5(d);
    const closed = new Promise<void>((resolve) => c.once('close', () => resolve()));
    await t.inject({
      method: 'PUT',
      url: `/api/devices/${d.sn}`,
      token: owner.token,
      payload: { disabled: true },
    });
    await closed;
    expect(await disconnectReason(d.sn)).toBe('disabled');
  });

  it('gives a malformed packet DISCONNECT 0x81 and still serves 3.1.1 and 3.1 on the same port', async () => {
    const d = await device();
    const raw = await RawV5.connect(d);
    expect((await raw.next('connack')).reasonCode).toBe(0);
    // PUBLISH QoS 3 does not exist.
    raw.socket.write(Buffer.from([0x36, 0x03, 0x00, 0x01, 0x61]));
    expect(await raw.next('disconnect')).toMatchObject({ reasonCode: 0x81 });
    await raw.closed;
    const c4 = track(await connectDevice(url, d));
    expect(c4.connected).toBe(true);
    await c4.endAsync();
    const c3 = track(await connectDevice(url, d, { protocolVersion: 3, protocolId: 'MQIsdp' }));
    expect(c3.connected).toBe(true);
    await c3.endAsync();
    const labels = await eventually(async () => {
      const l = (await logs(d.sn, 'connect')).map((x) => x.detail.protocol);
      return l.length >= 3 ? l : undefined;
    });
    expect(labels.slice(0, 3)).toEqual(['mqtt/3', 'mqtt/4', 'mqtt/5']);
  });
});

describe('broken 5.0 clients', () => {
  it('answers a SUBSCRIBE without filters (parsed, but not translatable) with DISCONNECT 0x81 and keeps serving', async () => {
    const d = await device();
    const raw = await RawV5.connect(d);
    expect((await raw.next('connack')).reasonCode).toBe(0);
    // SUBSCRIBE, packet id 1, no properties, no topic filters.
    raw.socket.write(Buffer.from([0x82, 0x03, 0x00, 0x01, 0x00]));
    expect(await raw.next('disconnect')).toMatchObject({ reasonCode: 0x81 });
    await raw.closed;
    const again = await v5(d);
    expect(again.connected).toBe(true);
  });

  it('answers a bad topic alias sent right behind the CONNECT, after the CONNACK, with DISCONNECT 0x94', async () => {
    const d = await device();
    const raw = await RawV5.open();
    raw.socket.write(
      Buffer.concat([
        mqttPacket.generate(
          {
            cmd: 'connect',
            protocolId: 'MQTT',
            protocolVersion: 5,
            clean: true,
            keepalive: 60,
            clientId: d.sn,
            username: d.sn,
            password: Buffer.from(d.secret),
          },
          { protocolVersion: 5 },
        ),
        mqttPacket.generate(
          {
            cmd: 'publish',
            topic: '',
            payload: Buffer.from('{}'),
            qos: 0,
            retain: false,
            dup: false,
            properties: { topicAlias: 9 },
          },
          { protocolVersion: 5 },
        ),
      ]),
    );
    // The connection layer holds what follows the CONNECT until the CONNACK went out (device-stream.ts), so the
    // PUBLISH is read on an accepted connection and refused as such.
    expect(await raw.next('connack')).toMatchObject({ reasonCode: 0 });
    expect(await raw.next('disconnect')).toMatchObject({ reasonCode: 0x94 });
    await raw.closed;
    expect(raw.packets).toEqual([]);
  });
});

describe('MQTT 5.0 over WebSocket', () => {
  it('authenticates, stores a QoS 1 message and delivers a command at /mqtt', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as { port: number }).port;
    const d = await device();
    const c = track(await connectDevice(`ws://127.0.0.1:${port}/mqtt`, d, { protocolVersion: 5 }));
    expect(c.connected).toBe(true);
    await c.publishAsync(up(d, 'property'), '{"params":{"ws":5}}', { qos: 1 });
    expect(((await get(`/api/devices/${d.sn}/properties?key=ws`)) as { total: number }).total).toBe(1);
    await c.subscribeAsync(downAll(d), { qos: 1 });
    await eventually(async () => ((await online(d.sn)) === 1 ? true : undefined));
    const down = nextMessage(c, downTopic(d.productKey, d.sn, 'cmd'));
    await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/commands`,
      token: owner.token,
      payload: { type: 'string', data: 'AT+CSQ' },
    });
    expect(JSON.parse((await down).toString())).toMatchObject({ type: 'string', data: 'AT+CSQ' });
    const l = await eventually(async () => {
      const rows = await logs(d.sn, 'connect');
      return rows.length ? rows : undefined;
    });
    expect(l[0]!.detail.protocol).toBe('mqtt/5+ws');
    const bad = await refusedWith(
      mqtt.connectAsync(`ws://127.0.0.1:${port}/mqtt`, {
        protocolVersion: 5,
        clientId: d.sn,
        username: d.sn,
        password: 'wrong',
        reconnectPeriod: 0,
      }),
    );
    expect(bad).toBe(0x86);
    await c.endAsync();
  });
});

describe.runIf(existsSync('/usr/bin/mosquitto_pub') && existsSync('/usr/bin/mosquitto_sub'))(
  'mosquitto clients with -V mqttv5',
  () => {
    it('mosquitto_pub stores a QoS 1 message; mosquitto_sub receives a command', async () => {
      const d = await device();
      const auth = [
        '-h',
        '127.0.0.1',
        '-p',
        String(t.app.broker.port),
        '-V',
        'mqttv5',
        '-i',
        d.sn,
        '-u',
        d.sn,
      ];
      await run('/usr/bin/mosquitto_pub', [
        ...auth,
        ...[
          '-P',
          d.secret,
          '-q',
          '1',
          '-t',
          up(d, 'property'),
          '-m',
          JSON.stringify({ params: { cli5: 5 } }),
        ],
      ]);
      // mosquitto_pub exits after the PUBACK, so the row is there.
      const h = (await get(`/api/devices/${d.sn}/properties?key=cli5`)) as { data: { value: unknown }[] };
      expect(h.data[0]?.value).toBe(5);

      const refused = await run('/usr/bin/mosquitto_pub', [
        ...auth,
        ...['-P', 'wrong-secret', '-t', up(d, 'property'), '-m', '{}'],
      ]).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code?: number; stderr?: string }) => ({ code: e.code ?? -1, stderr: e.stderr ?? '' }),
      );
      expect(refused.code).not.toBe(0);
      expect(refused.stderr.toLowerCase()).toContain('bad user name or password');

      const sub = spawn('/usr/bin/mosquitto_sub', [
        ...auth,
        ...['-P', d.secret, '-q', '1', '-t', downAll(d), '-C', '1', '-W', '15', '-v'],
      ]);
      let out = '';
      sub.stdout.on('data', (b: Buffer) => (out += b.toString()));
      const exited = new Promise<number | null>((resolve) => sub.once('exit', (code) => resolve(code)));
      try {
        // The command goes out once mosquitto_sub's subscription is in place.
        await eventually(async () => {
          const aedes = t.app.broker.aedes as unknown as {
            clients: Record<string, { subscriptions: Record<string, unknown> } | undefined>;
          };
          return aedes.clients[d.sn]?.subscriptions[downAll(d)] ? true : undefined;
        });
        await eventually(async () => ((await online(d.sn)) === 1 ? true : undefined));
        const sent = await t.inject({
          method: 'POST',
          url: `/api/devices/${d.sn}/commands`,
          token: owner.token,
          payload: { type: 'string', data: 'from-mqttv5' },
        });
        expect(sent.statusCode, sent.body).toBe(200);
        expect(await exited).toBe(0);
      } finally {
        sub.kill();
      }
      const [topic, payload] = [out.slice(0, out.indexOf(' ')), out.slice(out.indexOf(' ') + 1)];
      expect(topic).toBe(downTopic(d.productKey, d.sn, 'cmd'));
      expect(JSON.parse(payload)).toMatchObject({ type: 'string', data: 'from-mqttv5' });
      const connects = (await logs(d.sn, 'connect')).map((l) => l.detail.protocol);
      expect(connects).toContain('mqtt/5');
    });
  },
);
