import net from 'node:net';
import type { MqttClient } from 'mqtt';
import mqttPacket from 'mqtt-packet';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downTopic } from '@cellhub/contract/protocol';
import { buildTestApp, type TestApp } from '../test/app';
import type { DeviceAuthData } from './device-auth';
import { PresenceWriter } from './presence-writer';
import { fixedHeader, RawMqtt } from '../test/raw-mqtt';
import {
  connectDevice,
  createDevices,
  eventually,
  hmacPassword,
  nextMessage,
  type TestDevice,
  up,
} from '../test/gateway-test-kit';

let t: TestApp;
let url: string;
let owner: { token: string; uid: number };
let devs: TestDevice[];
const clients: MqttClient[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  url = `mqtt://127.0.0.1:${t.app.broker.port}`;
  owner = await t.createUser();
  devs = await createDevices(t, owner.token, ['G-1', 'G-2', 'G-3', 'G-4', 'G-5', 'G-6']);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
  await t.close();
});

const dev = (i: number) => devs[i]!;
const track = (c: MqttClient) => (clients.push(c), c);
const get = async (path: string) => (await t.inject({ method: 'GET', url: path, token: owner.token })).json();
const logs = async (sn: string, event: string) =>
  ((await get(`/api/devices/${sn}/logs?event=${event}`)) as { data: { detail: Record<string, unknown> }[] })
    .data;
/**
 * Resolves when the gateway has finished every presence task queued for `sn` so far (connect, subscribe,
 * disconnect run in order per device, DeviceGateway.serial): a positive condition that their effects (a pending
 * config sent, say) have been handed to the broker.
 */
const presenceSettled = (sn: string) =>
  (t.app.gateway as unknown as { chains: Map<string, Promise<void>> }).chains.get(sn) ?? Promise.resolve();
const refused = (p: Promise<MqttClient>) =>
  p.then(
    async (c) => {
      await c.endAsync(true);
      return undefined;
    },
    (e: Error & { code?: number }) => e,
  );

describe('CONNECT', () => {
  it('accepts the plain secret and an hmac password, and marks the device online with activatedat', async () => {
    const c = track(await connectDevice(url, dev(0)));
    const d = await eventually(async () => {
      const r = (await get(`/api/devices/${dev(0).sn}`)) as {
        data: { online: number; activatedat: string | null };
      };
      return r.data.online === 1 ? r.data : undefined;
    });
    expect(d.activatedat).not.toBeNull();
    await c.endAsync();
    const h = track(
      await connectDevice(url, dev(1), { password: hmacPassword(dev(1), t.clock.now().getTime()) }),
    );
    expect(h.connected).toBe(true);
    await h.endAsync();
    const connects = await logs(dev(0).sn, 'connect');
    expect(connects[0]!.detail).toMatchObject({ ip: '127.0.0.1', protocol: 'mqtt/4' });
    const gone = await eventually(async () => {
      const l = await logs(dev(0).sn, 'disconnect');
      return l.length ? l : undefined;
    });
    expect(gone[0]!.detail.reason).toBe('client close');
  });

  it('refuses unknown sn, wrong password, stale hmac, clientId != username, and a disabled device', async () => {
    const d = dev(2);
    const cases: [string, Parameters<typeof connectDevice>[2], number][] = [
      ['unknown sn', { clientId: 'NOPE-1', username: 'NOPE-1' }, 4],
      ['wrong password', { password: 'x'.repeat(32) }, 4],
      ['stale hmac', { password: hmacPassword(d, t.clock.now().getTime() - 16 * 60_000) }, 4],
      ['clientId is not the username', { clientId: 'other-id' }, 2],
      ['no password', { password: undefined }, 4],
    ];
    for (const [name, options, code] of cases) {
      const err = await refused(connectDevice(url, d, options));
      expect(err, name).toBeInstanceOf(Error);
      expect(err?.code, name).toBe(code);
    }
    await t.inject({
      method: 'PUT',
      url: `/api/devices/${d.sn}`,
      token: owner.token,
      payload: { disabled: true },
    });
    expect((await refused(connectDevice(url, d)))?.code).toBe(5);
    await t.inject({
      method: 'PUT',
      url: `/api/devices/${d.sn}`,
      token: owner.token,
      payload: { disabled: false },
    });
    const ok = track(await connectDevice(url, d));
    expect(ok.connected).toBe(true);
    await ok.endAsync();
  });

  it('drops a connected device when it is disabled or deleted', async () => {
    const [d] = await createDevices(t, owner.token, ['G-DEL']);
    const c = track(await connectDevice(url, d!));
    const closed = new Promise<void>((resolve) => c.once('close', () => resolve()));
    await t.inject({ method: 'DELETE', url: `/api/devices/${d!.sn}`, token: owner.token });
    await closed;
    expect((await refused(connectDevice(url, d!)))?.code).toBe(4);
  });

  it('lets a second connection with the same clientId take over and logs the takeover', async () => {
    const d = dev(3);
    const first = track(await connectDevice(url, d));
    const firstClosed = new Promise<void>((resolve) => first.once('close', () => resolve()));
    first.on('error', () => undefined);
    first.options.reconnectPeriod = 0;
    const second = track(await connectDevice(url, d));
    await firstClosed;
    expect(second.connected).toBe(true);
    const l = await eventually(async () => {
      const rows = await logs(d.sn, 'disconnect');
      return rows.length ? rows : undefined;
    });
    expect(l[0]!.detail.reason).toBe('takeover');
    const r = (await get(`/api/devices/${d.sn}`)) as { data: { online: number } };
    expect(r.data.online).toBe(1);
    await second.endAsync();
  });
});

