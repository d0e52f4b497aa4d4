import type { IPublishPacket, Packet } from 'mqtt-packet';
import { downTopic, upTopic } from '@cellhub/contract/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from '../test/app';
import { createDevices, eventually, type TestDevice } from '../test/gateway-test-kit';
import { RawMqtt, type RawTarget, listenForRawDevices } from '../test/raw-mqtt';

/**
 * Dropped messages, with raw packets on every transport and version: a device is told why when its property message
 * carries an `id` (10104 over the rate, 50001 too large, docs/device-protocol.md), and every drop is counted on the
 * device by reason (GET /api/devices/:sn/drops, the device detail's "dropped messages").
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

const get = async <T>(url: string, token = owner.token) =>
  (await t.inject({ method: 'GET', url, token })).json() as { data: T };

interface Reply {
  id: string;
  code: number;
}

/** The property replies received so far, once there are `n`, in the order they came. */
async function replies(raw: RawMqtt, d: TestDevice, n: number): Promise<Reply[]> {
  const topic = downTopic(d.productKey, d.sn, 'property_reply');
  const on = (ps: Packet[]) =>
    ps.filter((p): p is IPublishPacket => p.cmd === 'publish' && p.topic === topic);
  await raw.until((ps) => on(ps).length >= n, `${n} property replies`);
  return on(raw.packets).map((p) => JSON.parse(p.payload.toString()) as Reply);
}

const CASES: [Transport, Version][] = [
  ['tcp', 4],
  ['tcp', 5],
  ['ws', 4],
  ['ws', 5],
];

describe.each(CASES)('a device over its limits (%s, MQTT %i)', (transport, version) => {
  let d: TestDevice;
  let saved: typeof t.app.gateway.options;
  beforeAll(async () => {
    d = (await createDevices(t, owner.token, [`DROP-${transport}-${version}`]))[0]!;
    saved = { ...t.app.gateway.options };
    // Three messages of burst and (practically) no refill; payloads up to 2 KB.
    Object.assign(t.app.gateway.options, { ratePerSecond: 0.001, rateBurst: 3, maxPayloadBytes: 2048 });
  });
  afterAll(() => {
    Object.assign(t.app.gateway.options, saved);
  });

  it('is told 10104 and 50001 for messages with an id, and every drop is counted by reason', async () => {
    const raw = await RawMqtt.open(at[transport], version);
    raws.push(raw);
    raw.send(raw.connectPacket(d));
    const connack = await raw.next('connack');
    expect(version === 5 ? connack.reasonCode : connack.returnCode).toBe(0);
    raw.send({
      cmd: 'subscribe',
      messageId: 1,
      subscriptions: [{ topic: downTopic(d.productKey, d.sn, 'property_reply'), qos: 1 }],
    });
    await raw.next('suback');

    const property = upTopic(d.productKey, d.sn, 'property');
    const publish = (messageId: number, payload: unknown, topic = property): Packet => ({
      cmd: 'publish',
      topic,
      payload: Buffer.from(JSON.stringify(payload)),
      qos: 1,
      messageId,
      dup: false,
      retain: false,
    });
    const big = 'x'.repeat(4096);
    // A device flushing its buffer: everything in one write.
    const flush = [
      ...Array.from({ length: 8 }, (_, i) => publish(10 + i, { id: `r${i}`, params: { n: i } })),
      // Over the rate without an id: dropped and counted, no answer.
      publish(20, { params: { n: 99 } }),
      // Too large, with its id after the large value: still answered.
      publish(21, { params: { blob: big }, id: 'big' }),
      // Too large and not a property message: counted only.
      publish(22, { fw_version: big }, upTopic(d.productKey, d.sn, 'info')),
    ];
    raw.send(Buffer.concat(flush.map((p) => raw.encode(p))));
    const got = await replies(raw, d, 9);
    const byId = new Map(got.map((r) => [r.id, r.code]));
    expect(byId).toEqual(
      new Map([
        ['r0', 0],
        ['r1', 0],
        ['r2', 0],
        ['r3', 10104],
        ['r4', 10104],
        ['r5', 10104],
        ['r6', 10104],
        ['r7', 10104],
        ['big', 50001],
      ]),
    );
    // Each was acknowledged: the device must not resend what the server chose to drop.
    await raw.until((ps) => ps.filter((p) => p.cmd === 'puback').length >= 11, '11 PUBACKs');
    const acked = raw.packets.flatMap((p) => (p.cmd === 'puback' ? [p.messageId!] : []));
    expect(acked.sort((a, b) => a - b)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 20, 21, 22]);

    // The limits lifted, one more message: its reply is the last one, so none came for the message without id.
    Object.assign(t.app.gateway.options, { ratePerSecond: 0 });
    raw.send(publish(30, { id: 'sentinel', params: { n: 100 } }));
    const all = await replies(raw, d, 10);
    expect(all.slice(9)).toEqual([{ id: 'sentinel', code: 0 }]);
    expect(raw.count('publish')).toBe(10);

    // Only the admitted ones were stored.
    const history = await get<{ value: number }[]>(`/api/devices/${d.sn}/properties?key=n`);
    expect(history.data.map((p) => p.value).sort((a, b) => a - b)).toEqual([0, 1, 2, 100]);

    const drops = await eventually(async () => {
      const r = await get<{ total: number; reasons: { reason: string; count: number }[] }>(
        `/api/devices/${d.sn}/drops`,
      );
      return r.data.total === 8 ? r.data : undefined;
    });
    expect(drops.reasons.map((r) => [r.reason, r.count])).toEqual([
      ['rate_limit', 6],
      ['too_large', 2],
    ]);
    expect((await get<{ rejected_count: number }>(`/api/devices/${d.sn}`)).data.rejected_count).toBe(8);
    raw.destroy();
  });
});

