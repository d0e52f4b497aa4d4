import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../test/app';
import { createDevices, eventually, type TestDevice, up } from '../test/gateway-test-kit';
import { fixedHeader, RawMqtt, type RawTarget } from '../test/raw-mqtt';

// The connection layer (gateway/mqtt5/device-stream.ts behind the protocol front) on the app's own listeners (the
// MQTT port and the /mqtt WebSocket route), with the gateway storing what devices send: issue 12, items 4, 5 (3.1.1)
// and 7. The bare-broker side of the same rules is in mqtt5/device-stream.test.ts.

let t: TestApp;
let owner: { token: string; uid: number };
let targets: { tcp: RawTarget; ws: RawTarget };
const raws: RawMqtt[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  owner = await t.createUser();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  targets = {
    tcp: { tcp: t.app.broker.port! },
    ws: { ws: `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mqtt` },
  };
});
afterAll(async () => {
  for (const r of raws) r.destroy();
  await t.close();
});

let serial = 0;
const device = async () => (await createDevices(t, owner.token, [`CL-${++serial}`]))[0]!;
const get = async <T>(path: string) =>
  (await t.inject({ method: 'GET', url: path, token: owner.token })).json() as T;
/** The `seq` values stored for a device, in any order. */
const storedSeqs = async (d: TestDevice) =>
  (
    await get<{ data: { value: number }[] }>(`/api/devices/${d.sn}/properties?key=seq&per_page=5000`)
  ).data.map((p) => p.value);
const disconnects = async (d: TestDevice) =>
  (await get<{ data: { detail: { reason?: string } }[] }>(`/api/devices/${d.sn}/logs?event=disconnect`)).data;
const code = (p: { returnCode?: number; reasonCode?: number }) => p.reasonCode ?? p.returnCode;

async function open(transport: 'tcp' | 'ws', version: 3 | 4 | 5): Promise<RawMqtt> {
  const raw = await RawMqtt.open(targets[transport], version);
  raws.push(raw);
  return raw;
}

/** A property message with a distinct seq (and ts, so rows never merge). */
const seqMessage = (raw: RawMqtt, d: TestDevice, seq: number, messageId = seq) =>
  raw.publishPacket(
    up(d, 'property'),
    JSON.stringify({ ts: 1_767_225_600_000 + seq, params: { seq } }),
    messageId,
  );

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('a device that flushes its buffer right behind its CONNECT (item 4)', () => {
  for (const transport of ['tcp', 'ws'] as const) {
    for (const version of [4, 5] as const) {
      it(`${transport}, MQTT ${version === 5 ? '5.0' : '3.1.1'}: CONNACK first, 100 messages acknowledged and stored once`, async () => {
        const d = await device();
        const raw = await open(transport, version);
        const n = 100;
        raw.send(Buffer.concat([raw.connectPacket(d), ...range(1, n).map((i) => seqMessage(raw, d, i))]));
        await raw.until((ps) => ps.filter((p) => p.cmd === 'puback').length === n, `${n} PUBACKs`, 20_000);
        expect(raw.packets[0]).toMatchObject({ cmd: 'connack' });
        expect(code(raw.packets[0] as { returnCode?: number })).toBe(0);
        // A PUBACK means stored: every message is there, once.
        expect((await storedSeqs(d)).sort((a, b) => a - b)).toEqual(range(1, n));
        expect(raw.isClosed).toBe(false);
      });
    }
  }

  it('takes a device over promptly while its previous connection’s messages are still being stored, and loses nothing acknowledged', async () => {
    const d = await device();
    // The previous connection's messages are held in the gateway until the new connection has its CONNACK: the
    // takeover must not wait for them (a CONNACK 1.5-3 s late was the symptom).
    const gateway = t.app.gateway;
    const uplink = gateway.uplink.bind(gateway);
    let releaseHeld!: () => void;
    const held = new Promise<void>((resolve) => (releaseHeld = resolve));
    let waiting = 0;
    gateway.uplink = async (dev, kind, payload, meta) => {
      if (
        dev.sn === d.sn &&
        (JSON.parse(payload.toString()) as { params: { seq: number } }).params.seq <= 50
      ) {
        waiting++;
        await held;
      }
      return uplink(dev, kind, payload, meta);
    };
    try {
      const first = await open('tcp', 4);
      first.send(first.connectPacket(d));
      await first.next('connack');
      first.send(Buffer.concat(range(1, 50).map((i) => seqMessage(first, d, i))));
      await eventually(async () => (waiting === 50 ? true : undefined), 10_000);

      // The device comes back on a new connection with what it has not had acknowledged, and new messages.
      const second = await open('tcp', 4);
      second.send(
        Buffer.concat([
          second.connectPacket(d),
          ...range(1, 50).map((i) => seqMessage(second, d, i)),
          ...range(51, 80).map((i) => seqMessage(second, d, i)),
        ]),
      );
      const connack = await second.next('connack', 10_000);
      expect(code(connack)).toBe(0);
      // The CONNACK came while all 50 of the first connection's messages were still held.
      expect(waiting).toBeGreaterThanOrEqual(50);
      await first.closed;
      releaseHeld();
      await second.until((ps) => ps.filter((p) => p.cmd === 'puback').length === 80, '80 PUBACKs', 20_000);
      expect(first.count('puback')).toBe(0);
      // Every acknowledged message is stored. The first connection's copies were stored too (its messages were
      // received, only their PUBACKs could not be sent): QoS 1 is "at least once" for what was not acknowledged.
      const seqs = await storedSeqs(d);
      for (const s of range(1, 80)) expect(seqs).toContain(s);
      expect(seqs.filter((s) => s > 50).sort((a, b) => a - b)).toEqual(range(51, 80));
      const reasons = await eventually(async () => {
        const l = await disconnects(d);
        return l.length ? l.map((r) => r.detail.reason) : undefined;
      });
      expect(reasons).toEqual(['takeover']);
    } finally {
      releaseHeld();
      gateway.uplink = uplink;
    }
  });
});