describe('ACL', () => {
  it('refuses subscriptions outside P/down/# with 128 and drops publishes outside P/up/<kind>', async () => {
    const a = dev(4);
    const b = dev(5);
    const ca = track(await connectDevice(url, a));
    const cb = track(await connectDevice(url, b));
    const topics = [
      `dev/${a.productKey}/${a.sn}/down/#`,
      '#',
      '$SYS/#',
      `dev/${b.productKey}/${b.sn}/down/#`,
      `dev/${b.productKey}/${b.sn}/up/#`,
      `dev/${a.productKey}/+/down/#`,
    ];
    const granted: number[] = [];
    for (const topic of topics) {
      // mqtt.js turns a 128 return code into an error carrying the SUBACK.
      granted.push(
        await ca.subscribeAsync(topic, { qos: 1 }).then(
          (g) => g[0]!.qos,
          (e: { packet?: { granted?: number[] } }) => e.packet?.granted?.[0] ?? -1,
        ),
      );
    }
    expect(granted).toEqual([1, 128, 128, 128, 128, 128]);

    // A publishes into B's down and up topics: B never sees it, nothing is stored for B, A is counted.
    await cb.subscribeAsync(`dev/${b.productKey}/${b.sn}/down/#`, { qos: 1 });
    const seen: string[] = [];
    cb.on('message', (topic) => seen.push(topic));
    await ca.publishAsync(downTopic(b.productKey, b.sn, 'cmd'), '{"id":"x","type":"string","data":"hi"}', {
      qos: 1,
    });
    await ca.publishAsync(up(b, 'property'), '{"params":{"t":1}}', { qos: 1 });
    await ca.publishAsync(`dev/${a.productKey}/${a.sn}/elsewhere`, '{}', { qos: 1 });
    // A command the server sends B afterwards is the sentinel: once it is in, A's publishes would have been too.
    const sentinel = nextMessage(cb, downTopic(b.productKey, b.sn, 'cmd'));
    const sent = await t.inject({
      method: 'POST',
      url: `/api/devices/${b.sn}/commands`,
      token: owner.token,
      payload: { type: 'string', data: 'sentinel' },
    });
    expect(sent.statusCode).toBe(200);
    expect(JSON.parse((await sentinel).toString())).toMatchObject({ data: 'sentinel' });
    expect(seen).toEqual([downTopic(b.productKey, b.sn, 'cmd')]);
    expect(((await get(`/api/devices/${b.sn}/properties`)) as { total: number }).total).toBe(0);
    const rejected = await eventually(async () => {
      const r = (await get(`/api/devices/${a.sn}`)) as { data: { rejected_count: number } };
      return r.data.rejected_count >= 3 + 5 ? r.data.rejected_count : undefined;
    });
    expect(rejected).toBe(8);
    expect(ca.connected).toBe(true);
    await Promise.all([ca.endAsync(), cb.endAsync()]);
  });

  it('closes the connection on a topic with U+0000 or bytes that are not UTF-8, unacknowledged (MQTT-1.5.3)', async () => {
    const d = dev(4);
    const prefix = `dev/${d.productKey}/${d.sn}`;
    const bad = [
      Buffer.from(`${prefix}/up/property\u0000`),
      Buffer.concat([Buffer.from(`${prefix}/up/property`), Buffer.from([0xc3, 0x28])]),
    ];
    for (const topic of bad) {
      for (const what of ['publish', 'subscribe'] as const) {
        const raw = await RawMqtt.open({ tcp: t.app.broker.port! }, 4);
        raw.send(raw.connectPacket(d));
        await raw.next('connack');
        // mqtt-packet writes strings only: the topic bytes are written by hand.
        const body =
          what === 'publish'
            ? Buffer.concat([
                Buffer.from([0, topic.length]),
                topic,
                Buffer.from([0, 1]),
                Buffer.from('{"params":{"bad":1}}'),
              ])
            : Buffer.concat([Buffer.from([0, 1, 0, topic.length]), topic, Buffer.from([1])]);
        raw.send(Buffer.concat([fixedHeader(what === 'publish' ? 0x32 : 0x82, body.length), body]));
        await raw.closed;
        expect(
          raw.packets.map((p) => p.cmd),
          `${what} ${JSON.stringify(topic.toString())}`,
        ).toEqual(['connack']);
      }
    }
    const latest = (await get(`/api/devices/${d.sn}/properties`)) as { data: { key: string }[] };
    expect(latest.data.map((p) => p.key)).not.toContain('bad');
  });
});

