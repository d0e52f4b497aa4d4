// Device hosts (issue 18): plain TCP and UDP clients on 127.0.0.1 play DTUs in socket mode against the real server.
import net from 'node:net';
import { and, eq } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceHostDetail, DeviceHostItem } from '@cellhub/contract/device-hosts';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { connectDevice, createDevices, eventually, type TestDevice } from '../../test/gateway-test-kit';
import { SocketDtu } from '../../test/socket-dtu';
import { ModbusBus } from '../../../../devsim/src/modbus';
import { DEFAULT_SOCKET_OPTIONS, SocketFleet } from '../../../../devsim/src/socket-dtu';
import {
  dataTemplates,
  dataTemplateSlaves,
  dataTemplateVariables,
  deviceDataTemplates,
} from '../data-templates/data-templates.table';
import { auditLogs } from '../audit/audit.table';
import { deviceLogs } from '../device-log/device-log.table';
import { devices } from '../devices/devices.table';
import { rawMessages } from '../telemetry/telemetry.table';

// The device-host test block of ports (19200-19299).
const PORTS = { min: 19200, max: 19299 };
let t: TestApp;
let admin: string;
let owner: { uid: number; token: string; username: string };
let devs: TestDevice[];
const dtus: SocketDtu[] = [];
const mqttClients: MqttClient[] = [];
const fleets: SocketFleet[] = [];

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

async function createHost(payload: Record<string, unknown>): Promise<DeviceHostItem> {
  const res = await t.inject({ method: 'POST', url: '/api/device-hosts', token: admin, payload });
  expect(res.statusCode, res.body).toBe(200);
  return data<DeviceHostItem>(res);
}

async function detail(id: number): Promise<DeviceHostDetail> {
  const res = await t.inject({ method: 'GET', url: `/api/device-hosts/${id}`, token: admin });
  expect(res.statusCode, res.body).toBe(200);
  return data<DeviceHostDetail>(res);
}

async function online(sn: string): Promise<number> {
  const res = await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token: owner.token });
  return data<{ online: number }>(res).online;
}

const waitOnline = (sn: string, want: 0 | 1) =>
  eventually(async () => ((await online(sn)) === want ? true : undefined), 8000);

async function rawUp(sn: string): Promise<string[]> {
  const [d] = await t.app.deps.db.select({ id: devices.id }).from(devices).where(eq(devices.sn, sn));
  const rows = await t.app.deps.db
    .select({ data: rawMessages.data })
    .from(rawMessages)
    .where(and(eq(rawMessages.deviceId, d!.id), eq(rawMessages.direction, 'up')));
  return rows.map((r) => Buffer.from(r.data, 'base64').toString('hex'));
}

async function dtu(protocol: 'tcp' | 'udp', port: number): Promise<SocketDtu> {
  const d = await SocketDtu.connect(protocol, port);
  dtus.push(d);
  return d;
}

beforeAll(async () => {
  t = await buildTestApp({
    config: {
      deviceHosts: { ports: PORTS, address: 'hosts.example.test' },
      scripts: { failuresToDisable: 20, timeLimitMs: 50, cacheMs: 0 },
    },
  });
  admin = await t.adminToken();
  owner = await t.createUser('hostowner');
  devs = await createDevices(
    t,
    owner.token,
    Array.from({ length: 8 }, (_, i) => `SOCK-${i + 1}`),
    {
      name: 'Socket DTU',
      properties: [{ key: 'temp', name: 'Temperature', datatype: 'number' }],
    },
  );
});

afterAll(async () => {
  for (const d of dtus) d.close();
  await Promise.all(fleets.map((f) => f.stop()));
  await Promise.all(mqttClients.map((c) => c.endAsync().catch(() => undefined)));
  await t.close();
});