describe('packet size limit on the server listeners (item 7)', () => {
  const HUGE = 250 * 1024 * 1024;

  /** Writes a header announcing 250 MB and streams its body until the server closes the connection. */
  async function stream(raw: RawMqtt, header: Buffer): Promise<number> {
    const piece = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    raw.send(header);
    while (sent < HUGE && !raw.isClosed) {
      sent += piece.length;
      if (!raw.stream.write(piece)) {
        await new Promise<void>((resolve) => {
          raw.stream.once('drain', resolve);
          void raw.closed.then(resolve);
        });
      }
    }
    await raw.closed;
    return sent;
  }

  it('closes a connection announcing 250 MB at the header, before and after sign-in, on TCP and /mqtt; memory stays flat', async () => {
    const d = await device();
    const before = process.memoryUsage();
    const sent: Promise<number>[] = [];
    for (const transport of ['tcp', 'ws'] as const) {
      // Never signs in: a CONNECT announcing 250 MB.
      sent.push(stream(await open(transport, 4), fixedHeader(0x10, HUGE)));
      // Signed in: a PUBLISH (QoS 1) announcing 250 MB.
      const signedIn = await open(transport, 4);
      signedIn.send(signedIn.connectPacket(d));
      expect(code(await signedIn.next('connack'))).toBe(0);
      sent.push(stream(signedIn, Buffer.concat([fixedHeader(0x32, HUGE), Buffer.from([0, 1, 0x41, 0, 1])])));
      await signedIn.closed;
    }
    const bytes = await Promise.all(sent);
    const after = process.memoryUsage();
    for (const b of bytes) expect(b).toBeLessThan(HUGE / 4);
    // Four 250 MB bodies buffered would add 1 GB.
    expect(after.rss - before.rss).toBeLessThan(96 * 1024 * 1024);
    expect(after.heapUsed - before.heapUsed).toBeLessThan(64 * 1024 * 1024);
    expect(t.app.broker.front!.stats.tooLarge).toBeGreaterThanOrEqual(4);
    // Nothing was acknowledged or stored; the device log says the connections were lost.
    const reasons = await eventually(async () => {
      const l = await disconnects(d);
      return l.length === 2 ? l.map((r) => r.detail.reason) : undefined;
    });
    expect(reasons).toEqual(['connection lost', 'connection lost']);
    expect(await storedSeqs(d)).toEqual([]);
  });

  it('MQTT 5.0: DISCONNECT 0x95 (packet too large) on TCP and /mqtt', async () => {
    const d = await device();
    for (const transport of ['tcp', 'ws'] as const) {
      const raw = await open(transport, 5);
      raw.send(raw.connectPacket(d));
      expect(code(await raw.next('connack'))).toBe(0);
      void stream(raw, fixedHeader(0x32, HUGE));
      expect(await raw.next('disconnect')).toMatchObject({ reasonCode: 0x95 });
      await raw.closed;
    }
  });
});

describe('packet id 0 from an MQTT 3.1.1 device (item 5)', () => {
  for (const transport of ['tcp', 'ws'] as const) {
    it(`${transport}: a QoS 1 PUBLISH with packet id 0 closes the connection, unacknowledged and not stored`, async () => {
      const d = await device();
      const raw = await open(transport, 4);
      raw.send(raw.connectPacket(d));
      expect(code(await raw.next('connack'))).toBe(0);
      raw.send(seqMessage(raw, d, 1));
      await raw.next('puback');
      const zero = seqMessage(raw, d, 2, 1);
      // Fixed header (2 bytes), topic length (2), topic: then the packet id.
      zero.writeUInt16BE(0, 2 + 2 + Buffer.byteLength(up(d, 'property')));
      raw.send(zero);
      await raw.closed;
      expect(raw.count('puback')).toBe(1);
      await eventually(async () => ((await disconnects(d)).length === 1 ? true : undefined));
      expect(await storedSeqs(d)).toEqual([1]);
    });
  }
});