describe('MQTT versions', () => {
  it('accepts an MQTT 5 CONNECT on the embedded broker (gateway/mqtt5; docs/device-protocol.md, "MQTT versions")', async () => {
    const v5 = track(await connectDevice(url, dev(2), { protocolVersion: 5 }));
    expect(v5.connected).toBe(true);
    await v5.endAsync();
    // Still serving 3.1.1 on the same port.
    const c = track(await connectDevice(url, dev(2)));
    expect(c.connected).toBe(true);
    await c.endAsync();
  });
});

describe('over WebSocket', () => {
  it('authenticates devices at /mqtt', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as { port: number }).port;
    const c = track(await connectDevice(`ws://127.0.0.1:${port}/mqtt`, dev(0)));
    expect(c.connected).toBe(true);
    const l = await eventually(async () => {
      const rows = await logs(dev(0).sn, 'connect');
      return rows[0]?.detail.protocol === 'mqtt/4+ws' ? rows : undefined;
    });
    expect(l[0]!.detail.protocol).toBe('mqtt/4+ws');
    await c.endAsync();
    const bad = await mqtt
      .connectAsync(`ws://127.0.0.1:${port}/mqtt`, {
        clientId: 'x1',
        username: 'x1',
        password: 'y',
        reconnectPeriod: 0,
      })
      .then(
        () => undefined,
        (e: Error) => e,
      );
    expect(bad).toBeInstanceOf(Error);
  });
});

