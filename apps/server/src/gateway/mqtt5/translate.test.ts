import mqttPacket, { type IConnectPacket, type IPublishPacket, type Packet } from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import { connectProtocolLevel } from './sniff';
import {
  ackToV4,
  propertyFault,
  ackToV5,
  CONNACK_PROPERTIES,
  connackReason,
  MAXIMUM_PACKET_SIZE,
  connackToV5,
  connectToV4,
  publishToV4,
  publishToV5,
  REASON,
  subackToV5,
  subscribeRefusal,
  subscribeToV4,
  TOPIC_ALIAS_MAXIMUM,
  TopicAliases,
  unsubackToV5,
} from './translate';

/** Serialises with one protocol version and parses back, as the wire would. */
function roundTrip(p: Packet, protocolVersion: 4 | 5): Packet {
  const parser = mqttPacket.parser({ protocolVersion });
  const out: Packet[] = [];
  parser.on('packet', (x: Packet) => out.push(x));
  parser.on('error', (e: Error) => {
    throw e;
  });
  parser.parse(mqttPacket.generate(p, { protocolVersion }));
  expect(out).toHaveLength(1);
  return out[0]!;
}

const v5Connect = (over: Partial<IConnectPacket> = {}): IConnectPacket => ({
  cmd: 'connect',
  protocolId: 'MQTT',
  protocolVersion: 5,
  clean: true,
  keepalive: 60,
  clientId: 'SN-1',
  username: 'SN-1',
  password: Buffer.from('secret'),
  ...over,
});

describe('connectProtocolLevel', () => {
  const connect = (protocolVersion: 3 | 4 | 5, clientId = 'SN-1') =>
    mqttPacket.generate(
      {
        cmd: 'connect',
        protocolId: protocolVersion === 3 ? 'MQIsdp' : 'MQTT',
        protocolVersion,
        clean: true,
        keepalive: 30,
        clientId,
      },
      { protocolVersion },
    );

  it('reads the level of 3.1, 3.1.1 and 5.0 CONNECTs, also with a multi-byte remaining length', () => {
    expect(connectProtocolLevel(connect(3))).toBe(3);
    expect(connectProtocolLevel(connect(4))).toBe(4);
    expect(connectProtocolLevel(connect(5))).toBe(5);
    const long = connect(5, 'x'.repeat(20_000));
    expect(long[1]! & 0x80).toBe(0x80);
    expect(connectProtocolLevel(long)).toBe(5);
  });

  it('asks for more bytes until the level byte arrived, byte by byte', () => {
    const bytes = connect(5);
    // Fixed header (2) + name length (2) + "MQTT" (4): the level is byte 8.
    for (let n = 0; n <= 8; n++)
      expect(connectProtocolLevel(bytes.subarray(0, n)), `${n} bytes`).toBeUndefined();
    expect(connectProtocolLevel(bytes.subarray(0, 9))).toBe(5);
  });

  it('leaves whatever is not a CONNECT to Aedes', () => {
    expect(connectProtocolLevel(Buffer.from('GET / HTTP/1.1\r\n'))).toBeNull();
    expect(connectProtocolLevel(mqttPacket.generate({ cmd: 'pingreq' }))).toBeNull();
    // Remaining length with a fifth continuation byte.
    expect(connectProtocolLevel(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x01]))).toBeNull();
    // Protocol name of a length no MQTT version uses.
    expect(connectProtocolLevel(Buffer.from([0x10, 0x20, 0x00, 0x05, 0x41]))).toBeNull();
  });
});