describe.each([4, 5] as Version[])('a packet over 256 KB (tcp, MQTT %i)', (version) => {
  it('closes the connection and counts a too_large drop on the device', async () => {
    const [d] = await createDevices(t, owner.token, [`DROP-HUGE-${version}`]);
    const raw = await RawMqtt.open(at.tcp, version);
    raws.push(raw);
    raw.send(raw.connectPacket(d!));
    const connack = await raw.next('connack');
    expect(version === 5 ? connack.reasonCode : connack.returnCode).toBe(0);
    raw.send({
      cmd: 'publish',
      topic: upTopic(d!.productKey, d!.sn, 'property'),
      payload: Buffer.alloc(300 * 1024, 0x61),
      qos: 1,
      messageId: 1,
      dup: false,
      retain: false,
    });
    await raw.closed;
    // MQTT 5.0 says why; 3.1.1 has no way to.
    if (version === 5) expect(raw.packets.at(-1)).toMatchObject({ cmd: 'disconnect', reasonCode: 0x95 });
    expect(raw.packets.filter((p) => p.cmd === 'puback')).toEqual([]);
    const drops = await eventually(async () => {
      const r = await get<{ total: number; reasons: { reason: string; count: number }[] }>(
        `/api/devices/${d!.sn}/drops`,
      );
      return r.data.total > 0 ? r.data : undefined;
    });
    expect(drops.total).toBe(1);
    expect(drops.reasons.map((r) => [r.reason, r.count])).toEqual([['too_large', 1]]);
  });
});

describe('GET /api/devices/:sn/drops', () => {
  it('answers for a device the caller may see only, like one that does not exist', async () => {
    const [d] = await createDevices(t, owner.token, ['DROP-OWN']);
    expect(await get(`/api/devices/${d!.sn}/drops`)).toMatchObject({ data: { total: 0, reasons: [] } });
    const other = await t.createUser();
    const res = await t.inject({ method: 'GET', url: `/api/devices/${d!.sn}/drops`, token: other.token });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe(10117);
    const admin = await t.adminToken();
    expect((await get(`/api/devices/${d!.sn}/drops`, admin)).data).toEqual({ total: 0, reasons: [] });
  });
});