describe('connect storm', () => {
  it('authenticates many devices at once, marks them online and logs them, and sends a pending config', async () => {
    const fleet = await createDevices(
      t,
      owner.token,
      Array.from({ length: 40 }, (_, i) => `S-${i}`),
    );
    const pending = fleet[7]!;
    // Set while the device is offline: it must arrive on connect.
    const config = { global: { apn: { name: 'storm' } } };
    const put = await t.inject({
      method: 'PUT',
      url: `/api/devices/${pending.sn}/config`,
      token: owner.token,
      payload: { config },
    });
    expect(put.statusCode).toBe(200);
    // Devices of earlier tests in this file may still be going offline: count only once every connection they
    // opened has its disconnect written (as many disconnect log rows as connect rows for each).
    await eventually(async () => (t.app.broker.aedes!.connectedClients === 0 ? true : undefined));
    await eventually(async () => {
      for (const d of devs) {
        const [connects, disconnects] = await Promise.all([logs(d.sn, 'connect'), logs(d.sn, 'disconnect')]);
        if (disconnects.length < connects.length) return undefined;
      }
      return true;
    });
    await t.app.gateway.presence.drain();
    const auth0 = { ...t.app.gateway.auth.stats };
    const presence0 = { ...t.app.gateway.presence.stats };

    // Raw sockets, opened first, then every CONNECT (+ SUBSCRIBE) written in one go.
    const sockets = await Promise.all(
      fleet.map(
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const s = net.connect(t.app.broker.port!, '127.0.0.1', () => resolve(s));
            s.once('error', reject);
          }),
      ),
    );
    const received = fleet.map(() => [] as mqttPacket.Packet[]);
    sockets.forEach((s, i) => {
      const parser = mqttPacket.parser({ protocolVersion: 4 });
      parser.on('packet', (p) => received[i]!.push(p));
      s.on('data', (b) => parser.parse(b));
    });
    fleet.forEach((d, i) => {
      sockets[i]!.write(
        Buffer.concat([
          mqttPacket.generate({
            cmd: 'connect',
            protocolId: 'MQTT',
            protocolVersion: 4,
            clean: true,
            keepalive: 60,
            clientId: d.sn,
            username: d.sn,
            password: Buffer.from(d.secret),
          }),
          mqttPacket.generate({
            cmd: 'subscribe',
            messageId: 1,
            subscriptions: [{ topic: `dev/${d.productKey}/${d.sn}/down/#`, qos: 1 }],
          }),
        ]),
      );
    });
    try {
      await eventually(async () =>
        received.every((r) => r.some((p) => p.cmd === 'suback')) ? true : undefined,
      );
      expect(received.every((r) => r.some((p) => p.cmd === 'connack' && p.returnCode === 0))).toBe(true);
      const online = async () => {
        const r = (await get(`/api/devices?per_page=100&product_key=${fleet[0]!.productKey}`)) as {
          data: { online: number; activatedat: string | null }[];
        };
        return r.data.filter((d) => d.online === 1 && d.activatedat).length;
      };
      await eventually(async () => ((await online()) === 40 ? true : undefined));
      const connectLogs = await Promise.all(fleet.map((d) => logs(d.sn, 'connect')));
      expect(connectLogs.every((l) => l.length === 1)).toBe(true);
      expect(t.app.gateway.auth.stats.loaded - auth0.loaded).toBe(40);
      // Each of the 40 went online once (its one connect log above); the counter is the app's, and a device of an
      // earlier test of this file may change state meanwhile, so it is a floor here.
      expect(t.app.gateway.presence.stats.changes - presence0.changes).toBeGreaterThanOrEqual(40);
      // Only the device with a pending config gets one.
      const configOf = (i: number) =>
        received[i]!.filter(
          (p) => p.cmd === 'publish' && p.topic === downTopic(fleet[i]!.productKey, fleet[i]!.sn, 'config'),
        ) as mqttPacket.IPublishPacket[];
      await eventually(async () => (configOf(7).length === 1 ? true : undefined));
      // No other device gets one. Once each device's connect and subscribe tasks are done, anything they would
      // send is with the broker; a message published to each device after that is the sentinel: when it is in,
      // a config sent before it would be too (one connection, delivered in order).
      await Promise.all(fleet.map((d) => presenceSettled(d.sn)));
      const sentinelTopic = (i: number) => downTopic(fleet[i]!.productKey, fleet[i]!.sn, 'cmd');
      await Promise.all(
        fleet.map(
          (_, i) =>
            new Promise<void>((resolve, reject) =>
              t.app.broker.aedes!.publish(
                {
                  cmd: 'publish',
                  topic: sentinelTopic(i),
                  payload: Buffer.from(`sentinel-${i}`),
                  qos: 1,
                  retain: false,
                  dup: false,
                },
                (err) => (err ? reject(err) : resolve()),
              ),
            ),
        ),
      );
      const sentinelIn = (i: number) =>
        received[i]!.some((p) => p.cmd === 'publish' && p.topic === sentinelTopic(i));
      await eventually(async () => (fleet.every((_, i) => sentinelIn(i)) ? true : undefined));
      expect(fleet.map((_, i) => configOf(i).length)).toEqual(fleet.map((_, i) => (i === 7 ? 1 : 0)));
      expect(JSON.parse(configOf(7)[0]!.payload.toString())).toMatchObject({ config });
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});

describe('pending configuration', () => {
  it('reaches a device that subscribes well after its CONNECT', async () => {
    const [d] = await createDevices(t, owner.token, ['LATE-1']);
    const config = { global: { apn: { name: 'late' } } };
    await t.inject({
      method: 'PUT',
      url: `/api/devices/${d!.sn}/config`,
      token: owner.token,
      payload: { config },
    });
    const c = track(await connectDevice(url, d!));
    // Well after: the connect's presence write is done (its log row is in) and so is the rest of its task, which
    // found the pending config and, the session being clean, kept it for the subscription.
    await eventually(async () => ((await logs(d!.sn, 'connect')).length === 1 ? true : undefined));
    await presenceSettled(d!.sn);
    const got = new Promise<Buffer>((resolve) =>
      c.on('message', (topic, payload) => {
        if (topic === downTopic(d!.productKey, d!.sn, 'config')) resolve(payload);
      }),
    );
    await c.subscribeAsync(`dev/${d!.productKey}/${d!.sn}/down/#`, { qos: 1 });
    expect(JSON.parse((await got).toString())).toMatchObject({ version: 1, config });
  });

  it('reaches, once, a device whose configuration changed between its CONNECT and its SUBSCRIBE', async () => {
    const [d] = await createDevices(t, owner.token, ['LATE-2']);
    const c = track(await connectDevice(url, d!));
    await eventually(async () => ((await logs(d!.sn, 'connect')).length === 1 ? true : undefined));
    await presenceSettled(d!.sn);
    const config = { global: { apn: { name: 'between' } } };
    const put = await t.inject({
      method: 'PUT',
      url: `/api/devices/${d!.sn}/config`,
      token: owner.token,
      payload: { config },
    });
    // Not sent: published now it would reach nobody (before: "sent", and lost).
    expect((put.json() as { data: { sent: boolean } }).data.sent).toBe(false);
    const configs: Buffer[] = [];
    c.on('message', (topic, payload) => {
      if (topic === downTopic(d!.productKey, d!.sn, 'config')) configs.push(payload);
    });
    await c.subscribeAsync(`dev/${d!.productKey}/${d!.sn}/down/#`, { qos: 1 });
    const first = await eventually(async () => configs[0]);
    expect(JSON.parse(first.toString())).toMatchObject({ version: 1, config });
    // The subscription's task is the only sender and has ended; a property reply behind it has arrived.
    await presenceSettled(d!.sn);
    const reply = nextMessage(c, downTopic(d!.productKey, d!.sn, 'property_reply'));
    await c.publishAsync(up(d!, 'property'), JSON.stringify({ id: 's1', params: { t: 1 } }), { qos: 1 });
    await reply;
    expect(configs).toHaveLength(1);
  });
});

describe('batched device lookups and presence writes', () => {
  it('load the devices asked for in one turn with one query, unknown serial numbers included', async () => {
    const fleet = await createDevices(
      t,
      owner.token,
      Array.from({ length: 30 }, (_, i) => `B-${i}`),
    );
    const auth = t.app.gateway.auth;
    const before = { ...auth.stats };
    const found = await Promise.all([...fleet.map((d) => auth.get(d.sn)), auth.get('NO-SUCH-SN')]);
    expect(auth.stats.queries - before.queries).toBe(1);
    expect(found.slice(0, 30).map((d) => d?.sn)).toEqual(fleet.map((d) => d.sn));
    expect(found[0]?.secret).toBe(fleet[0]!.secret);
    expect(found[30]).toBeUndefined();
    // Cached now: no query at all.
    await Promise.all(fleet.map((d) => auth.get(d.sn)));
    expect(auth.stats.queries - before.queries).toBe(1);
  });

  it('keep writing presence changes after one arrived while a batch was being written', async () => {
    const fleet = await createDevices(t, owner.token, ['Q-1', 'Q-2', 'Q-3']);
    const [r1, r2, r3] = (await Promise.all(
      fleet.map((d) => t.app.gateway.auth.get(d.sn)),
    )) as DeviceAuthData[];
    const presence = new PresenceWriter(t.app.deps);
    const inner = presence as unknown as { write(batch: unknown[]): Promise<void> };
    const write = inner.write.bind(presence);
    let second: Promise<boolean> | undefined;
    inner.write = async (batch) => {
      // The second change arrives while the first batch is being written: the running loop takes it, and its own
      // timer later finds the queue empty.
      second ??= presence.online(r2!, { ip: '', protocol: 'mqtt/4' });
      await write(batch);
    };
    await presence.online(r1!, { ip: '', protocol: 'mqtt/4' });
    await second;
    // The second change's own timer fires and its drain finds the queue empty; only then comes the third.
    const state = presence as unknown as { scheduled: boolean; running: Promise<void> | undefined };
    await eventually(async () => (!state.scheduled && state.running === undefined ? true : undefined));
    const third = presence.online(r3!, { ip: '', protocol: 'mqtt/4' });
    const result = await Promise.race([
      third.then(() => 'written'),
      new Promise((r) => setTimeout(() => r('stuck'), 2000)),
    ]);
    expect(result).toBe('written');
  });

  it('write the presence changes of one turn with one statement, with the same effect as one by one', async () => {
    const fleet = await createDevices(
      t,
      owner.token,
      Array.from({ length: 30 }, (_, i) => `P-${i}`),
    );
    const refs = await Promise.all(fleet.map((d) => t.app.gateway.auth.get(d.sn)));
    const presence = t.app.gateway.presence;
    const before = { ...presence.stats };
    const events: string[] = [];
    const off = t.app.deps.events.subscribe((e) => {
      if (e.type === 'device.online' && e.sn.startsWith('P-')) events.push(`${e.sn}:${e.online}`);
    });
    try {
      const differs = await Promise.all(
        refs.map((d) => presence.online(d!, { ip: '10.0.0.1', protocol: 'mqtt/4' })),
      );
      expect(differs.every((x) => x === false)).toBe(true);
      expect(presence.stats.batches - before.batches).toBe(1);
      const applied = await Promise.all([
        presence.offline(refs[0]!, 'client close', true),
        presence.offline(refs[1]!, 'takeover', false),
      ]);
      expect(applied).toEqual([true, false]);
      expect(presence.stats.batches - before.batches).toBe(2);
      const rows = (await get(`/api/devices?per_page=100&product_key=${fleet[0]!.productKey}`)) as {
        data: { sn: string; online: number; activatedat: string | null; protocol: string }[];
      };
      const bySn = new Map(rows.data.map((r) => [r.sn, r]));
      expect(bySn.get(fleet[0]!.sn)?.online).toBe(0);
      expect(bySn.get(fleet[1]!.sn)?.online).toBe(1);
      expect(rows.data.every((r) => r.activatedat !== null && r.protocol === 'mqtt/4')).toBe(true);
      expect((await logs(fleet[1]!.sn, 'disconnect'))[0]?.detail).toEqual({ reason: 'takeover' });
      expect((await logs(fleet[2]!.sn, 'connect'))[0]?.detail).toMatchObject({ ip: '10.0.0.1' });
      // Browsers learn of presence from the gateway's `presence.changed` (presence-live.test.ts), never from the
      // writer: one event per change.
      expect(events).toEqual([]);
    } finally {
      off();
    }
  });
});

describe('graceful stop', () => {
  it('leaves a publish that reaches a stopping gateway unacknowledged and closes the connection', async () => {
    // Its own app: the gateway stops here while the broker still takes connections, as in a SIGTERM (the gateway's
    // onClose hook runs before the broker's).
    const s = await buildTestApp();
    try {
      const user = await s.createUser();
      const [d] = await createDevices(s, user.token, ['STOP-1']);
      const c = await connectDevice(`mqtt://127.0.0.1:${s.app.broker.port}`, d!);
      await c.publishAsync(up(d!, 'property'), JSON.stringify({ temp: 1 }), { qos: 1 });
      await s.app.gateway.close();
      let acked = false;
      const closed = new Promise<void>((resolve) => c.once('close', () => resolve()));
      void c.publishAsync(up(d!, 'property'), JSON.stringify({ temp: 2 }), { qos: 1 }).then(
        () => (acked = true),
        () => undefined,
      );
      await closed;
      // No PUBACK: the device keeps the message and sends it again to the next server it reaches.
      expect(acked).toBe(false);
      expect(s.app.gateway.stopping).toBe(true);
      await c.endAsync(true).catch(() => undefined);
    } finally {
      await s.close();
    }
  });
});