describe('CONNECT and CONNACK', () => {
  it('maps clean start and session expiry to the 3.1.1 clean session', () => {
    const clean = (clean: boolean, sessionExpiryInterval?: number, sessions = false) =>
      connectToV4(
        v5Connect({
          clean,
          properties: sessionExpiryInterval === undefined ? {} : { sessionExpiryInterval },
        }),
        sessions,
      ).clean;
    // With the broker's sessions, which end a session by its expiry, the clean flag is Clean Start alone.
    expect([
      clean(true, 0, true),
      clean(true, 600, true),
      clean(false, 0, true),
      clean(false, 600, true),
    ]).toEqual([true, true, false, false]);
    // A bare Aedes: only Clean Start 0 with an expiry is persistent.
    expect(clean(true)).toBe(true);
    expect(clean(false)).toBe(true); // expiry 0 (absent): the session ends with the connection
    expect(clean(false, 0)).toBe(true);
    expect(clean(false, 3600)).toBe(false);
    expect(clean(true, 3600)).toBe(true);
  });

  it('keeps identity, credentials, keep-alive and the will, drops every property, and is valid 3.1.1', () => {
    const v4 = connectToV4(
      v5Connect({
        keepalive: 45,
        properties: {
          sessionExpiryInterval: 10,
          maximumPacketSize: 512,
          receiveMaximum: 5,
          userProperties: { a: 'b' },
        },
        will: {
          topic: 'dev/pk/SN-1/up/status',
          payload: Buffer.from('{"online":0}'),
          qos: 1,
          retain: true,
          properties: { willDelayInterval: 30, contentType: 'application/json' },
        },
      }),
    );
    const parsed = roundTrip(v4, 4) as IConnectPacket;
    expect(parsed).toMatchObject({
      protocolId: 'MQTT',
      protocolVersion: 4,
      clientId: 'SN-1',
      username: 'SN-1',
      keepalive: 45,
      clean: true,
      will: { topic: 'dev/pk/SN-1/up/status', qos: 1, retain: true },
    });
    expect(parsed.password?.toString()).toBe('secret');
    expect(parsed.will?.payload.toString()).toBe('{"online":0}');
    expect(parsed.properties).toBeUndefined();
    expect(parsed.will?.properties).toBeUndefined();
    const bare = connectToV4(v5Connect({ username: undefined, password: undefined }));
    expect(bare).not.toHaveProperty('username');
    expect(bare).not.toHaveProperty('will');
  });

  it('turns 3.1.1 return codes into 5.0 reason codes', () => {
    expect([0, 1, 2, 3, 4, 5, 6, undefined].map(connackReason)).toEqual([
      0x00, 0x84, 0x85, 0x88, 0x86, 0x87, 0x80, 0x00,
    ]);
    const ok = roundTrip(connackToV5({ cmd: 'connack', returnCode: 0, sessionPresent: true }), 5);
    expect(ok).toMatchObject({ reasonCode: 0, sessionPresent: true, properties: CONNACK_PROPERTIES });
    expect(CONNACK_PROPERTIES).toEqual({
      topicAliasMaximum: TOPIC_ALIAS_MAXIMUM,
      retainAvailable: false,
      maximumPacketSize: 256 * 1024,
      subscriptionIdentifiersAvailable: false,
      sharedSubscriptionAvailable: false,
    });
    expect(MAXIMUM_PACKET_SIZE).toBe(262_144);
    const limited = roundTrip(connackToV5({ cmd: 'connack', returnCode: 0, sessionPresent: false }, 1000), 5);
    expect(limited).toMatchObject({ properties: { ...CONNACK_PROPERTIES, receiveMaximum: 1000 } });
    const refused = roundTrip(connackToV5({ cmd: 'connack', returnCode: 4, sessionPresent: false }, 1000), 5);
    expect(refused).toMatchObject({ reasonCode: 0x86, sessionPresent: false });
    expect((refused as { properties?: unknown }).properties).toBeUndefined();
  });
});

describe('PUBLISH', () => {
  const publish = (over: Partial<IPublishPacket> = {}): IPublishPacket => ({
    cmd: 'publish',
    topic: 'dev/pk/SN-1/up/property',
    payload: Buffer.from('{"params":{"t":1}}'),
    qos: 1,
    messageId: 7,
    retain: false,
    dup: false,
    ...over,
  });

  it('drops the 5.0 properties on the way in and keeps topic, payload, QoS, id and flags', () => {
    const v4 = publishToV4(
      publish({
        dup: true,
        properties: {
          payloadFormatIndicator: true,
          contentType: 'application/json',
          responseTopic: 'dev/pk/SN-1/down/x',
          correlationData: Buffer.from('c'),
          userProperties: { k: 'v' },
          messageExpiryInterval: 5,
        },
      }),
      'dev/pk/SN-1/up/property',
    );
    const parsed = roundTrip(v4, 4) as IPublishPacket;
    expect(parsed).toMatchObject({ topic: 'dev/pk/SN-1/up/property', qos: 1, messageId: 7, dup: true });
    expect(parsed.payload.toString()).toBe('{"params":{"t":1}}');
    expect(parsed.properties).toBeUndefined();
    expect(publishToV4(publish({ qos: 0, messageId: undefined }), 't')).not.toHaveProperty('messageId');
  });

  it('turns a 3.1.1 publish from Aedes into a valid 5.0 one', () => {
    const parsed = roundTrip(
      publishToV5(publish({ topic: 'dev/pk/SN-1/down/cmd', qos: 1, messageId: 9 })),
      5,
    ) as IPublishPacket;
    expect(parsed).toMatchObject({ topic: 'dev/pk/SN-1/down/cmd', qos: 1, messageId: 9, retain: false });
    expect(parsed.payload.toString()).toBe('{"params":{"t":1}}');
  });

  it('resolves topic aliases: defined with a topic, used with an empty one, refused when unknown or out of range', () => {
    const aliases = new TopicAliases();
    const alias = (topic: string, topicAlias?: number) =>
      aliases.resolve(publish({ topic, properties: topicAlias === undefined ? {} : { topicAlias } }));
    expect(alias('', 1)).toBe(REASON.topicAliasInvalid);
    expect(alias('a/up/property', 1)).toBe('a/up/property');
    expect(alias('', 1)).toBe('a/up/property');
    // Redefined.
    expect(alias('a/up/info', 1)).toBe('a/up/info');
    expect(alias('', 1)).toBe('a/up/info');
    expect(alias('', 2)).toBe(REASON.topicAliasInvalid);
    expect(alias('x', 0)).toBe(REASON.topicAliasInvalid);
    expect(alias('x', TOPIC_ALIAS_MAXIMUM + 1)).toBe(REASON.topicAliasInvalid);
    expect(alias('x', TOPIC_ALIAS_MAXIMUM)).toBe('x');
    expect(alias('')).toBe(REASON.protocolError);
    expect(alias('plain')).toBe('plain');
  });
});

