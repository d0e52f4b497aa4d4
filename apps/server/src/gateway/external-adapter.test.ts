import net from 'node:net';
import { Aedes } from 'aedes';
import type { FastifyBaseLogger } from 'fastify';
import mqtt, { type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeviceAuthData } from './device-auth';
import type { DeviceGateway } from './device-gateway';
import { attachExternal, holdUplinks, pubackBytes } from './external-adapter';
import { eventually } from '../test/gateway-test-kit';

const device: DeviceAuthData = { id: 1, sn: 'SN1', productKey: 'pk01', uid: 1, secret: 's', disabled: false };
const log = {
  debug: () => undefined,
  error: () => undefined,
  warn: () => undefined,
} as unknown as FastifyBaseLogger;

/** A gateway whose uplinks settle only when the test says so (as if their batch committed). */
function heldGateway() {
  const held: { payload: string; settle: () => void }[] = [];
  const gateway = {
    auth: { peek: () => ({ data: device }), get: () => Promise.resolve(device) },
    uplink: (_ref: unknown, _kind: string, payload: Buffer) =>
      new Promise<void>((resolve) => held.push({ payload: payload.toString(), settle: resolve })),
  } as unknown as DeviceGateway;
  return { gateway, held };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(options: { attach?: boolean } = {}) {
  // Aedes stands in for Mosquitto: it records which packet ids the server acknowledges.
  const aedes = await Aedes.createBroker();
  const acks: number[] = [];
  aedes.on('ack', (packet, client) => {
    if (client?.id === 'server' && packet && 'messageId' in packet) acks.push(packet.messageId!);
  });
  const tcp = net.createServer((s) => aedes.handle(s));
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  const url = `mqtt://127.0.0.1:${(tcp.address() as net.AddressInfo).port}`;
  cleanups.push(async () => {
    await new Promise<void>((r) => aedes.close(() => r()));
    await new Promise<void>((r) => tcp.close(() => r()));
  });
  const server = mqtt.connect(url, {
    clientId: 'server',
    clean: false,
    protocolVersion: 4,
    reconnectPeriod: 100,
  });
  // As the broker plugin does: nothing arriving before the gateway attaches is acknowledged unread.
  holdUplinks(server);
  await new Promise((r) => server.once('connect', r));
  cleanups.push(() => server.endAsync(true));
  const { gateway, held } = heldGateway();
  const attach = () => attachExternal(server, gateway, log);
  const adapter = options.attach === false ? undefined : attach();
  // Aedes has no shared subscriptions: the plain filter delivers the same messages to the same handler.
  await server.subscribeAsync('dev/+/+/up/#', { qos: 1 });
  const dev: MqttClient = await mqtt.connectAsync(url, { clientId: 'SN1', reconnectPeriod: 0 });
  cleanups.push(() => dev.endAsync(true));
  return { server, dev, held, acks, adapter: adapter!, attach };
}

describe('external adapter acknowledgements', () => {
  it('encodes MQTT 3.1.1 PUBACKs', () => {
    expect([...pubackBytes([1, 0x1234])]).toEqual([0x40, 2, 0, 1, 0x40, 2, 0x12, 0x34]);
  });

  it('acknowledges to the broker only once handled, without handling one message at a time', async () => {
    const { dev, held, acks } = await setup();
    for (let i = 0; i < 50; i++) {
      void dev.publishAsync('dev/pk01/SN1/up/property', JSON.stringify({ params: { n: i } }), { qos: 1 });
    }
    // All 50 reach the gateway while none of them is handled: reading goes on, acknowledging waits.
    await eventually(async () => (held.length === 50 ? true : undefined));
    // The sentinel: the first one handled is acknowledged alone, so none was acknowledged on arrival.
    held[0]!.settle();
    await eventually(async () => (acks.length > 0 ? true : undefined));
    expect(acks).toHaveLength(1);
    for (const h of held.slice(1, 20)) h.settle();
    await eventually(async () => (acks.length === 20 ? true : undefined));
    for (const h of held.slice(20)) h.settle();
    await eventually(async () => (acks.length === 50 ? true : undefined));
    expect(new Set(acks).size).toBe(50);
  });

  it('never sends a held PUBACK on a later connection; the broker redelivers instead', async () => {
    const { server, dev, held, acks } = await setup();
    await dev.publishAsync('dev/pk01/SN1/up/property', '{"params":{"n":1}}', { qos: 0 });
    void dev.publishAsync('dev/pk01/SN1/up/property', '{"params":{"n":2}}', { qos: 1 });
    await eventually(async () => (held.length === 2 ? true : undefined));
    held[0]!.settle();
    // The connection drops before the message is handled.
    const reconnected = new Promise((r) => server.once('connect', r));
    (server as unknown as { stream: net.Socket }).stream.destroy();
    await reconnected;
    held[1]!.settle();
    await eventually(async () => (held.length === 3 ? true : undefined));
    expect(held[2]!.payload).toBe('{"params":{"n":2}}');
    // The sentinel: the redelivered copy, once handled, is the one and only acknowledgement.
    held[2]!.settle();
    await eventually(async () => (acks.length > 0 ? true : undefined));
    expect(acks).toHaveLength(1);
  });

  it('a graceful stop settles what it took and leaves what arrives afterwards unacknowledged', async () => {
    const { server, dev, held, acks, adapter } = await setup();
    const arrived: string[] = [];
    server.on('packetreceive', (p) => {
      if (p.cmd === 'publish') arrived.push(p.payload.toString());
    });
    void dev.publishAsync('dev/pk01/SN1/up/property', '{"params":{"n":1}}', { qos: 1 });
    await eventually(async () => (held.length === 1 ? true : undefined));
    let stopped = false;
    const stopping = adapter.stopIntake().then(() => (stopped = true));
    void dev.publishAsync('dev/pk01/SN1/up/property', '{"params":{"n":2}}', { qos: 1 });
    // Taken before the stop: it is waited for, then acknowledged.
    await new Promise((r) => setTimeout(r, 100));
    expect(stopped).toBe(false);
    held[0]!.settle();
    await stopping;
    await eventually(async () => (acks.length === 1 ? true : undefined));
    // Arrived after: neither handed to the gateway nor acknowledged (the broker keeps it for the session).
    await eventually(async () => (arrived.includes('{"params":{"n":2}}') ? true : undefined));
    expect(held).toHaveLength(1);
    expect(acks).toHaveLength(1);
  });

  it('holds what arrives before the gateway attaches, unacknowledged, and handles it first', async () => {
    const { server, dev, held, acks, attach } = await setup({ attach: false });
    const arrived: string[] = [];
    server.on('packetreceive', (p) => {
      if (p.cmd === 'publish') arrived.push(p.payload.toString());
    });
    void dev.publishAsync('dev/pk01/SN1/up/property', '{"params":{"n":1}}', { qos: 1 });
    await eventually(async () => (arrived.length === 1 ? true : undefined));
    expect(acks).toEqual([]);
    attach();
    await eventually(async () => (held.length === 1 ? true : undefined));
    expect(acks).toEqual([]);
    held[0]!.settle();
    await eventually(async () => (acks.length === 1 ? true : undefined));
  });
});
