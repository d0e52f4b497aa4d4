import net, { type AddressInfo } from 'node:net';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import type { IConnackPacket, IDisconnectPacket, Packet } from 'mqtt-packet';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebSocketStream, WebSocketServer } from 'ws';
import { eventually, type TestDevice } from '../../test/gateway-test-kit';
import { fixedHeader, RawMqtt, type RawTarget } from '../../test/raw-mqtt';
import { HOLD_BEFORE_CONNACK_BYTES } from './device-stream';
import { MAX_PACKET_BYTES } from './packet-scanner';
import { ProtocolFront } from './protocol-front';

// The connection layer every device goes through (DeviceStream behind the ProtocolFront), on a bare Aedes (no
// gateway: every client may connect, publish and subscribe), over TCP and WebSocket, with raw packets. What the
// gateway makes of it (stored rows, the device log) is in ../connection-limits.test.ts.

let aedes: Aedes;
let front: ProtocolFront;
let server: net.Server;
let wss: WebSocketServer;
let targets: { tcp: RawTarget; ws: RawTarget };
const clients: MqttClient[] = [];
const raws: RawMqtt[] = [];
const sockets = new Set<net.Socket>();

beforeEach(async () => {
  aedes = await Aedes.createBroker({ connectTimeout: 2000 });
  front = new ProtocolFront(aedes);
  server = net.createServer((s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    front.handle(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  wss.on('connection', (ws, req) => front.handle(createWebSocketStream(ws), req));
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  targets = {
    tcp: { tcp: (server.address() as AddressInfo).port },
    ws: { ws: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mqtt` },
  };
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.endAsync(true).catch(() => undefined)));
  for (const r of raws.splice(0)) r.destroy();
  await new Promise<void>((resolve) => aedes.close(() => resolve()));
  for (const ws of wss.clients) ws.terminate();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  // Refused connections wait out their grace period: not the test's business.
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const device = (sn: string): TestDevice => ({ sn, productKey: 'pk', secret: 'secret' });

async function open(transport: 'tcp' | 'ws', version: 3 | 4 | 5): Promise<RawMqtt> {
  const raw = await RawMqtt.open(targets[transport], version);
  raws.push(raw);
  return raw;
}

/** A subscriber (mqtt.js over TCP) that keeps every payload it receives on `filter`. */
async function subscriber(filter: string): Promise<{ got: string[] }> {
  const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`, {
    clientId: `sub-${Math.random().toString(36).slice(2)}`,
    reconnectPeriod: 0,
  });
  clients.push(c);
  const got: string[] = [];
  c.on('message', (_topic, payload) => got.push(payload.toString()));
  await c.subscribeAsync(filter, { qos: 1 });
  return { got };
}

const connackCode = (p: Packet) =>
  (p as IConnackPacket).reasonCode ?? (p as IConnackPacket).returnCode ?? Number.NaN;

/** Writes `header` and then up to `total` bytes of body in 64 KB pieces, as fast as the connection takes them. */
async function streamBody(raw: RawMqtt, header: Buffer, total: number): Promise<number> {
  const piece = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  raw.send(header);
  while (sent < total && !raw.isClosed) {
    sent += piece.length;
    if (!raw.stream.write(piece)) {
      await new Promise<void>((resolve) => {
        raw.stream.once('drain', resolve);
        void raw.closed.then(resolve);
      });
    }
  }
  return sent;
}

describe('packets right behind the CONNECT', () => {
  for (const transport of ['tcp', 'ws'] as const) {
    for (const version of [4, 5] as const) {
      it(`${transport}, MQTT ${version}: CONNACK, then every one of 200 QoS 1 publishes acknowledged and delivered once`, async () => {
        const sub = await subscriber('flush/#');
        const raw = await open(transport, version);
        const d = device(`flush-${transport}-${version}`);
        const n = 200;
        const publishes = Array.from({ length: n }, (_, i) =>
          raw.publishPacket(`flush/${d.sn}`, `${d.sn}:${i + 1}`, i + 1),
        );
        // One write: the CONNECT and everything the device buffered, before any CONNACK (Aedes alone drops the
        // connection at its 43rd queued packet).
        raw.send(Buffer.concat([raw.connectPacket(d), ...publishes]));
        await raw.until((ps) => ps.filter((p) => p.cmd === 'puback').length === n, `${n} PUBACKs`);
        expect(raw.packets[0]).toMatchObject({ cmd: 'connack' });
        expect(connackCode(raw.packets[0]!)).toBe(0);
        expect(new Set(raw.packets.filter((p) => p.cmd === 'puback').map((p) => p.messageId)).size).toBe(n);
        // Delivered in order, each once: the sentinel, sent last, arrives after all of them.
        raw.send(raw.publishPacket(`flush/${d.sn}`, 'end', n + 1));
        await eventually(async () => (sub.got.includes('end') ? true : undefined));
        expect(sub.got).toEqual([...Array.from({ length: n }, (_, i) => `${d.sn}:${i + 1}`), 'end']);
        expect(raw.isClosed).toBe(false);
      });
    }
  }

  it('holds a flush larger than the hold buffer in the TCP window, and takes all of it after the CONNACK', async () => {
    const sub = await subscriber('big/#');
    const raw = await open('tcp', 4);
    const d = device('big-flush');
    const payload = 'x'.repeat(1000);
    const n = Math.ceil((4 * HOLD_BEFORE_CONNACK_BYTES) / payload.length);
    raw.send(
      Buffer.concat([
        raw.connectPacket(d),
        ...Array.from({ length: n }, (_, i) => raw.publishPacket('big/1', `${i + 1}:${payload}`, i + 1)),
      ]),
    );
    await raw.until((ps) => ps.filter((p) => p.cmd === 'puback').length === n, `${n} PUBACKs`, 20_000);
    expect(raw.packets[0]).toMatchObject({ cmd: 'connack', returnCode: 0 });
    await eventually(async () => (sub.got.length >= n ? true : undefined), 10_000);
    expect(sub.got.map((p) => Number(p.split(':')[0]))).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  });

  it('gives the held packets to no one when the CONNACK refuses the connection', async () => {
    const published: string[] = [];
    aedes.on('publish', (p) => published.push(p.topic));
    aedes.authenticate = (_client, _username, _password, done) => {
      done(Object.assign(new Error('no'), { returnCode: 4 as const }), false);
    };
    const raw = await open('tcp', 4);
    const d = device('refused');
    raw.send(Buffer.concat([raw.connectPacket(d), raw.publishPacket('refused/1', 'x', 1)]));
    await raw.closed;
    expect(raw.packets).toEqual([expect.objectContaining({ cmd: 'connack', returnCode: 4 })]);
    expect(published.filter((t) => t.startsWith('refused/'))).toEqual([]);
  });
});

describe('packet size limit', () => {
  const HUGE = 250 * 1024 * 1024;

  it('closes TCP and WebSocket connections announcing 250 MB (before and after the CONNECT) at the header; memory stays flat', async () => {
    const before = process.memoryUsage();
    const attempts: Promise<number>[] = [];
    for (const transport of ['tcp', 'ws'] as const) {
      // Never signs in: a CONNECT of 250 MB, and a PUBLISH of 250 MB as the first packet.
      const bigConnect = await open(transport, 4);
      attempts.push(streamBody(bigConnect, fixedHeader(0x10, HUGE), HUGE));
      const publishFirst = await open(transport, 4);
      attempts.push(streamBody(publishFirst, fixedHeader(0x30, HUGE), HUGE));
      // Signed in (CONNACK 0), then a PUBLISH of 250 MB.
      const signedIn = await open(transport, 4);
      signedIn.send(signedIn.connectPacket(device(`big-${transport}`)));
      await signedIn.next('connack');
      attempts.push(streamBody(signedIn, fixedHeader(0x32, HUGE), HUGE));
    }
    const sent = await Promise.all(attempts);
    await Promise.all(raws.map((r) => r.closed));
    const after = process.memoryUsage();
    // Each connection was closed long before its 250 MB were through.
    for (const bytes of sent) expect(bytes).toBeLessThan(HUGE / 4);
    // Six 250 MB bodies buffered would add 1.5 GB; a few MB of socket buffers and test clients are noise.
    expect(after.rss - before.rss).toBeLessThan(96 * 1024 * 1024);
    expect(after.heapUsed - before.heapUsed).toBeLessThan(64 * 1024 * 1024);
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(64 * 1024 * 1024);
    expect(front.stats).toMatchObject({ tooLarge: 4, malformed: 2 });
  });

  it('takes a packet of exactly the limit and closes one of a byte more', async () => {
    const sub = await subscriber('limit/#');
    const raw = await open('tcp', 4);
    raw.send(raw.connectPacket(device('limit')));
    await raw.next('connack');
    const topic = 'limit/1';
    // Remaining Length = topic length field (2) + topic + packet id (2) + payload.
    const payloadAtLimit = Buffer.alloc(MAX_PACKET_BYTES - 2 - topic.length - 2, 0x62);
    raw.send(raw.publishPacket(topic, payloadAtLimit, 1));
    await raw.next('puback');
    await eventually(async () => (sub.got.length === 1 ? true : undefined));
    raw.send(raw.publishPacket(topic, Buffer.concat([payloadAtLimit, Buffer.from('!')]), 2));
    await raw.closed;
    expect(raw.count('puback')).toBe(1);
    expect(front.stats.tooLarge).toBe(1);
  });

  for (const transport of ['tcp', 'ws'] as const) {
    it(`${transport}, MQTT 5.0: CONNACK 0x95 for an oversized CONNECT, DISCONNECT 0x95 after the CONNACK, will published`, async () => {
      const wills = await subscriber('will/#');
      const early = await open(transport, 5);
      // The CONNECT's first bytes name its version (the refusal must be in its language): protocol name, level 5.
      const connectStart = Buffer.concat([
        fixedHeader(0x10, HUGE),
        Buffer.from([0, 4]),
        Buffer.from('MQTT'),
        Buffer.from([5]),
      ]);
      void streamBody(early, connectStart, HUGE);
      await early.closed;
      expect(early.packets).toEqual([expect.objectContaining({ cmd: 'connack', reasonCode: 0x95 })]);

      const late = await open(transport, 5);
      const d = device(`late-${transport}`);
      late.send(
        late.connectPacket(d, {
          will: { topic: `will/${d.sn}`, payload: Buffer.from('gone'), qos: 1, retain: false },
        }),
      );
      expect(connackCode(await late.next('connack'))).toBe(0);
      void streamBody(late, fixedHeader(0x32, HUGE), HUGE);
      expect((await late.next('disconnect')) as IDisconnectPacket).toMatchObject({ reasonCode: 0x95 });
      await late.closed;
      // A refused connection is a lost one: the will goes out.
      await eventually(async () => (wills.got.includes('gone') ? true : undefined));
      expect(front.stats.tooLarge).toBe(2);
    });
  }
});

describe('packet id 0 (MQTT-2.3.1-1; 5.0: MQTT-2.2.1-3)', () => {
  const zeroId = (bytes: Buffer, at: number) => {
    const b = Buffer.from(bytes);
    b.writeUInt16BE(0, at);
    return b;
  };

  for (const version of [3, 4, 5] as const) {
    for (const transport of ['tcp', 'ws'] as const) {
      const name = { 3: '3.1', 4: '3.1.1', 5: '5.0 (DISCONNECT 0x82)' }[version];
      it(`${transport}, MQTT ${name}: closes the connection unacknowledged, will published`, async () => {
        const wills = await subscriber('will/#');
        const delivered = await subscriber('z/#');
        const cases: [string, (r: RawMqtt) => Buffer][] = [
          // fixed header (2 bytes) + topic length (2) + topic "z/1" (3): the id starts at byte 7
          ['PUBLISH QoS 1', (r) => zeroId(r.publishPacket('z/1', 'zero', 1, 1), 7)],
          ['PUBLISH QoS 2', (r) => zeroId(r.publishPacket('z/1', 'zero', 1, 2), 7)],
          [
            'SUBSCRIBE',
            (r) =>
              zeroId(
                r.encode({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'z/#', qos: 1 }] }),
                2,
              ),
          ],
          [
            'UNSUBSCRIBE',
            (r) => zeroId(r.encode({ cmd: 'unsubscribe', messageId: 1, unsubscriptions: ['z/#'] }), 2),
          ],
        ];
        for (const [what, packet] of cases) {
          const raw = await open(transport, version);
          const d = device(`zero-${version}-${transport}-${what.replace(/\W/g, '')}`);
          raw.send(
            raw.connectPacket(d, {
              will: { topic: `will/${d.sn}`, payload: Buffer.from(what), qos: 0, retain: false },
            }),
          );
          expect(connackCode(await raw.next('connack'))).toBe(0);
          // A good message first: the connection works until the bad packet.
          raw.send(raw.publishPacket('z/1', `ok ${what}`, 1));
          await raw.next('puback');
          raw.send(packet(raw));
          await raw.closed;
          if (version === 5) {
            expect(raw.packets.map((p) => p.cmd)).toEqual(['connack', 'puback', 'disconnect']);
            expect(raw.packets[2]).toMatchObject({ reasonCode: 0x82 });
          } else expect(raw.packets.map((p) => p.cmd)).toEqual(['connack', 'puback']);
          await eventually(async () => (wills.got.includes(what) ? true : undefined));
        }
        expect(delivered.got.filter((p) => p === 'zero')).toEqual([]);
        expect(front.stats.zeroPacketId).toBe(cases.length);
      });
    }
  }
});

describe('CONNACKs before flushes', () => {
  /** Holds the CONNECT of client ids starting with "slow" in authentication until `release` is called. */
  function slowAuth() {
    const held: (() => void)[] = [];
    aedes.authenticate = (client, _username, _password, done) => {
      if (client.id?.startsWith('slow')) held.push(() => done(null, true));
      else done(null, true);
    };
    return {
      held: () => held.length,
      release: () => {
        for (const go of held.splice(0)) go();
      },
    };
  }

  /** A second listener on the same Aedes, through a front with its own wait. */
  async function frontWith(connectsFirstMaxWaitMs: number): Promise<RawTarget> {
    const own = new ProtocolFront(aedes, { connectsFirstMaxWaitMs });
    const listener = net.createServer((s) => {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      own.handle(s);
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    aedes.once('closed', () => listener.close());
    return { tcp: (listener.address() as AddressInfo).port };
  }

  /** A device that writes its CONNECT and three messages at once; resolves its CONNACK and PUBACK times. */
  async function flusher(target: RawTarget, sn: string) {
    const raw = await RawMqtt.open(target, 4);
    raws.push(raw);
    let connackAt = 0;
    let pubacksAt = 0;
    raw.stream.on('data', () => {
      if (!connackAt && raw.count('connack') > 0) connackAt = performance.now();
      if (!pubacksAt && raw.count('puback') === 3) pubacksAt = performance.now();
    });
    raw.send(
      Buffer.concat([
        raw.connectPacket(device(sn)),
        ...[1, 2, 3].map((i) => raw.publishPacket('f/1', `${i}`, i)),
      ]),
    );
    return { raw, times: () => ({ connackAt, pubacksAt }) };
  }

  it("holds an accepted device's messages while another CONNECT is unanswered, and lets them in once it is", async () => {
    const auth = slowAuth();
    const target = await frontWith(60_000);
    const slow = await RawMqtt.open(target, 4);
    raws.push(slow);
    slow.send(slow.connectPacket(device('slow-1')));
    await eventually(async () => (auth.held() === 1 ? true : undefined));
    const fast = await flusher(target, 'fast-1');
    await fast.raw.next('connack');
    auth.release();
    await slow.next('connack');
    // Well before the 60 s wait: the answer to the other CONNECT let them in.
    await fast.raw.until((ps) => ps.filter((p) => p.cmd === 'puback').length === 3, '3 PUBACKs', 10_000);
  });

  it('lets them in after the longest wait when another CONNECT stays unanswered', async () => {
    const auth = slowAuth();
    const wait = 400;
    const target = await frontWith(wait);
    const slow = await RawMqtt.open(target, 4);
    raws.push(slow);
    slow.send(slow.connectPacket(device('slow-2')));
    await eventually(async () => (auth.held() === 1 ? true : undefined));
    const fast = await flusher(target, 'fast-2');
    await fast.raw.until((ps) => ps.filter((p) => p.cmd === 'puback').length === 3, '3 PUBACKs', 10_000);
    const { connackAt, pubacksAt } = fast.times();
    // Timers may fire a little early against performance.now(); a flush let in at once takes a few ms.
    expect(pubacksAt - connackAt).toBeGreaterThanOrEqual(wait - 50);
    expect(slow.count('connack')).toBe(0);
    auth.release();
  });

  it('never holds what a device sends after it received its CONNACK', async () => {
    const auth = slowAuth();
    const target = await frontWith(60_000);
    const slow = await RawMqtt.open(target, 4);
    raws.push(slow);
    slow.send(slow.connectPacket(device('slow-3')));
    await eventually(async () => (auth.held() === 1 ? true : undefined));
    const polite = await RawMqtt.open(target, 4);
    raws.push(polite);
    polite.send(polite.connectPacket(device('polite')));
    await polite.next('connack');
    polite.send(polite.publishPacket('p/1', 'after the CONNACK', 1));
    // Well before the 60 s wait, with the other CONNECT still unanswered.
    await polite.next('puback');
    expect(slow.count('connack')).toBe(0);
    auth.release();
  });

  it('lets a flush in at once when no other CONNECT is waiting', async () => {
    const target = await frontWith(60_000);
    const fast = await flusher(target, 'alone');
    await fast.raw.until((ps) => ps.filter((p) => p.cmd === 'puback').length === 3, '3 PUBACKs', 10_000);
  });
});
