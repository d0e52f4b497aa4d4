import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import mqtt, { type MqttClient } from 'mqtt';
import mqttPacket from 'mqtt-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downTopic } from '@cellhub/contract/protocol';
import { instanceClientId } from '../plugins/broker';
import { buildTestApp, errorOf, type TestApp } from '../test/app';
import {
  connectDevice,
  createDevices,
  eventually,
  nextMessage,
  type TestDevice,
  up,
} from '../test/gateway-test-kit';

const run = promisify(execFile);
const MOSQUITTO_URL = process.env.TEST_MQTT_URL;
const modes = ['embedded', ...(MOSQUITTO_URL ? ['mosquitto'] : [])] as const;

describe.each(modes)('message flows (%s broker)', (mode) => {
  let t: TestApp;
  let url: string;
  let owner: { token: string; uid: number };
  let plain: TestDevice[];
  let typed: TestDevice;
  const clients: MqttClient[] = [];
  // Unique per run: a shared Mosquitto also serves other test runs.
  const tag = randomBytes(3).toString('hex');
  const sn = (name: string) => `${name}-${tag}`;

  beforeAll(async () => {
    t = await buildTestApp(
      mode === 'mosquitto' ? { config: { mqttUrl: MOSQUITTO_URL, mqttShareGroup: `test${tag}` } } : {},
    );
    url = mode === 'mosquitto' ? MOSQUITTO_URL! : `mqtt://127.0.0.1:${t.app.broker.port}`;
    if (mode === 'mosquitto') await eventually(async () => (t.app.broker.healthy() ? true : undefined));
    owner = await t.createUser();
    plain = await createDevices(
      t,
      owner.token,
      ['F-1', 'F-2', 'F-3', 'F-4', 'F-5', 'F-6', 'F-7', 'F-8'].map(sn),
    );
    typed = (
      await createDevices(t, owner.token, [sn('T-1')], {
        name: 'typed',
        properties: [
          { key: 'temp', name: 'Temperature', datatype: 'number' },
          { key: 'door', name: 'Door', datatype: 'bool' },
        ],
      })
    )[0]!;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
    await t.close();
    if (mode === 'mosquitto') {
      // Drop the test instance's persistent session so it does not collect messages forever.
      const c = await mqtt.connectAsync(MOSQUITTO_URL!, {
        clientId: instanceClientId(t.dataDir),
        clean: true,
      });
      await c.endAsync();
    }
  });

  const get = async (path: string) =>
    (await t.inject({ method: 'GET', url: path, token: owner.token })).json();
  /** Connects, subscribes to its down topics and reports online (PROTOCOL.md). */
  async function online(
    d: TestDevice,
    options: Parameters<typeof connectDevice>[2] = {},
  ): Promise<MqttClient> {
    const c = await connectDevice(url, d, options);
    clients.push(c);
    await c.subscribeAsync(`dev/${d.productKey}/${d.sn}/down/#`, { qos: 1 });
    await c.publishAsync(up(d, 'status'), '{"online":1}', { qos: 1 });
    await eventually(async () => ((await get(`/api/devices/${d.sn}`)).data.online === 1 ? true : undefined));
    return c;
  }
  const history = async (d: TestDevice, key: string) =>
    (await get(`/api/devices/${d.sn}/properties?key=${key}`)) as {
      data: { ts: string; value: unknown }[];
      total: number;
    };

  it('stores a property message and answers property_reply code 0', async () => {
    const d = plain[0]!;
    const c = await online(d);
    const reply = nextMessage(c, downTopic(d.productKey, d.sn, 'property_reply'));
    await c.publishAsync(
      up(d, 'property'),
      JSON.stringify({ id: 'm1', params: { temp: 21.5, ok: true, mode: 'auto' } }),
      {
        qos: 1,
      },
    );
    expect(JSON.parse((await reply).toString())).toEqual({ id: 'm1', code: 0 });
    const latest = (await get(`/api/devices/${d.sn}/properties`)) as {
      data: { key: string; value: unknown }[];
    };
    expect(latest.data.map((p) => [p.key, p.value])).toEqual([
      ['mode', 'auto'],
      ['ok', true],
      ['temp', 21.5],
    ]);
  });

  it('counts messages per device and day, and a connect alone as activity', async () => {
    const [d, idle] = [plain[5]!, plain[6]!];
    const stats = async (s: string) => {
      const res = await t.app.deps.db.execute(sql`
        select s.messages from device_daily_stats s join devices d on d.id = s.device_id
        where d.sn = ${s} and s.day = current_date`);
      return (res as unknown as { rows: { messages: number }[] }).rows[0]?.messages;
    };
    const c = await online(d);
    const before = await eventually(() => stats(d.sn));
    for (let i = 0; i < 3; i++) {
      await c.publishAsync(up(d, 'property'), JSON.stringify({ params: { n: i } }), { qos: 1 });
    }
    await eventually(async () => ((await stats(d.sn)) === before + 3 ? true : undefined));
    await online(idle);
    expect(await eventually(() => stats(idle.sn))).toBeGreaterThanOrEqual(0);
  });

  it.runIf(mode === 'embedded')('acknowledges a QoS 1 publish only once its rows are stored', async () => {
    const d = plain[1]!;
    const c = await online(d);
    for (let i = 0; i < 20; i++) {
      // publishAsync resolves on PUBACK; right then the row must be readable.
      await c.publishAsync(up(d, 'property'), JSON.stringify({ params: { n: i } }), { qos: 1 });
      const h = await history(d, 'n');
      expect(h.total).toBe(i + 1);
      expect(h.data[0]!.value).toBe(i);
    }
  });

  it('stores a batch with device timestamps, and keeps the newest as the latest value', async () => {
    const d = plain[2]!;
    const c = await online(d);
    const base = Date.UTC(2024, 0, 1, 12);
    const items = [2, 0, 1].map((k) => ({ ts: base + k * 60_000, params: { hum: 40 + k } }));
    const reply = nextMessage(c, downTopic(d.productKey, d.sn, 'property_reply'));
    await c.publishAsync(up(d, 'property'), JSON.stringify({ id: 'b1', items }), { qos: 1 });
    expect(JSON.parse((await reply).toString()).code).toBe(0);
    const h = await eventually(async () => {
      const r = await history(d, 'hum');
      return r.total === 3 ? r : undefined;
    });
    expect(h.data.map((p) => [p.ts, p.value])).toEqual([
      [new Date(base + 120_000).toISOString(), 42],
      [new Date(base + 60_000).toISOString(), 41],
      [new Date(base).toISOString(), 40],
    ]);
    const from = new Date(base + 30_000).toISOString();
    const ranged = (await get(`/api/devices/${d.sn}/properties?key=hum&from=${from}`)) as { total: number };
    expect(ranged.total).toBe(2);
    const latest = (await get(`/api/devices/${d.sn}`)).data.properties as { key: string; value: number }[];
    expect(latest).toEqual([{ key: 'hum', ts: new Date(base + 120_000).toISOString(), value: 42 }]);
  });

  it('drops and counts malformed JSON, schema violations, unknown kinds and unknown properties, and keeps serving', async () => {
    const d = typed;
    const c = await online(d);
    const replyTopic = downTopic(d.productKey, d.sn, 'property_reply');
    const bad: [string, string, number | undefined][] = [
      ['property', '{not json', undefined],
      ['property', JSON.stringify({ id: 'e1', params: { temp: 'hot' } }), 70003],
      ['property', JSON.stringify({ id: 'e2', params: { nope: 1 } }), 70003],
      ['property', JSON.stringify({ id: 'e3', params: [] }), 10113],
      ['info', JSON.stringify({ rssi: 'strong' }), undefined],
      ['weather' as 'info', '{}', undefined],
      ['cmd_reply', JSON.stringify({ id: 'never-sent', code: 0 }), undefined],
    ];
    for (const [kind, payload, code] of bad) {
      const reply = code ? nextMessage(c, replyTopic) : undefined;
      await c.publishAsync(up(d, kind as 'info'), payload, { qos: 1 });
      if (reply) expect(JSON.parse((await reply).toString()).code).toBe(code);
    }
    const rejected = await eventually(async () => {
      const r = (await get(`/api/devices/${d.sn}`)).data.rejected_count as number;
      return r >= bad.length ? r : undefined;
    }, 8000);
    expect(rejected).toBe(bad.length);
    const logs = (await get(`/api/devices/${d.sn}/logs?event=rejected&per_page=100`)) as {
      data: { detail: { reason: string } }[];
    };
    expect(logs.data.map((l) => l.detail.reason)).toContain('malformed JSON');
    // Still serving: a good message is stored.
    const ok = nextMessage(c, replyTopic);
    await c.publishAsync(up(d, 'property'), JSON.stringify({ id: 'g1', params: { temp: 20, door: false } }), {
      qos: 1,
    });
    expect(JSON.parse((await ok).toString())).toEqual({ id: 'g1', code: 0 });
    expect(c.connected).toBe(true);
  });

  it('refuses a text value with a NUL character (it would fail the whole batch) and keeps storing', async () => {
    const d = plain[7]!;
    const c = await online(d);
    const replyTopic = downTopic(d.productKey, d.sn, 'property_reply');
    const bad = nextMessage(c, replyTopic);
    await c.publishAsync(up(d, 'property'), JSON.stringify({ id: 'n1', params: { s: 'a\u0000b' } }), {
      qos: 1,
    });
    expect(JSON.parse((await bad).toString())).toMatchObject({ id: 'n1', code: 10113 });
    const ok = nextMessage(c, replyTopic);
    await c.publishAsync(up(d, 'property'), JSON.stringify({ id: 'n2', params: { s: 'ab' } }), { qos: 1 });
    expect(JSON.parse((await ok).toString())).toEqual({ id: 'n2', code: 0 });
    expect((await history(d, 's')).data.map((p) => p.value)).toEqual(['ab']);
  });

  it('stores P/up/info fields on the device row', async () => {
    const d = plain[3]!;
    const c = await online(d);
    const info = {
      fw_version: '1.2.0',
      imei: '861234567890123',
      iccid: '8986001234567890123',
      rssi: -71,
      csq: 22,
      band: 3,
    };
    await c.publishAsync(up(d, 'info'), JSON.stringify(info), { qos: 1 });
    const row = await eventually(async () => {
      const r = (await get(`/api/devices/${d.sn}`)).data;
      return r.fw_version === '1.2.0' ? r : undefined;
    });
    expect(row).toMatchObject({ imei: info.imei, iccid: info.iccid, rssi: -71, csq: 22, band: '3' });
  });

  it('sends config down when set, on config_get, and tracks the reported version', async () => {
    const d = plain[4]!;
    const c = await online(d);
    const configTopic = downTopic(d.productKey, d.sn, 'config');
    const config = { global: { apn: { name: 'cmnet' } }, serial: { rs485: { baud: 9600, parity: 'none' } } };
    const down = nextMessage(c, configTopic);
    const put = await t.inject({
      method: 'PUT',
      url: `/api/devices/${d.sn}/config`,
      token: owner.token,
      payload: { config },
    });
    expect(put.json().data).toMatchObject({
      expect_config_version: 1,
      config_version_different: true,
      sent: true,
    });
    expect(JSON.parse((await down).toString())).toEqual({ version: 1, config });
    await c.publishAsync(up(d, 'config'), JSON.stringify({ version: 1, config }), { qos: 1 });
    const state = await eventually(async () => {
      const s = (await get(`/api/devices/${d.sn}/config`)).data;
      return s.config_version === 1 ? s : undefined;
    });
    expect(state).toMatchObject({ config_version_different: false, config, expect_config: config });
    const again = nextMessage(c, configTopic);
    await c.publishAsync(up(d, 'config_get'), '{}', { qos: 1 });
    expect(JSON.parse((await again).toString()).version).toBe(1);
  });

  it('sends commands, matches the reply by id, validates hex, and refuses offline devices (20401)', async () => {
    const d = plain[0]!;
    const c = await online(d);
    const cmdTopic = downTopic(d.productKey, d.sn, 'cmd');
    const badHex = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/commands`,
      token: owner.token,
      payload: { type: 'hex', data: '0x0103' },
    });
    expect(errorOf(badHex).code).toBe(70003);
    const odd = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/commands`,
      token: owner.token,
      payload: { type: 'hex', data: '010' },
    });
    expect(errorOf(odd).code).toBe(70003);
    const down = nextMessage(c, cmdTopic);
    const sent = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/commands`,
      token: owner.token,
      payload: { type: 'hex', data: '01030000000AC5CD' },
    });
    const cmd = sent.json().data as { id: string; status: string };
    expect(cmd.status).toBe('sent');
    expect(JSON.parse((await down).toString())).toEqual({
      id: cmd.id,
      type: 'hex',
      data: '01030000000AC5CD',
    });
    await c.publishAsync(up(d, 'cmd_reply'), JSON.stringify({ id: cmd.id, code: 0, data: '010314' }), {
      qos: 1,
    });
    const replied = await eventually(async () => {
      const list = (await get(`/api/devices/${d.sn}/commands`)).data as { id: string; status: string }[];
      const mine = list.find((x) => x.id === cmd.id);
      return mine?.status === 'replied' ? mine : undefined;
    });
    expect(replied).toMatchObject({ code: 0, reply: '010314' });
    expect((replied as unknown as { latency_ms: number }).latency_ms).toBeGreaterThanOrEqual(0);

    // Raw bytes both ways.
    const rawDown = nextMessage(c, downTopic(d.productKey, d.sn, 'raw'));
    const rawSent = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/raw`,
      token: owner.token,
      payload: { data: 'DEADBEEF', encoding: 'hex' },
    });
    expect(rawSent.statusCode).toBe(200);
    expect((await rawDown).toString('hex')).toBe('deadbeef');
    await c.publishAsync(up(d, 'raw'), Buffer.from([1, 2, 3]), { qos: 1 });
    const raws = await eventually(async () => {
      const r = (await get(`/api/devices/${d.sn}/raw`)).data as { direction: string; data: string }[];
      return r.length === 2 ? r : undefined;
    });
    expect(raws[0]).toMatchObject({ direction: 'up', data: Buffer.from([1, 2, 3]).toString('base64') });

    // {"online":0} takes it offline; commands are refused.
    await c.publishAsync(up(d, 'status'), '{"online":0}', { qos: 1 });
    await eventually(async () => ((await get(`/api/devices/${d.sn}`)).data.online === 0 ? true : undefined));
    const offline = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/commands`,
      token: owner.token,
      payload: { type: 'string', data: 'AT' },
    });
    expect(errorOf(offline).code).toBe(20401);
  });

  it('marks the device offline when its will fires', async () => {
    const d = plain[3]!;
    const c = await online(d, {
      will: { topic: up(d, 'status'), payload: Buffer.from('{"online":0}'), qos: 1, retain: false },
    });
    // Dropping the socket without DISCONNECT makes the broker publish the will.
    c.stream.destroy();
    await eventually(async () => ((await get(`/api/devices/${d.sn}`)).data.online === 0 ? true : undefined));
    const logs = (await get(`/api/devices/${d.sn}/logs?event=disconnect`)).data as {
      detail: { reason: string };
    }[];
    // An external broker publishes the will like any message: the server cannot tell it from a status report.
    expect(logs[0]!.detail.reason).toBe(mode === 'embedded' ? 'will' : 'status offline or will');
  });

  it.runIf(mode === 'embedded')('detects a silent device after 1.5 x its keep-alive', async () => {
    const d = plain[4]!;
    const socket = net.connect(t.app.broker.port!, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.on('error', () => undefined);
    socket.write(
      mqttPacket.generate({
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 4,
        clean: true,
        clientId: d.sn,
        keepalive: 1,
        username: d.sn,
        password: Buffer.from(d.secret),
      }),
    );
    await eventually(async () => ((await get(`/api/devices/${d.sn}`)).data.online === 1 ? true : undefined));
    // No PINGREQ from here on.
    const logs = await eventually(async () => {
      const l = (await get(`/api/devices/${d.sn}/logs?event=disconnect`)).data as {
        detail: { reason: string };
      }[];
      return l[0]?.detail.reason === 'keep-alive timeout' ? l : undefined;
    }, 5000);
    expect(logs[0]!.detail.reason).toBe('keep-alive timeout');
    expect((await get(`/api/devices/${d.sn}`)).data.online).toBe(0);
    socket.destroy();
  });

  it.runIf(mode === 'embedded')(
    'drops messages over the per-device rate and the payload size limit',
    async () => {
      const d = plain[2]!;
      const c = await online(d);
      const before = (await get(`/api/devices/${d.sn}`)).data.rejected_count as number;
      const saved = { ...t.app.gateway.options };
      Object.assign(t.app.gateway.options, { ratePerSecond: 1, rateBurst: 2, maxPayloadBytes: 1024 });
      try {
        for (let i = 0; i < 5; i++) await c.publishAsync(up(d, 'property'), '{"params":{"r":1}}', { qos: 1 });
        Object.assign(t.app.gateway.options, { ratePerSecond: 0 });
        await c.publishAsync(
          up(d, 'property'),
          JSON.stringify({ params: { big: 'x'.repeat(1000) }, pad: 'y'.repeat(100) }),
          {
            qos: 1,
          },
        );
      } finally {
        Object.assign(t.app.gateway.options, saved);
      }
      const after = await eventually(async () => {
        const r = (await get(`/api/devices/${d.sn}`)).data.rejected_count as number;
        return r >= before + 4 ? r : undefined;
      });
      expect(after - before).toBe(4);
      expect(c.connected).toBe(true);
    },
  );

  it.runIf(mode === 'embedded' && existsSync('/usr/bin/mosquitto_pub'))(
    'works with mosquitto_pub as the device',
    async () => {
      const d = plain[1]!;
      await run('/usr/bin/mosquitto_pub', [
        ...['-h', '127.0.0.1', '-p', String(t.app.broker.port), '-V', 'mqttv311'],
        ...['-i', d.sn, '-u', d.sn, '-P', d.secret, '-q', '1'],
        ...['-t', up(d, 'property'), '-m', JSON.stringify({ params: { via_cli: 7 } })],
      ]);
      // mosquitto_pub exits after the PUBACK, so the row is there.
      const h = await history(d, 'via_cli');
      expect(h.data[0]!.value).toBe(7);
      const refused = await run('/usr/bin/mosquitto_pub', [
        ...['-h', '127.0.0.1', '-p', String(t.app.broker.port), '-i', d.sn, '-u', d.sn, '-P', 'wrong'],
        ...['-t', up(d, 'property'), '-m', '{}'],
      ]).then(
        () => 0,
        (e: { code?: number }) => e.code ?? -1,
      );
      expect(refused).not.toBe(0);
    },
  );
});