describe('acknowledgements, SUBSCRIBE, UNSUBSCRIBE', () => {
  it('passes the packet id of PUBACK/PUBREC/PUBREL/PUBCOMP and answers success to the device', () => {
    for (const cmd of ['puback', 'pubrec', 'pubrel', 'pubcomp'] as const) {
      expect(roundTrip(ackToV4(cmd, 12), 4)).toMatchObject({ cmd, messageId: 12 });
      const v5 = ackToV5(cmd, 13);
      expect(v5).toMatchObject({ cmd, messageId: 13, reasonCode: 0 });
      expect(roundTrip(v5, 5)).toMatchObject({ cmd, messageId: 13 });
    }
  });

  it('drops subscription options but keeps the QoS of each filter', () => {
    const v4 = subscribeToV4({
      cmd: 'subscribe',
      messageId: 3,
      properties: { subscriptionIdentifier: 4 },
      subscriptions: [
        { topic: 'dev/pk/SN-1/down/#', qos: 1, nl: true, rap: true, rh: 2 },
        { topic: 'dev/pk/SN-1/down/cmd', qos: 0 },
      ],
    });
    expect(roundTrip(v4, 4)).toMatchObject({
      messageId: 3,
      subscriptions: [
        { topic: 'dev/pk/SN-1/down/#', qos: 1 },
        { topic: 'dev/pk/SN-1/down/cmd', qos: 0 },
      ],
    });
    expect(v4.subscriptions[0]).toEqual({ topic: 'dev/pk/SN-1/down/#', qos: 1 });
  });

  it('refuses subscription identifiers (0xA1) and shared subscriptions (0x9E), which CONNACK says are not available', () => {
    const sub = (topic: string, properties?: { subscriptionIdentifier: number }) =>
      subscribeRefusal({
        cmd: 'subscribe',
        messageId: 1,
        subscriptions: [{ topic, qos: 1 }],
        ...(properties ? { properties } : {}),
      });
    expect(sub('dev/pk/SN-1/down/#')).toBeUndefined();
    expect(sub('dev/pk/SN-1/down/#', { subscriptionIdentifier: 7 })).toBe(0xa1);
    expect(sub('$share/g/dev/pk/SN-1/down/#')).toBe(0x9e);
    // Only the prefix makes a shared subscription.
    expect(sub('dev/pk/SN-1/down/$share')).toBeUndefined();
  });

  it('answers a refused filter with 0x87 not authorized and granted ones with their QoS', () => {
    const v5 = subackToV5({ cmd: 'suback', messageId: 3, granted: [1, 128, 0, 2] });
    expect(roundTrip(v5, 5)).toMatchObject({ messageId: 3, granted: [1, 0x87, 0, 2] });
  });

  it('gives a 5.0 UNSUBACK one success code per filter', () => {
    expect(roundTrip(unsubackToV5(4, 3), 5)).toMatchObject({ messageId: 4, granted: [0, 0, 0] });
    expect(unsubackToV5(5, 0).granted).toEqual([0]);
  });
});

describe('propertyFault (issue 20)', () => {
  const pub = (properties: Record<string, unknown>) =>
    ({
      cmd: 'publish',
      topic: 't',
      payload: Buffer.alloc(0),
      qos: 0,
      dup: false,
      retain: false,
      properties,
    }) as Packet;

  it('passes the properties a device may send on each packet', () => {
    expect(
      propertyFault(pub({ topicAlias: 1, contentType: 'json', userProperties: { a: ['1', '2'] } })),
    ).toBeUndefined();
    expect(
      propertyFault({
        cmd: 'subscribe',
        messageId: 1,
        subscriptions: [],
        properties: { userProperties: { a: 'b' } },
      }),
    ).toBeUndefined();
    expect(propertyFault({ cmd: 'disconnect', properties: { sessionExpiryInterval: 5 } })).toBeUndefined();
  });

  it('refuses a property out of place or repeated (0x82), a string with U+0000 or bytes that were not UTF-8 (0x81)', () => {
    expect(propertyFault(pub({ sessionExpiryInterval: 10 }))).toBe(REASON.protocolError);
    expect(propertyFault(pub({ subscriptionIdentifier: 3 }))).toBe(REASON.protocolError);
    expect(propertyFault(pub({ messageExpiryInterval: [10, 20] }))).toBe(REASON.protocolError);
    expect(
      propertyFault({
        cmd: 'subscribe',
        messageId: 1,
        subscriptions: [],
        properties: { topicAlias: 1 },
      } as Packet),
    ).toBe(REASON.protocolError);
    expect(propertyFault(pub({ contentType: 'a\u0000' }))).toBe(REASON.malformedPacket);
    expect(propertyFault(pub({ userProperties: { 'k\ufffd': 'v' } }))).toBe(REASON.malformedPacket);
  });
});