describe('device host management', () => {
  it('is for admins; anyone signed in reads the enabled addresses', async () => {
    const body = { name: 'Rights', protocol: 'tcp', port: 19201, bind: '127.0.0.1' };
    const user = await t.inject({
      method: 'POST',
      url: '/api/device-hosts',
      token: owner.token,
      payload: body,
    });
    expect(errorOf(user).code).toBe(10108);
    expect(
      errorOf(await t.inject({ method: 'GET', url: '/api/device-hosts', token: owner.token })).code,
    ).toBe(10108);
    const host = await createHost(body);
    expect(host).toMatchObject({ state: 'listening', address: 'hosts.example.test:19201', connected: 0 });
    const audit = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.target, `device-host:${host.id}`));
    expect(audit.map((a) => a.action)).toEqual(['device_host_create']);
    for (const [method, url] of [
      ['GET', `/api/device-hosts/${host.id}`],
      ['PUT', `/api/device-hosts/${host.id}`],
      ['DELETE', `/api/device-hosts/${host.id}`],
    ] as const) {
      const res = await t.inject({
        method,
        url,
        token: owner.token,
        payload: method === 'PUT' ? {} : undefined,
      });
      expect(errorOf(res).code, `${method} ${url}`).toBe(10108);
    }
    const addresses = await t.inject({
      method: 'GET',
      url: '/api/device-hosts/addresses',
      token: owner.token,
    });
    expect(addresses.statusCode, addresses.body).toBe(200);
    expect(data<unknown[]>(addresses)).toContainEqual({
      id: host.id,
      name: 'Rights',
      protocol: 'tcp',
      address: 'hosts.example.test',
      port: 19201,
    });
    const list = await t.inject({ method: 'GET', url: '/api/device-hosts?keyword=Righ', token: admin });
    expect(data<DeviceHostItem[]>(list).map((h) => h.id)).toEqual([host.id]);
    const del = await t.inject({ method: 'DELETE', url: `/api/device-hosts/${host.id}`, token: admin });
    expect(del.statusCode, del.body).toBe(200);
    // Its port is free again.
    await new Promise<void>((resolve, reject) => {
      const s = net.createServer().listen(19201, '127.0.0.1', () => s.close(() => resolve()));
      s.once('error', reject);
    });
  });

  it('refuses ports outside the range, of another host, or in use on the machine, and bad rules', async () => {
    const out = await t.inject({
      method: 'POST',
      url: '/api/device-hosts',
      token: admin,
      payload: { name: 'Out', protocol: 'tcp', port: 1883 },
    });
    expect(errorOf(out).code).toBe(84001);
    const first = await createHost({ name: 'First', protocol: 'udp', port: 19202, bind: '127.0.0.1' });
    const again = await t.inject({
      method: 'POST',
      url: '/api/device-hosts',
      token: admin,
      payload: { name: 'Again', protocol: 'tcp', port: 19202 },
    });
    expect(errorOf(again).code).toBe(84002);
    // Another program holds the port: the bind fails and says why.
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(19203, '0.0.0.0', () => resolve()));
    try {
      const taken = await t.inject({
        method: 'POST',
        url: '/api/device-hosts',
        token: admin,
        payload: { name: 'Taken', protocol: 'tcp', port: 19203 },
      });
      expect(errorOf(taken).code).toBe(84002);
      expect(JSON.stringify(errorOf(taken).details)).toContain('EADDRINUSE');
      const moved = await t.inject({
        method: 'PUT',
        url: `/api/device-hosts/${first.id}`,
        token: admin,
        payload: { protocol: 'tcp', port: 19203 },
      });
      expect(errorOf(moved).code).toBe(84002);
      // The host keeps its old listener.
      expect((await detail(first.id)).state).toBe('listening');
    } finally {
      await new Promise((r) => squatter.close(r));
    }
    for (const [field, payload] of [
      ['register_pattern', { register_pattern: 'no capture' }],
      ['register_pattern', { register_pattern: '(a+)+$' }],
      ['heartbeat_data', { heartbeat_format: 'hex', heartbeat_data: 'XYZ' }],
    ] as const) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/device-hosts',
        token: admin,
        payload: { name: 'Bad', protocol: 'tcp', port: 19204, ...payload },
      });
      expect(errorOf(res).code, JSON.stringify(payload)).toBe(10113);
      expect(JSON.stringify(errorOf(res).details)).toContain(field);
    }
    const nul = await t.inject({
      method: 'POST',
      url: '/api/device-hosts',
      token: admin,
      payload: { name: 'a\u0000b', protocol: 'tcp', port: 19204 },
    });
    expect(errorOf(nul).code).toBe(10113);
    expect(
      errorOf(await t.inject({ method: 'GET', url: '/api/device-hosts/999999', token: admin })).code,
    ).toBe(84003);
  });
});

