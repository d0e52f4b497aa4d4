import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  DataTransmitDetail,
  DataTransmitEvent,
  DataTransmitItem,
} from '@cellhub/contract/data-transmit';
import { downTopic } from '@cellhub/contract/protocol';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { connectDevice, createDevices, eventually, type TestDevice, up } from '../../test/gateway-test-kit';
import { SocketDtu } from '../../test/socket-dtu';
import { openSocket, listenUrl } from '../../test/ws-test-client';

let t: TestApp;
let url: string;
let owner: { uid: number; token: string; username: string };
let other: { uid: number; token: string; username: string };
const clients: MqttClient[] = [];

beforeAll(async () => {
  // Socket-mode DTUs (device hosts) take ports of this module's test block (19500-19599).
  t = await buildTestApp({
    config: { deviceHosts: { ports: { min: 19550, max: 19599 }, address: 'hosts.example.test' } },
  });
  url = `mqtt://127.0.0.1:${t.app.broker.port}`;
  owner = await t.createUser();
  other = await t.createUser();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.endAsync()));
  await t.close();
});

/** A connected device that records every `down/raw` frame it receives, in order. */
interface Live {
  d: TestDevice;
  client: MqttClient;
  frames: Buffer[];
  /** Resolves with the n-th frame (0-based) once it arrived. */
  frame(n: number): Promise<Buffer>;
  send(bytes: Buffer): Promise<void>;
}

async function online(d: TestDevice): Promise<Live> {
  const client = await connectDevice(url, d);
  clients.push(client);
  const frames: Buffer[] = [];
  const topic = downTopic(d.productKey, d.sn, 'raw');
  client.on('message', (tp, payload) => {
    if (tp === topic) frames.push(Buffer.from(payload));
  });
  await client.subscribeAsync(topic, { qos: 1 });
  return {
    d,
    client,
    frames,
    frame: (n) => eventually(async () => frames[n]),
    send: async (bytes) => {
      await client.publishAsync(up(d, 'raw'), bytes, { qos: 1 });
    },
  };
}

let seq = 0;
const sn = (tag: string) => `DT${tag}${Date.now().toString(36).toUpperCase()}${++seq}`;

async function create(token: string, payload: Record<string, unknown>) {
  return t.inject({ method: 'POST', url: '/api/data-transmit', token, payload });
}

async function detail(token: string, id: number): Promise<DataTransmitDetail> {
  const res = await t.inject({ method: 'GET', url: `/api/data-transmit/${id}`, token });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { data: DataTransmitDetail }).data;
}

const bytes = (...b: number[]) => Buffer.from(b);

