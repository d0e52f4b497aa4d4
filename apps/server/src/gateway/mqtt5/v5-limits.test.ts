import type { IPublishPacket } from 'mqtt-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/app';
import { createDevices, type TestDevice, up } from '../../test/gateway-test-kit';
import { type BrokerAddress, RawDevice, type Transport } from '../../test/raw-device';
import { RawMqtt } from '../../test/raw-mqtt';

// What the MQTT 5.0 CONNACK says the embedded broker does not offer, and what a device that uses it anyway gets
// (MQTT 5.0 3.2.2.3), over TCP and the /mqtt WebSocket alike (issue 12).

let t: TestApp;
let at: BrokerAddress;
let owner: { token: string; uid: number };
const raws: { destroy(): void }[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  at = { mqttPort: t.app.broker.port!, httpPort: (t.app.server.address() as { port: number }).port };
  owner = await t.createUser();
});
afterAll(async () => {
  for (const r of raws) r.destroy();
  await t.close();
});

let serial = 0;
const device = async () => (await createDevices(t, owner.token, [`V5L-${++serial}`]))[0]!;
const downAll = (d: TestDevice) => `dev/${d.productKey}/${d.sn}/down/#`;
const publish = (d: TestDevice, messageId: number, qos: 1 | 2 = 2, dup = false): IPublishPacket => ({
  cmd: 'publish',
  topic: up(d, 'property'),
  payload: Buffer.from(JSON.stringify({ params: { rm: messageId } })),
  qos,
  messageId,
  retain: false,
  dup,
});

describe.each(['tcp', 'ws'] as Transport[])('MQTT 5.0 over %s', (transport) => {
  async function connected(d: TestDevice, version: 4 | 5 = 5): Promise<RawDevice> {
    const raw = await RawDevice.connect(at, transport, version, d);
    raws.push(raw);
    await raw.connack();
    return raw;
  }
  /** The device broke a rule: the server says why with a DISCONNECT and closes the connection. */
  async function disconnectedWith(raw: RawDevice): Promise<number | undefined> {
    const reason = (await raw.next('disconnect')).reasonCode;
    await raw.closed;
    return reason;
  }

  it('announces in the CONNACK what it does not offer', async () => {
    const d = await device();
    const raw = await RawDevice.connect(at, transport, 5, d);
    raws.push(raw);
    const connack = await raw.connack();
    expect(connack.properties).toEqual({
      topicAliasMaximum: 32,
      retainAvailable: false,
      maximumPacketSize: 256 * 1024,
      subscriptionIdentifiersAvailable: false,
      sharedSubscriptionAvailable: false,
      // Aedes' limit of inbound QoS 2 messages awaiting PUBREL.
      receiveMaximum: 1000,
    });
    await raw.disconnect();
  });

  it('disconnects a SUBSCRIBE with a subscription identifier with 0xA1', async () => {
    const raw = await connected(await device());
    raw.send({
      cmd: 'subscribe',
      messageId: 1,
      properties: { subscriptionIdentifier: 5 },
      subscriptions: [{ topic: 'dev/x/y/down/#', qos: 1 }],
    });
    expect(await disconnectedWith(raw)).toBe(0xa1);
  });

  it('disconnects a shared subscription with 0x9E; 3.1.1 gets the SUBACK failure code', async () => {
    const d = await device();
    const raw = await connected(d);
    raw.send({
      cmd: 'subscribe',
      messageId: 1,
      subscriptions: [{ topic: `$share/g/${downAll(d)}`, qos: 1 }],
    });
    expect(await disconnectedWith(raw)).toBe(0x9e);

    const v4 = await connected(d, 4);
    v4.send({ cmd: 'subscribe', messageId: 2, subscriptions: [{ topic: `$share/g/${downAll(d)}`, qos: 1 }] });
    expect((await v4.next('suback')).granted).toEqual([128]);
    await v4.disconnect();
  });

  it('disconnects a retained PUBLISH with 0x9A and refuses a will to retain with CONNACK 0x9A', async () => {
    const d = await device();
    const raw = await connected(d);
    raw.send({ ...publish(d, 1, 1), retain: true });
    expect(await disconnectedWith(raw)).toBe(0x9a);

    const willing = await RawDevice.connect(at, transport, 5, d, {
      will: { topic: up(d, 'status'), payload: Buffer.from('{"online":0}'), qos: 1, retain: true },
    });
    raws.push(willing);
    expect((await willing.next('connack')).reasonCode).toBe(0x9a);
    await willing.closed;
  });

  it('holds the device to its Receive Maximum: DISCONNECT 0x93 on one message too many', async () => {
    const d = await device();
    const raw = await connected(d);
    const ids = Array.from({ length: 1000 }, (_, i) => i + 1);
    // 1,000 QoS 2 messages without PUBREL, and a resent copy of one (same packet id: no second place).
    raw.send(...ids.map((id) => publish(d, id)), publish(d, 5, 2, true));
    for (let i = 0; i < 1001; i++) await raw.next('pubrec');
    // Completing one frees its place.
    raw.send({ cmd: 'pubrel', messageId: 1 });
    expect((await raw.next('pubcomp')).messageId).toBe(1);
    raw.send(publish(d, 1001));
    expect((await raw.next('pubrec')).messageId).toBe(1001);
    // 1,000 in flight again: the next one is one too many.
    raw.send(publish(d, 1002));
    expect(await disconnectedWith(raw)).toBe(0x93);
    expect(raw.packets.filter((p) => p.cmd === 'pubrec')).toEqual([]);
  });

  it('does not count messages sent right behind the CONNECT against the Receive Maximum', async () => {
    const d = await device();
    const conn = await RawMqtt.open(
      transport === 'tcp' ? { tcp: at.mqttPort } : { ws: `ws://127.0.0.1:${at.httpPort}/mqtt` },
      5,
    );
    raws.push(conn);
    // Before reading the CONNACK a device may assume a Receive Maximum of 65,535 (MQTT 5.0 3.1.2.11.3): 1,100
    // QoS 1 messages in the same write as the CONNECT are all taken.
    const ids = Array.from({ length: 1100 }, (_, i) => i + 1);
    conn.send(Buffer.concat([conn.connectPacket(d), ...ids.map((id) => conn.encode(publish(d, id, 1)))]));
    const acked = () => conn.packets.filter((p) => p.cmd === 'puback').length;
    await conn.until((ps) => ps.filter((p) => p.cmd === 'puback').length >= 1100, '1100 PUBACKs', 30_000);
    expect(acked()).toBe(1100);
    expect(conn.packets.filter((p) => p.cmd === 'disconnect')).toEqual([]);
    expect(conn.isClosed).toBe(false);
  });

  it('refuses a session expiry set on DISCONNECT when the CONNECT ended the session with the connection (0x82)', async () => {
    const raw = await connected(await device());
    raw.send({ cmd: 'disconnect', reasonCode: 0, properties: { sessionExpiryInterval: 60 } });
    expect(await disconnectedWith(raw)).toBe(0x82);
  });
});