describe('a DTU in socket mode', () => {
  it('TCP, sn as text: online, raw stored, heartbeats not stored, command and raw downlinks, offline on close', async () => {
    const d = devs[0]!;
    const host = await createHost({
      name: 'TCP text',
      protocol: 'tcp',
      port: 19210,
      bind: '127.0.0.1',
      register_pattern: '^REG:(\\S+)$',
      heartbeat_data: 'PING',
      heartbeat_interval: 30,
    });
    const c = await dtu('tcp', 19210);
    await c.send(`REG:${d.sn}`);
    await waitOnline(d.sn, 1);
    await c.send(Buffer.from([1, 2, 3, 4]));
    await eventually(async () => ((await rawUp(d.sn)).includes('01020304') ? true : undefined));
    await c.send('PING');
    await eventually(async () => ((await detail(host.id)).counters.heartbeats === 1 ? true : undefined));
    expect(await rawUp(d.sn)).toEqual(['01020304']);

    const cmd = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/commands`,
      token: owner.token,
      payload: { type: 'string', data: 'HELLO' },
    });
    expect(cmd.statusCode, cmd.body).toBe(200);
    expect((await c.next((b) => b.toString() === 'HELLO')).toString()).toBe('HELLO');
    const raw = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/raw`,
      token: owner.token,
      payload: { data: '0103000A0001', encoding: 'hex' },
    });
    expect(raw.statusCode, raw.body).toBe(200);
    expect((await c.next((b) => b.toString('hex') === '0103000a0001')).toString('hex')).toBe('0103000a0001');

    const info = await detail(host.id);
    expect(info.devices).toEqual([
      expect.objectContaining({
        sn: d.sn,
        product_key: d.productKey,
        frames_in: 1,
        heartbeats: 1,
        bytes_out: 11,
      }),
    ]);
    expect(info.counters).toMatchObject({ connections: 1, registrations: 1, frames_in: 1, frames_out: 2 });
    expect(info.counters.bytes_in).toBe(`REG:${d.sn}`.length + 4 + 4);
    expect(info.connected).toBe(1);

    c.close();
    await waitOnline(d.sn, 0);
    const [row] = await t.app.deps.db.select({ id: devices.id }).from(devices).where(eq(devices.sn, d.sn));
    const log = await t.app.deps.db.select().from(deviceLogs).where(eq(deviceLogs.deviceId, row!.id));
    expect(log.map((l) => l.event)).toEqual(expect.arrayContaining(['connect', 'disconnect']));
    const offline = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/commands`,
      token: owner.token,
      payload: { type: 'string', data: 'LATE' },
    });
    expect(errorOf(offline).code).toBe(20401);
  });

  it('UDP, IMEI as hex: registers, its frames go through the product script', async () => {
    const d = devs[1]!;
    await t.app.deps.db.update(devices).set({ imei: '861234567890123' }).where(eq(devices.sn, d.sn));
    const script = await t.inject({
      method: 'POST',
      url: '/api/scripts',
      token: owner.token,
      payload: {
        name: 'socket decoder',
        product_key: d.productKey,
        // Two-byte frames are temperatures; anything else stays a raw message.
        source:
          'function decode(bytes) { if (bytes.length !== 2) return { properties: {} }; ' +
          'return { properties: { temp: ((bytes[0] << 8) | bytes[1]) / 10 } }; }',
      },
    });
    expect(script.statusCode, script.body).toBe(200);
    const host = await createHost({
      name: 'UDP hex',
      protocol: 'udp',
      port: 19211,
      bind: '127.0.0.1',
      register_by: 'imei',
      register_format: 'hex',
      register_pattern: '^AA55(\\d{15})F$',
      heartbeat_format: 'hex',
      heartbeat_data: 'FE',
    });
    const c = await dtu('udp', 19211);
    await c.send(Buffer.from('AA55861234567890123F', 'hex'));
    await waitOnline(d.sn, 1);
    await c.send(Buffer.from('00E7', 'hex'));
    await c.send(Buffer.from('FE', 'hex'));
    await eventually(async () => {
      const res = await t.inject({
        method: 'GET',
        url: `/api/devices/${d.sn}/properties`,
        token: owner.token,
      });
      const temp = data<{ key: string; value: unknown }[]>(res).find((p) => p.key === 'temp');
      return temp?.value === 23.1 ? true : undefined;
    });
    // The decoded frame became a property, not a raw row; the heartbeat is stored nowhere.
    expect(await rawUp(d.sn)).toEqual([]);
    const raw = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/raw`,
      token: owner.token,
      payload: { data: 'BEEF', encoding: 'hex' },
    });
    expect(raw.statusCode, raw.body).toBe(200);
    await c.next((b) => b.toString('hex') === 'beef');
    const info = await detail(host.id);
    expect(info.devices.map((x) => x.sn)).toEqual([d.sn]);
    expect(info.counters.heartbeats).toBe(1);
  });

  it('TCP, sn as hex, and UDP, sn as text', async () => {
    // A device whose sn is hex digits, sent as its bytes between two 7E flags.
    const [hexDev] = await createDevices(t, owner.token, ['A1B2C3D4'], { name: 'Hex DTU' });
    await createHost({
      name: 'TCP hex',
      protocol: 'tcp',
      port: 19212,
      bind: '127.0.0.1',
      register_format: 'hex',
      register_pattern: '^7E([0-9A-F]+)7E$',
    });
    const c = await dtu('tcp', 19212);
    await c.send(Buffer.from('7EA1B2C3D47E', 'hex'));
    await waitOnline(hexDev!.sn, 1);
    await c.send(Buffer.from('55', 'hex'));
    await eventually(async () => ((await rawUp(hexDev!.sn)).includes('55') ? true : undefined));
    const b = devs[3]!;
    await createHost({ name: 'UDP text', protocol: 'udp', port: 19213, bind: '127.0.0.1' });
    const u = await dtu('udp', 19213);
    await u.send(b.sn);
    await waitOnline(b.sn, 1);
    await u.send('t=1');
    await eventually(async () =>
      (await rawUp(b.sn)).includes(Buffer.from('t=1').toString('hex')) ? true : undefined,
    );
  });

  it('times out when idle, and is refused when unknown, disabled or not matching', async () => {
    const d = devs[4]!;
    const host = await createHost({
      name: 'Short idle',
      protocol: 'tcp',
      port: 19214,
      bind: '127.0.0.1',
      register_pattern: '^SN=(\\S+)',
      idle_timeout: 1,
    });
    const c = await dtu('tcp', 19214);
    await c.send(`SN=${d.sn}`);
    await waitOnline(d.sn, 1);
    await c.untilClosed(6000);
    await waitOnline(d.sn, 0);
    expect((await detail(host.id)).counters.timeouts).toBe(1);

    const unknown = await dtu('tcp', 19214);
    await unknown.send('SN=NOPE-1');
    await unknown.untilClosed();
    const nomatch = await dtu('tcp', 19214);
    await nomatch.send('hello');
    await nomatch.untilClosed();
    const disabled = await t.inject({
      method: 'PUT',
      url: `/api/devices/${d.sn}`,
      token: owner.token,
      payload: { disabled: true },
    });
    expect(disabled.statusCode, disabled.body).toBe(200);
    const off = await dtu('tcp', 19214);
    await off.send(`SN=${d.sn}`);
    await off.untilClosed();
    const info = await detail(host.id);
    expect(info.counters.refused).toBe(3);
    expect(info.refused_registrations.map((r) => [r.reason, r.id])).toEqual([
      ['disabled', d.sn],
      ['no_match', ''],
      ['unknown', 'NOPE-1'],
    ]);
    expect(info.refused_registrations[1]!.packet).toBe(Buffer.from('hello').toString('hex').toUpperCase());
    expect(await online(d.sn)).toBe(0);
  });

  it('a second registration takes over the first, and an MQTT session too', async () => {
    const d = devs[5]!;
    const host = await createHost({ name: 'Takeover', protocol: 'tcp', port: 19215, bind: '127.0.0.1' });
    const mqtt = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, d);
    mqttClients.push(mqtt);
    await waitOnline(d.sn, 1);
    const mqttClosed = new Promise<void>((resolve) => mqtt.once('close', () => resolve()));
    const first = await dtu('tcp', 19215);
    await first.send(d.sn);
    await mqttClosed;
    await eventually(async () => ((await detail(host.id)).connected === 1 ? true : undefined));
    const second = await dtu('tcp', 19215);
    await second.send(d.sn);
    await first.untilClosed();
    expect(await online(d.sn)).toBe(1);
    const raw = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/raw`,
      token: owner.token,
      payload: { data: 'CAFE', encoding: 'hex' },
    });
    expect(raw.statusCode, raw.body).toBe(200);
    await second.next((b) => b.toString('hex') === 'cafe');
    const [row] = await t.app.deps.db.select({ id: devices.id }).from(devices).where(eq(devices.sn, d.sn));
    await eventually(async () => {
      const log = await t.app.deps.db.select().from(deviceLogs).where(eq(deviceLogs.deviceId, row!.id));
      return log.filter((l) => (l.detail as { reason?: string }).reason === 'takeover').length >= 2
        ? true
        : undefined;
    });
    // Still online after the takeovers settled; an MQTT connection takes the device back.
    expect(await online(d.sn)).toBe(1);
    const back = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, d);
    mqttClients.push(back);
    await second.untilClosed();
    await eventually(async () => ((await detail(host.id)).connected === 0 ? true : undefined));
    expect(await online(d.sn)).toBe(1);
    const third = await dtu('tcp', 19215);
    await third.send(d.sn);
    await eventually(async () => ((await detail(host.id)).connected === 1 ? true : undefined));
    const del = await t.inject({ method: 'DELETE', url: `/api/device-hosts/${host.id}`, token: admin });
    expect(del.statusCode, del.body).toBe(200);
    await third.untilClosed();
    await waitOnline(d.sn, 0);
  });

  it('Modbus polling of a data template works over a socket-mode DTU (devsim --socket --modbus)', async () => {
    const [d] = await createDevices(t, owner.token, ['SOCK-MB'], { name: 'Socket Modbus DTU' });
    const db = t.app.deps.db;
    const [tpl] = await db
      .insert(dataTemplates)
      .values({ uid: owner.uid, name: 'socket meter', collectMode: 'platform' })
      .returning();
    const [slave] = await db
      .insert(dataTemplateSlaves)
      .values({ templateId: tpl!.id, name: 'meter', address: 1 })
      .returning();
    await db.insert(dataTemplateVariables).values({
      templateId: tpl!.id,
      slaveId: slave!.id,
      name: 'level',
      tag: 'level',
      samplingCycleS: 1,
      functionCode: 3,
      registerType: 'holding',
      registerAddress: 1,
      dataFormat: 'uint16',
    });
    const [row] = await db.select({ id: devices.id }).from(devices).where(eq(devices.sn, d!.sn));
    await db.insert(deviceDataTemplates).values({ deviceId: row!.id, templateId: tpl!.id });
    await createHost({ name: 'Modbus TCP', protocol: 'tcp', port: 19217, bind: '127.0.0.1' });
    const bus = new ModbusBus([{ address: 1 }]);
    bus.slave(1)!.set('holding', 0, 42, 'uint16');
    const fleet = new SocketFleet([{ sn: d!.sn, product_key: d!.productKey, secret: d!.secret }], {
      ...DEFAULT_SOCKET_OPTIONS,
      protocol: 'tcp',
      host: '127.0.0.1',
      port: 19217,
      rate: 0,
      modbus: () => bus,
    });
    fleets.push(fleet);
    await fleet.start();
    await waitOnline(d!.sn, 1);
    t.app.modbusPoller.invalidate();
    await eventually(async () => {
      const res = await t.inject({
        method: 'GET',
        url: `/api/devices/${d!.sn}/properties`,
        token: owner.token,
      });
      const level = data<{ key: string; value: unknown }[]>(res).find((p) => p.key === 'level');
      return level?.value === 42 ? true : undefined;
    }, 10_000);
    expect(fleet.stats.modbusAnswers).toBeGreaterThan(0);
    // Answers became values, not raw rows.
    expect(await rawUp(d!.sn)).toEqual([]);
  });

  it('a disabled host stops listening; enabling it starts it again', async () => {
    const host = await createHost({ name: 'Toggle', protocol: 'tcp', port: 19216, bind: '127.0.0.1' });
    const res = await t.inject({
      method: 'PUT',
      url: `/api/device-hosts/${host.id}`,
      token: admin,
      payload: { enabled: false },
    });
    expect(data<DeviceHostItem>(res).state).toBe('stopped');
    await expect(SocketDtu.connect('tcp', 19216)).rejects.toThrow(/ECONNREFUSED/);
    const on = await t.inject({
      method: 'PUT',
      url: `/api/device-hosts/${host.id}`,
      token: admin,
      payload: { enabled: true },
    });
    expect(data<DeviceHostItem>(on).state).toBe('listening');
    const c = await dtu('tcp', 19216);
    await c.send(devs[6]!.sn);
    await waitOnline(devs[6]!.sn, 1);
  });
});