describe('data transmission between devices', () => {
  let m: Live;
  let e1: Live;
  let e2: Live;
  let ruleId: number;

  beforeAll(async () => {
    const [dm, d1, d2] = await createDevices(t, owner.token, [sn('M'), sn('E'), sn('E')]);
    [m, e1, e2] = await Promise.all([online(dm!), online(d1!), online(d2!)]);
    const res = await create(owner.token, {
      name: 'Boiler room',
      group: 'plant A',
      management: [m.d.sn],
      edge: [{ sn: e1.d.sn }, { sn: e2.d.sn }],
    });
    expect(res.statusCode, res.body).toBe(200);
    ruleId = (res.json() as { data: DataTransmitItem }).data.id;
  });

  it('carries an edge device\u2019s bytes to the management device, byte for byte', async () => {
    // Every byte value, NUL and bytes that are not UTF-8 included.
    const frame = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    await e1.send(frame);
    expect((await m.frame(0)).equals(frame)).toBe(true);
  });

  it('carries a management device\u2019s bytes to every edge device', async () => {
    const frame = bytes(0x01, 0x03, 0x00, 0x00, 0x00, 0x0a, 0xc5, 0xcd);
    await m.send(frame);
    expect((await e1.frame(0)).equals(frame)).toBe(true);
    expect((await e2.frame(0)).equals(frame)).toBe(true);
  });

  it('counts frames, bytes and latency per device, and pushes them live', async () => {
    const pushed: DataTransmitEvent[] = [];
    const stop = t.app.deps.events.subscribeTasks((e) => {
      if (e.type === 'data-transmit.counters' && e.id === ruleId) pushed.push(e);
    });
    try {
      await e2.send(bytes(0xaa, 0xbb));
      await m.frame(1);
      const d = await eventually(async () => {
        const x = await detail(owner.token, ruleId);
        const c = x.devices.find((v) => v.sn === e2.d.sn)?.counters;
        return c && c.frames_up === 1 ? x : undefined;
      });
      const of = (s: string) => d.devices.find((v) => v.sn === s)!;
      expect(of(e1.d.sn).counters).toMatchObject({
        frames_up: 1,
        bytes_up: 256,
        frames_down: 1,
        bytes_down: 8,
      });
      expect(of(e2.d.sn).counters).toMatchObject({
        frames_up: 1,
        bytes_up: 2,
        frames_down: 1,
        bytes_down: 8,
      });
      expect(of(m.d.sn).counters).toMatchObject({
        frames_up: 1,
        bytes_up: 8,
        frames_down: 2,
        bytes_down: 258,
      });
      expect(of(m.d.sn).counters.latency_ms).toBeGreaterThanOrEqual(0);
      expect(of(m.d.sn).counters.latency_avg_ms).toBeGreaterThanOrEqual(0);
      expect(of(m.d.sn)).toMatchObject({ role: 'management', allowed: true, online: 1 });
      const event = await eventually(async () =>
        pushed.find((p) => p.devices.some((v) => v.sn === m.d.sn && v.frames_down === 2)),
      );
      expect(event.devices.find((v) => v.sn === m.d.sn)?.bytes_down).toBe(258);
    } finally {
      stop();
    }
  });

  it('sends the counters to the owner\u2019s browser as data-transmit.counters', async () => {
    const ws = await openSocket(await listenUrl(t.app));
    try {
      ws.send({ type: 'auth', token: owner.token });
      await ws.next('ready');
      const n = m.frames.length;
      await e1.send(bytes(0x42));
      expect((await m.frame(n)).equals(bytes(0x42))).toBe(true);
      const msg = await ws.next('data-transmit.counters', (x) => x.id === ruleId, 5000);
      expect(msg.devices.length).toBeGreaterThan(0);
    } finally {
      ws.close();
    }
  });

  it('sends nothing while the rule is disabled', async () => {
    const before = m.frames.length;
    const off = await t.inject({
      method: 'PUT',
      url: `/api/data-transmit/${ruleId}/status`,
      token: owner.token,
      payload: { status: 0 },
    });
    expect(off.statusCode, off.body).toBe(200);
    expect((off.json() as { data: DataTransmitItem }).data.status).toBe(0);
    await e1.send(bytes(0xde, 0xad));
    const on = await t.inject({
      method: 'PUT',
      url: `/api/data-transmit/${ruleId}/status`,
      token: owner.token,
      payload: { status: 1 },
    });
    expect(on.statusCode, on.body).toBe(200);
    await e1.send(bytes(0xbe, 0xef));
    // Frames of one device arrive in order: had the first one gone out, it would come first.
    expect((await m.frame(before)).equals(bytes(0xbe, 0xef))).toBe(true);
    expect(m.frames.slice(before).some((f) => f.equals(bytes(0xde, 0xad)))).toBe(false);
  });

  it('addresses one edge device by Modbus slave address, and counts unaddressed frames', async () => {
    const res = await t.inject({
      method: 'PUT',
      url: `/api/data-transmit/${ruleId}`,
      token: owner.token,
      payload: {
        name: 'Boiler room',
        group: 'plant A',
        address_mode: 'modbus',
        management: [m.d.sn],
        edge: [
          { sn: e1.d.sn, addresses: [1] },
          { sn: e2.d.sn, addresses: [2, 3] },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const n1 = e1.frames.length;
    const n2 = e2.frames.length;
    const toTwo = bytes(0x02, 0x03, 0x00, 0x01, 0x00, 0x01, 0xd5, 0xf9);
    const toOne = bytes(0x01, 0x03, 0x00, 0x01, 0x00, 0x01, 0xd5, 0xca);
    await m.send(toTwo);
    await m.send(bytes(0x09, 0x03));
    await m.send(toOne);
    expect((await e2.frame(n2)).equals(toTwo)).toBe(true);
    // e1's next frame is the one addressed to it: the one for address 2 never came.
    expect((await e1.frame(n1)).equals(toOne)).toBe(true);
    // Address 0 is the Modbus broadcast: every edge device.
    const all = bytes(0x00, 0x06, 0x00, 0x01, 0x00, 0x02);
    await m.send(all);
    expect((await e1.frame(n1 + 1)).equals(all)).toBe(true);
    expect((await e2.frame(n2 + 1)).equals(all)).toBe(true);
    const d = await eventually(async () => {
      const x = await detail(owner.token, ruleId);
      const c = x.devices.find((v) => v.sn === m.d.sn)?.counters;
      return c && c.drops >= 1 ? c : undefined;
    });
    expect(d.last_error).toBe(87005);
    // Counters of devices that stayed in the rule survive the edit.
    expect(d.frames_up).toBeGreaterThanOrEqual(4);
  });

  it('lists a device in several rules, and shows the others', async () => {
    const res = await create(owner.token, {
      name: 'Second bus',
      management: [e1.d.sn],
      edge: [{ sn: e2.d.sn }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const second = (res.json() as { data: DataTransmitItem }).data.id;
    const d = await detail(owner.token, ruleId);
    expect(d.devices.find((v) => v.sn === e1.d.sn)?.other_rules).toEqual([
      { id: second, name: 'Second bus', role: 'management' },
    ]);
    const cands = await t.inject({
      method: 'GET',
      url: '/api/data-transmit/devices',
      token: owner.token,
      query: { keyword: e2.d.sn },
    });
    expect(cands.statusCode, cands.body).toBe(200);
    const [c] = (cands.json() as { data: { sn: string; rules: { id: number }[] }[] }).data;
    expect(c?.rules.map((r) => r.id).sort()).toEqual([ruleId, second].sort());
    // e1 is management of the second rule: its frames reach e2 through it (and m through the first).
    const n2 = e2.frames.length;
    await e1.send(bytes(0x10, 0x20));
    expect((await e2.frame(n2)).equals(bytes(0x10, 0x20))).toBe(true);
    const del = await t.inject({ method: 'DELETE', url: `/api/data-transmit/${second}`, token: owner.token });
    expect(del.statusCode, del.body).toBe(200);
  });

  it('lists, filters by group and keyword, and deletes', async () => {
    const list = await t.inject({
      method: 'GET',
      url: '/api/data-transmit',
      token: owner.token,
      query: { group: 'plant A', keyword: 'boiler' },
    });
    expect(list.statusCode, list.body).toBe(200);
    const body = list.json() as { data: DataTransmitItem[]; total: number };
    expect(body.total).toBe(1);
    expect(body.data[0]).toMatchObject({ id: ruleId, owner: owner.username, address_mode: 'modbus' });
    expect(body.data[0]?.devices).toHaveLength(3);
    const groups = await t.inject({ method: 'GET', url: '/api/data-transmit/groups', token: owner.token });
    expect((groups.json() as { data: string[] }).data).toEqual(['plant A']);
    // Another user sees none of it.
    const theirs = await t.inject({ method: 'GET', url: '/api/data-transmit', token: other.token });
    expect((theirs.json() as { total: number }).total).toBe(0);
    const res = await t.inject({ method: 'GET', url: `/api/data-transmit/${ruleId}`, token: other.token });
    expect(errorOf(res).code).toBe(87004);
    const del = await t.inject({ method: 'DELETE', url: `/api/data-transmit/${ruleId}`, token: other.token });
    expect(errorOf(del).code).toBe(87004);
  });
});

describe('a socket-mode DTU (device host) in a rule', () => {
  it('exchanges bytes with an MQTT device both ways', async () => {
    const [mq, sock] = await createDevices(t, owner.token, [sn('Q'), sn('K')]);
    const admin = await t.adminToken();
    const host = await t.inject({
      method: 'POST',
      url: '/api/device-hosts',
      token: admin,
      payload: {
        name: 'transmit',
        protocol: 'tcp',
        port: 19551,
        bind: '127.0.0.1',
        register_pattern: '^REG:(\\S+)$',
      },
    });
    expect(host.statusCode, host.body).toBe(200);
    const res = await create(owner.token, {
      name: 'socket bus',
      management: [mq!.sn],
      edge: [{ sn: sock!.sn }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const m = await online(mq!);
    const dtu = await SocketDtu.connect('tcp', 19551);
    try {
      await dtu.send(`REG:${sock!.sn}`);
      await eventually(async () => (t.app.deps.link.online(sock!.sn, 0) ? true : undefined));
      const up = bytes(0x01, 0x03, 0x02, 0x00, 0x32, 0x39, 0x91);
      await dtu.send(up);
      expect((await m.frame(0)).equals(up)).toBe(true);
      const down = bytes(0x01, 0x03, 0x00, 0x0a, 0x00, 0x01, 0xa4, 0x08);
      await m.send(down);
      expect((await dtu.next((b) => b.equals(down))).equals(down)).toBe(true);
    } finally {
      dtu.close();
    }
  });
});

describe('rights', () => {
  it('takes only devices the caller controls: not a stranger\u2019s, not a view share\u2019s', async () => {
    const [mine] = await createDevices(t, other.token, [sn('O')]);
    const [theirs, viewed, controlled] = await createDevices(t, owner.token, [sn('S'), sn('V'), sn('C')]);
    for (const [dev, right] of [
      [viewed!, 'view'],
      [controlled!, 'control'],
    ] as const) {
      const s = await t.inject({
        method: 'POST',
        url: '/api/shares',
        token: owner.token,
        payload: { sns: [dev.sn], to: other.username, right },
      });
      expect(s.statusCode, s.body).toBe(200);
    }
    const stranger = await create(other.token, {
      name: 'x',
      management: [mine!.sn],
      edge: [{ sn: theirs!.sn }],
    });
    expect(stranger.statusCode).toBe(400);
    expect(errorOf(stranger)).toMatchObject({ code: 10117, details: [{ field: 'edge.0.sn' }] });
    const view = await create(other.token, { name: 'x', management: [viewed!.sn], edge: [{ sn: mine!.sn }] });
    expect(errorOf(view)).toMatchObject({ code: 10108, details: [{ field: 'management.0' }] });
    const ok = await create(other.token, {
      name: 'x',
      management: [mine!.sn],
      edge: [{ sn: controlled!.sn }],
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('stops frames at once when the control share ends', async () => {
    const [shared] = await createDevices(t, owner.token, [sn('R')]);
    const [own] = await createDevices(t, other.token, [sn('P')]);
    const s = await t.inject({
      method: 'POST',
      url: '/api/shares',
      token: owner.token,
      payload: { sns: [shared!.sn], to: other.username, right: 'control' },
    });
    expect(s.statusCode, s.body).toBe(200);
    const res = await create(other.token, {
      name: 'shared bus',
      management: [own!.sn],
      edge: [{ sn: shared!.sn }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = (res.json() as { data: DataTransmitItem }).data.id;
    const [pm, ps] = await Promise.all([online(own!), online(shared!)]);
    await ps.send(bytes(0x01));
    expect((await pm.frame(0)).equals(bytes(0x01))).toBe(true);

    const out = await t.inject({
      method: 'GET',
      url: '/api/shares/outgoing',
      token: owner.token,
      query: { sn: shared!.sn },
    });
    const shareId = (out.json() as { data: { id: number }[] }).data[0]!.id;
    const del = await t.inject({ method: 'DELETE', url: `/api/shares/${shareId}`, token: owner.token });
    expect(del.statusCode, del.body).toBe(200);

    await ps.send(bytes(0x02));
    await pm.send(bytes(0x03));
    const d = await eventually(async () => {
      const x = await detail(other.token, id);
      const c = x.devices.find((v) => v.sn === shared!.sn);
      return c && c.counters.drops >= 2 ? x : undefined;
    });
    const sharedRow = d.devices.find((v) => v.sn === shared!.sn)!;
    expect(sharedRow.allowed).toBe(false);
    expect(sharedRow.counters).toMatchObject({ last_error: 10108, frames_up: 1, frames_down: 0 });
    // Each frame was judged when it arrived and dropped then: nothing went out.
    expect(pm.frames).toHaveLength(1);
    expect(ps.frames).toHaveLength(0);
  });
});

describe('bad input', () => {
  let a: TestDevice;
  let b: TestDevice;
  beforeAll(async () => {
    [a, b] = (await createDevices(t, owner.token, [sn('A'), sn('B')])) as [TestDevice, TestDevice];
  });

  it.each([
    ['both roles', { management: () => [a.sn], edge: () => [{ sn: a.sn }] }, 87001, 'edge.0.sn'],
    ['twice', { management: () => [a.sn, a.sn], edge: () => [{ sn: b.sn }] }, 87002, 'management.1'],
    [
      'modbus without an address',
      { address_mode: 'modbus', management: () => [a.sn], edge: () => [{ sn: b.sn }] },
      87003,
      'edge.0.addresses',
    ],
  ] as const)('refuses a device %s', async (_name, shape, code, field) => {
    const payload = {
      name: 'bad',
      ...('address_mode' in shape ? { address_mode: shape.address_mode } : {}),
      management: shape.management(),
      edge: shape.edge(),
    };
    const res = await create(owner.token, payload);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code, details: [{ field }] });
  });

  it('refuses a Modbus address used by two edge devices', async () => {
    const [c] = await createDevices(t, owner.token, [sn('C')]);
    const res = await create(owner.token, {
      name: 'bad',
      address_mode: 'modbus',
      management: [a.sn],
      edge: [
        { sn: b.sn, addresses: [1, 2] },
        { sn: c!.sn, addresses: [2] },
      ],
    });
    expect(errorOf(res)).toMatchObject({ code: 87003, details: [{ field: 'edge.1.addresses' }] });
  });

  it.each([
    ['a NUL in the name', { name: 'a\u0000b' }],
    ['a lone surrogate in the group', { group: '\ud800' }],
    ['an address out of range', { edge: [{ sn: 'X1', addresses: [248] }] }],
    ['no edge device', { edge: [] }],
    ['a huge name', { name: 'n'.repeat(10_000) }],
    ['a bad status', { status: 2 }],
  ])('answers 10113 for %s', async (_name, patch) => {
    const res = await create(owner.token, {
      name: 'ok',
      management: [a.sn],
      edge: [{ sn: b.sn }],
      ...patch,
    });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe(10113);
  });

  it('answers 10113 for a huge id and 87004 for a missing rule', async () => {
    const huge = await t.inject({ method: 'GET', url: '/api/data-transmit/99999999999', token: owner.token });
    expect(errorOf(huge).code).toBe(10113);
    const missing = await t.inject({ method: 'GET', url: '/api/data-transmit/999999', token: owner.token });
    expect(errorOf(missing).code).toBe(87004);
  });
});
