// The malformed-MQTT corpus of mqtt-faults.test.ts: raw byte sequences for MQTT 3.1.1 (level 4) and 5.0 (level 5),
// hand-written for every kind of fault a device can send and generated (truncations, bit flips, random bytes) from
// a seeded generator, so every run sends the same bytes.
import mqttPacket, { type Packet } from 'mqtt-packet';

/** A device's credentials (the shape of test/gateway-test-kit's TestDevice; this file stays free of test support). */
export interface TestDevice {
  sn: string;
  productKey: string;
  secret: string;
}

/** A fixed header announcing `length` bytes of body (which may or may not follow). */
function fixedHeader(byte0: number, length: number): Buffer {
  const out = [byte0];
  do {
    let digit = length % 128;
    length = Math.floor(length / 128);
    if (length > 0) digit |= 0x80;
    out.push(digit);
  } while (length > 0);
  return Buffer.from(out);
}

export type Version = 4 | 5;

/**
 * What the server must do with an entry:
 * - `refuse`: the bytes are (or start with) a CONNECT that must not be accepted: no CONNACK success, connection closed.
 * - `close`: sent after a valid CONNECT; the standard requires the server to close the connection (no ack, no effect).
 * - `no-effect`: sent after a valid CONNECT; the bytes may or may not break the protocol (random bytes, a flipped
 *   bit in a topic), but nothing they carry may be stored or delivered.
 */
export type Expect = 'refuse' | 'close' | 'no-effect';

export interface CorpusEntry {
  /** Unique, stable: `v4/connect/will-qos-3`. */
  name: string;
  /** The kind of fault, for the coverage check (every hand-written kind of the issue appears). */
  kind: string;
  version: Version;
  /** `connect`: the bytes are the connection's first; `session`: they follow a valid CONNECT and its CONNACK. */
  stage: 'connect' | 'session';
  expect: Expect;
  source: 'hand' | 'generated';
  /** The connection's end is sent after the bytes (a packet cut short waits for bytes that never come). */
  fin?: boolean;
  /**
   * A fault the server cannot see, and why: the entry is still sent, and what it does is reported apart
   * (mqtt.malformed_accepted_known) rather than left out.
   */
  gap?: string;
  /** The bytes, for the corpus device `d` (credentials) and another device `other`; `marker` names this entry. */
  bytes(d: TestDevice, other: TestDevice, marker: string): Buffer;
}

// --- byte builders --------------------------------------------------------------------------------------------

const u16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const bytesOf = (s: string | Buffer) => (typeof s === 'string' ? Buffer.from(s, 'utf8') : s);
/** A length-prefixed string or binary field. */
export const str = (s: string | Buffer) => {
  const b = bytesOf(s);
  return Buffer.concat([u16(b.length), b]);
};
/** A Variable Byte Integer (1 to 4 bytes), as the fixed header's Remaining Length. */
export const vbi = (n: number) => fixedHeader(0, n).subarray(1);
/** A packet: the first byte, the Remaining Length of the body, the body. */
export const pkt = (byte0: number, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  return Buffer.concat([fixedHeader(byte0, body.length), body]);
};
/** A fixed header announcing `length` with the body as given (which may be shorter or longer). */
const lying = (byte0: number, length: number, body: Buffer) =>
  Buffer.concat([fixedHeader(byte0, length), body]);

/** MQTT 5.0 properties: a block is its Variable Byte Integer length and the properties. */
const props = (...ps: Buffer[]) => {
  const b = Buffer.concat(ps);
  return Buffer.concat([vbi(b.length), b]);
};
const p1 = (id: number, v: number) => Buffer.from([id, v]);
const p2 = (id: number, v: number) => Buffer.concat([Buffer.from([id]), u16(v)]);
const p4 = (id: number, v: number) => Buffer.concat([Buffer.from([id]), u32(v)]);
const pStr = (id: number, s: string | Buffer) => Buffer.concat([Buffer.from([id]), str(s)]);
const pVar = (id: number, v: number) => Buffer.concat([Buffer.from([id]), vbi(v)]);
const pPair = (id: number, k: string | Buffer, v: string | Buffer) =>
  Buffer.concat([Buffer.from([id]), str(k), str(v)]);

const P = {
  payloadFormat: 0x01,
  messageExpiry: 0x02,
  contentType: 0x03,
  subscriptionIdentifier: 0x0b,
  sessionExpiry: 0x11,
  authMethod: 0x15,
  requestProblemInfo: 0x17,
  willDelay: 0x18,
  requestResponseInfo: 0x19,
  serverKeepAlive: 0x13,
  receiveMaximum: 0x21,
  topicAliasMaximum: 0x22,
  topicAlias: 0x23,
  userProperty: 0x26,
  maximumPacketSize: 0x27,
} as const;

export interface ConnectSpec {
  name?: string | Buffer;
  level: number;
  clean?: boolean;
  keepalive?: number;
  /** MQTT 5.0: the whole property block (length included); default an empty one. */
  properties?: Buffer;
  clientId: string | Buffer;
  will?: { topic: string | Buffer; payload: Buffer; qos: number; retain?: boolean; properties?: Buffer };
  username?: string | Buffer;
  password?: string | Buffer;
  /** Flag bits set on top of those the fields imply (reserved bit, will bits without a will, ...). */
  extraFlags?: number;
  /** Flag bits cleared from those the fields imply (a username sent without its flag, ...). */
  clearFlags?: number;
  /** Bytes after the last field, inside the packet. */
  tail?: Buffer;
}

export function connectBody(c: ConnectSpec): Buffer {
  let flags = 0;
  if (c.username !== undefined) flags |= 0x80;
  if (c.password !== undefined) flags |= 0x40;
  if (c.will) flags |= 0x04 | ((c.will.qos & 3) << 3) | (c.will.retain ? 0x20 : 0);
  if (c.clean !== false) flags |= 0x02;
  flags = (flags | (c.extraFlags ?? 0)) & ~(c.clearFlags ?? 0);
  const v5 = c.level === 5;
  const parts = [
    str(c.name ?? 'MQTT'),
    Buffer.from([c.level, flags]),
    u16(c.keepalive ?? 60),
    ...(v5 ? [c.properties ?? props()] : []),
    str(c.clientId),
  ];
  if (c.will) {
    if (v5) parts.push(c.will.properties ?? props());
    parts.push(str(c.will.topic), str(c.will.payload));
  }
  if (c.username !== undefined) parts.push(str(c.username));
  if (c.password !== undefined) parts.push(str(c.password));
  if (c.tail) parts.push(c.tail);
  return Buffer.concat(parts);
}

export const connect = (c: ConnectSpec) => pkt(0x10, connectBody(c));

/** The device's own valid CONNECT (clientId = username = sn, password = secret). */
export function validConnect(d: TestDevice, version: Version, over: Partial<ConnectSpec> = {}): Buffer {
  return connect({ level: version, clientId: d.sn, username: d.sn, password: d.secret, ...over });
}

const generate = (p: Packet, version: Version) =>
  mqttPacket.generate(p, { protocolVersion: version === 5 ? 5 : 4 });

/** The device's own property topic, and a payload storing `marker` as a property if it were ever accepted. */
export const propertyTopic = (d: TestDevice) => `dev/${d.productKey}/${d.sn}/up/property`;
export const markerPayload = (marker: string) => Buffer.from(JSON.stringify({ params: { [marker]: 1 } }));

/** A PUBLISH body: topic, packet id (QoS > 0), MQTT 5.0 properties, payload. */
function publishBody(
  version: Version,
  topic: string | Buffer,
  payload: Buffer,
  messageId: number | undefined,
  properties?: Buffer,
): Buffer {
  return Buffer.concat([
    str(topic),
    ...(messageId !== undefined ? [u16(messageId)] : []),
    ...(version === 5 ? [properties ?? props()] : []),
    payload,
  ]);
}

const publishHeader = (qos: number, dup = false, retain = false) =>
  0x30 | (dup ? 0x08 : 0) | ((qos & 3) << 1) | (retain ? 1 : 0);

function publish(
  version: Version,
  topic: string | Buffer,
  payload: Buffer,
  o: { qos?: number; messageId?: number; dup?: boolean; retain?: boolean; properties?: Buffer } = {},
): Buffer {
  const qos = o.qos ?? 1;
  const id = qos > 0 ? (o.messageId ?? 7) : o.messageId;
  return pkt(publishHeader(qos, o.dup, o.retain), publishBody(version, topic, payload, id, o.properties));
}

/** SUBSCRIBE with the given header byte, packet id and raw payload (filter + options bytes). */
const subscribe = (
  version: Version,
  byte0: number,
  messageId: number,
  payload: Buffer,
  properties?: Buffer,
) => pkt(byte0, u16(messageId), ...(version === 5 ? [properties ?? props()] : []), payload);
const unsubscribe = (version: Version, byte0: number, messageId: number, payload: Buffer) =>
  pkt(byte0, u16(messageId), ...(version === 5 ? [props()] : []), payload);

const ownDown = (d: TestDevice) => `dev/${d.productKey}/${d.sn}/down/#`;

// --- seeded generator -------------------------------------------------------------------------------------------

/** mulberry32: a small, fast PRNG; one seed, one sequence, on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// --- the corpus --------------------------------------------------------------------------------------------------

/** Every packet type a device might send first, as bytes of that version (type 1, CONNECT, is the valid start). */
function beforeConnect(version: Version): [string, (d: TestDevice, m: string) => Buffer][] {
  const g = (p: Packet) => generate(p, version);
  return [
    ['type-0-reserved', () => Buffer.from([0x00, 0x00])],
    ['connack', () => g({ cmd: 'connack', returnCode: 0, reasonCode: 0, sessionPresent: false })],
    [
      'publish',
      (d, m) =>
        g({
          cmd: 'publish',
          topic: propertyTopic(d),
          payload: markerPayload(m),
          qos: 1,
          messageId: 1,
          dup: false,
          retain: false,
        }),
    ],
    ['puback', () => g({ cmd: 'puback', messageId: 1 })],
    ['pubrec', () => g({ cmd: 'pubrec', messageId: 1 })],
    ['pubrel', () => g({ cmd: 'pubrel', messageId: 1 })],
    ['pubcomp', () => g({ cmd: 'pubcomp', messageId: 1 })],
    [
      'subscribe',
      (d) => g({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: ownDown(d), qos: 1 }] }),
    ],
    ['suback', () => g({ cmd: 'suback', messageId: 1, granted: [0] })],
    ['unsubscribe', (d) => g({ cmd: 'unsubscribe', messageId: 1, unsubscriptions: [ownDown(d)] })],
    [
      'unsuback',
      () =>
        version === 5
          ? g({ cmd: 'unsuback', messageId: 1, granted: [0] })
          : Buffer.from([0xb0, 0x02, 0x00, 0x01]),
    ],
    ['pingreq', () => g({ cmd: 'pingreq' })],
    ['pingresp', () => g({ cmd: 'pingresp' })],
    ['disconnect', () => g({ cmd: 'disconnect' })],
    [
      'type-15-auth',
      () => (version === 5 ? g({ cmd: 'auth', reasonCode: 0x18 }) : Buffer.from([0xf0, 0x00])),
    ],
  ];
}

type Bytes = (d: TestDevice, other: TestDevice, marker: string) => Buffer;

/** Malformed or refused CONNECTs of one version, each carrying the real device's credentials unless it is about them. */
function connects(v: Version): [string, string, Bytes, boolean?][] {
  const c = (d: TestDevice, over: Partial<ConnectSpec>) => validConnect(d, v, over);
  const good = (d: TestDevice) =>
    connectBody({ level: v, clientId: d.sn, username: d.sn, password: d.secret });
  const will = (d: TestDevice, over: Partial<NonNullable<ConnectSpec['will']>> = {}) => ({
    topic: `dev/${d.productKey}/${d.sn}/up/status`,
    payload: Buffer.from('{"online":0}'),
    qos: 1,
    ...over,
  });
  const list: [string, string, Bytes, boolean?][] = [
    ['bad-protocol-name', 'bad protocol name', (d) => c(d, { name: 'MQTX' })],
    ['protocol-name-lowercase', 'bad protocol name', (d) => c(d, { name: 'mqtt' })],
    ['protocol-name-empty', 'bad protocol name', (d) => c(d, { name: '' })],
    ['protocol-name-mqisdp', 'bad protocol name', (d) => c(d, { name: 'MQIsdp' })],
    ['level-0', 'bad protocol level', (d) => c(d, { level: 0 })],
    ['level-2', 'bad protocol level', (d) => c(d, { level: 2 })],
    ['level-6', 'bad protocol level', (d) => c(d, { level: 6 })],
    ['level-255', 'bad protocol level', (d) => c(d, { level: 255 })],
    [
      'level-bridge-bit',
      'bad protocol level',
      (d) => connect({ level: 0x80 | v, clientId: d.sn, username: d.sn, password: d.secret }),
    ],
    ['reserved-flag-bit', 'reserved flag bit', (d) => c(d, { extraFlags: 0x01 })],
    ['will-qos-3', 'will flags inconsistent', (d) => c(d, { will: will(d, { qos: 3 }) })],
    ['will-retain-without-will', 'will flags inconsistent', (d) => c(d, { extraFlags: 0x20 })],
    ['will-qos-without-will', 'will flags inconsistent', (d) => c(d, { extraFlags: 0x08 })],
    ['will-qos-3-without-will', 'will flags inconsistent', (d) => c(d, { extraFlags: 0x18 })],
    [
      'will-topic-wildcard',
      'will flags inconsistent',
      (d) => c(d, { will: will(d, { topic: `dev/${d.productKey}/${d.sn}/up/#` }) }),
    ],
    ['will-topic-empty', 'will flags inconsistent', (d) => c(d, { will: will(d, { topic: '' }) })],
    [
      'will-topic-nul',
      'U+0000',
      (d) => c(d, { will: will(d, { topic: `dev/${d.productKey}/${d.sn}/up/status\u0000` }) }),
    ],
    ['password-without-username', 'password without username', (d) => c(d, { username: undefined })],
    [
      'username-flag-without-field',
      'length fields lying',
      (d) => c(d, { password: undefined, extraFlags: 0x40 }),
    ],
    ['clientid-empty-clean-0', 'client id empty with clean=0', (d) => c(d, { clientId: '', clean: false })],
    ['clientid-empty-clean-1', 'client id empty with clean=0', (d) => c(d, { clientId: '' })],
    [
      'remaining-length-5-bytes',
      'over-long remaining length',
      (d) => Buffer.concat([Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x01]), good(d)]),
    ],
    ['remaining-length-max', 'over-long remaining length', (d) => lying(0x10, 268_435_455, good(d))],
    ['remaining-length-truncated-varint', 'truncated varint', () => Buffer.from([0x10, 0xff, 0xff]), true],
    ['remaining-length-short', 'length fields lying', (d) => lying(0x10, 20, good(d))],
    ['remaining-length-long', 'length fields lying', (d) => lying(0x10, good(d).length + 40, good(d)), true],
    ['protocol-name-length-past-end', 'length fields lying', () => pkt(0x10, u16(200), Buffer.from('MQTT'))],
    [
      'clientid-length-past-end',
      'length fields lying',
      (d) =>
        pkt(
          0x10,
          str('MQTT'),
          Buffer.from([v, 0xc2]),
          u16(60),
          ...(v === 5 ? [props()] : []),
          u16(500),
          Buffer.from(d.sn),
        ),
    ],
    [
      'username-length-past-end',
      'length fields lying',
      (d) =>
        pkt(
          0x10,
          str('MQTT'),
          Buffer.from([v, 0xc2]),
          u16(60),
          ...(v === 5 ? [props()] : []),
          str(d.sn),
          u16(900),
          Buffer.from(d.sn),
        ),
    ],
    [
      'password-length-past-end',
      'length fields lying',
      (d) =>
        pkt(
          0x10,
          str('MQTT'),
          Buffer.from([v, 0xc2]),
          u16(60),
          ...(v === 5 ? [props()] : []),
          str(d.sn),
          str(d.sn),
          u16(4000),
          Buffer.from(d.secret),
        ),
    ],
    [
      'will-topic-length-past-end',
      'length fields lying',
      (d) =>
        pkt(
          0x10,
          str('MQTT'),
          Buffer.from([v, 0x0e]),
          u16(60),
          ...(v === 5 ? [props()] : []),
          str(d.sn),
          ...(v === 5 ? [props()] : []),
          u16(3000),
          Buffer.from('x'),
        ),
    ],
    ['keepalive-missing', 'truncated packet', () => pkt(0x10, str('MQTT'), Buffer.from([v, 0xc2]))],
    ['trailing-garbage', 'length fields lying', (d) => c(d, { tail: Buffer.from('trailing') })],
    [
      'clientid-invalid-utf8',
      'invalid UTF-8',
      (d) => c(d, { clientId: Buffer.concat([Buffer.from(d.sn), Buffer.from([0xc3, 0x28])]) }),
    ],
    [
      'clientid-and-username-invalid-utf8',
      'invalid UTF-8',
      (d) => {
        const id = Buffer.concat([Buffer.from(d.sn), Buffer.from([0xff])]);
        return c(d, { clientId: id, username: id });
      },
    ],
    [
      'username-invalid-utf8',
      'invalid UTF-8',
      (d) => c(d, { username: Buffer.concat([Buffer.from(d.sn), Buffer.from([0xe2, 0x82])]) }),
    ],
    [
      'clientid-surrogate',
      'invalid UTF-8',
      (d) => {
        const id = Buffer.concat([Buffer.from(d.sn), Buffer.from([0xed, 0xa0, 0x80])]);
        return c(d, { clientId: id, username: id });
      },
    ],
    [
      'clientid-overlong-utf8',
      'invalid UTF-8',
      (d) => {
        const id = Buffer.concat([Buffer.from(d.sn), Buffer.from([0xc0, 0xaf])]);
        return c(d, { clientId: id, username: id });
      },
    ],
    ['clientid-nul', 'U+0000', (d) => c(d, { clientId: `${d.sn}\u0000`, username: `${d.sn}\u0000` })],
    ['clientid-only-nul', 'U+0000', (d) => c(d, { clientId: `${d.sn}\u0000` })],
    ['username-nul', 'U+0000', (d) => c(d, { username: `${d.sn}\u0000x` })],
    ['wrong-password', 'wrong credentials', (d) => c(d, { password: `${d.secret}x` })],
    ['empty-password', 'wrong credentials', (d) => c(d, { password: '' })],
    ['stale-hmac', 'wrong credentials', (d) => c(d, { password: `hmac:1000000000000:${'0'.repeat(64)}` })],
    [
      'unknown-sn',
      'wrong credentials',
      (d) => c(d, { clientId: `${d.sn}-ghost`, username: `${d.sn}-ghost` }),
    ],
    ['other-device-secret', 'wrong credentials', (d, o) => c(d, { clientId: o.sn, username: o.sn })],
    ['other-device-client-id', 'another device client id', (d, o) => c(d, { clientId: o.sn })],
    ['other-device-username', 'another device client id', (d, o) => c(d, { username: o.sn })],
  ];
  if (v === 4) {
    list.push([
      'v5-properties-in-v4',
      'length fields lying',
      (d) =>
        pkt(
          0x10,
          str('MQTT'),
          Buffer.from([4, 0xc2]),
          u16(60),
          props(p4(P.sessionExpiry, 60)),
          str(d.sn),
          str(d.sn),
          str(d.secret),
        ),
    ]);
  } else {
    const cp = (d: TestDevice, ...ps: Buffer[]) => c(d, { properties: props(...ps) });
    list.push(
      ['property-unknown-id', 'property garbage', (d) => cp(d, p1(0x7f, 1))],
      ['property-id-0', 'property garbage', (d) => cp(d, p1(0x00, 1))],
      [
        'property-duplicate-session-expiry',
        'property garbage',
        (d) => cp(d, p4(P.sessionExpiry, 10), p4(P.sessionExpiry, 20)),
      ],
      [
        'property-duplicate-receive-maximum',
        'property garbage',
        (d) => cp(d, p2(P.receiveMaximum, 10), p2(P.receiveMaximum, 20)),
      ],
      [
        'property-duplicate-max-packet-size',
        'property garbage',
        (d) => cp(d, p4(P.maximumPacketSize, 1000), p4(P.maximumPacketSize, 2000)),
      ],
      ['property-topic-alias-in-connect', 'property garbage', (d) => cp(d, p2(P.topicAlias, 1))],
      ['property-will-delay-in-connect', 'property garbage', (d) => cp(d, p4(P.willDelay, 5))],
      [
        'property-subscription-id-in-connect',
        'property garbage',
        (d) => cp(d, pVar(P.subscriptionIdentifier, 3)),
      ],
      ['property-server-keepalive-from-client', 'property garbage', (d) => cp(d, p2(P.serverKeepAlive, 30))],
      [
        'property-wrong-size',
        'property garbage',
        (d) => c(d, { properties: Buffer.concat([vbi(3), Buffer.from([P.sessionExpiry, 0, 60])]) }),
      ],
      ['property-length-huge', 'property garbage', (d) => c(d, { properties: vbi(268_435_455) })],
      [
        'property-length-5-bytes',
        'property garbage',
        (d) => c(d, { properties: Buffer.from([0xff, 0xff, 0xff, 0xff, 0x01]) }),
      ],
      [
        'property-length-past-packet',
        'property garbage',
        (d) => c(d, { properties: Buffer.concat([vbi(200), p4(P.sessionExpiry, 1)]) }),
      ],
      ['property-receive-maximum-0', 'property garbage', (d) => cp(d, p2(P.receiveMaximum, 0))],
      ['property-max-packet-size-0', 'property garbage', (d) => cp(d, p4(P.maximumPacketSize, 0))],
      ['property-request-problem-info-2', 'property garbage', (d) => cp(d, p1(P.requestProblemInfo, 2))],
      ['property-request-response-info-7', 'property garbage', (d) => cp(d, p1(P.requestResponseInfo, 7))],
      [
        'property-user-property-invalid-utf8',
        'property garbage',
        (d) => cp(d, pPair(P.userProperty, Buffer.from([0xc3, 0x28]), 'v')),
      ],
      ['property-user-property-nul', 'property garbage', (d) => cp(d, pPair(P.userProperty, 'k\u0000', 'v'))],
      ['property-auth-method', 'property garbage', (d) => cp(d, pStr(P.authMethod, 'SCRAM-SHA-1'))],
      [
        'will-property-topic-alias',
        'property garbage',
        (d) => c(d, { will: will(d, { properties: props(p2(P.topicAlias, 1)) }) }),
      ],
      [
        'will-property-duplicate-delay',
        'property garbage',
        (d) => c(d, { will: will(d, { properties: props(p4(P.willDelay, 1), p4(P.willDelay, 2)) }) }),
      ],
      [
        'will-property-unknown-id',
        'property garbage',
        (d) => c(d, { will: will(d, { properties: props(p1(0x7e, 0)) }) }),
      ],
      [
        'will-property-content-type-nul',
        'property garbage',
        (d) => c(d, { will: will(d, { properties: props(pStr(P.contentType, 'a\u0000')) }) }),
      ],
      [
        'will-property-payload-format-3',
        'property garbage',
        (d) => c(d, { will: will(d, { properties: props(p1(P.payloadFormat, 3)) }) }),
      ],
    );
  }
  return list;
}

/** Packets after a valid CONNECT that the standard says close the connection. */
function session(v: Version): [string, string, Bytes, string?][] {
  const own = (d: TestDevice) => `dev/${d.productKey}/${d.sn}/up`;
  const pub = (d: TestDevice, m: string, o: Parameters<typeof publish>[3] = {}) =>
    publish(v, propertyTopic(d), markerPayload(m), o);
  const filter = (d: TestDevice) => Buffer.concat([str(ownDown(d)), Buffer.from([1])]);
  const list: [string, string, Bytes, string?][] = [
    [
      'publish-qos-3',
      'PUBLISH with QoS 3',
      (d, _o, m) => pkt(0x36, publishBody(v, propertyTopic(d), markerPayload(m), 9)),
    ],
    [
      'publish-qos-3-dup',
      'PUBLISH with QoS 3',
      (d, _o, m) => pkt(0x3e, publishBody(v, propertyTopic(d), markerPayload(m), 9)),
    ],
    [
      'publish-topic-hash',
      'wildcards in a PUBLISH topic',
      (d, _o, m) => publish(v, `${own(d)}/#`, markerPayload(m)),
    ],
    [
      'publish-topic-plus',
      'wildcards in a PUBLISH topic',
      (d, _o, m) => publish(v, `${own(d)}/+`, markerPayload(m)),
    ],
    [
      'publish-topic-plus-inside',
      'wildcards in a PUBLISH topic',
      (d, _o, m) => publish(v, `dev/${d.productKey}/+/up/property`, markerPayload(m)),
    ],
    [
      'publish-topic-hash-qos0',
      'wildcards in a PUBLISH topic',
      (d, _o, m) => publish(v, '#', markerPayload(m), { qos: 0 }),
    ],
    ['publish-empty-topic', 'empty topic without alias', (_d, _o, m) => publish(v, '', markerPayload(m))],
    [
      'publish-empty-topic-qos0',
      'empty topic without alias',
      (_d, _o, m) => publish(v, '', markerPayload(m), { qos: 0 }),
    ],
    ['publish-topic-nul', 'U+0000', (d, _o, m) => publish(v, `${propertyTopic(d)}\u0000`, markerPayload(m))],
    [
      'publish-topic-nul-inside',
      'U+0000',
      (d, _o, m) => publish(v, `dev/${d.productKey}/${d.sn}\u0000/up/property`, markerPayload(m)),
    ],
    [
      'publish-topic-invalid-utf8',
      'invalid UTF-8',
      (d, _o, m) =>
        publish(
          v,
          Buffer.concat([Buffer.from(propertyTopic(d)), Buffer.from([0xc3, 0x28])]),
          markerPayload(m),
        ),
    ],
    [
      'publish-topic-surrogate',
      'invalid UTF-8',
      (d, _o, m) =>
        publish(
          v,
          Buffer.concat([Buffer.from(propertyTopic(d)), Buffer.from([0xed, 0xb0, 0x80])]),
          markerPayload(m),
        ),
    ],
    ['publish-qos1-packet-id-0', 'packet id 0 for QoS>0', (d, _o, m) => pub(d, m, { messageId: 0 })],
    ['publish-qos2-packet-id-0', 'packet id 0 for QoS>0', (d, _o, m) => pub(d, m, { qos: 2, messageId: 0 })],
    ['publish-qos0-dup', 'reserved flag bits', (d, _o, m) => pub(d, m, { qos: 0, dup: true })],
    [
      'publish-topic-length-past-end',
      'length fields lying',
      (d) => pkt(0x32, u16(400), Buffer.from(propertyTopic(d))),
    ],
    [
      'publish-no-packet-id',
      'length fields lying',
      (d) => pkt(0x32, str(propertyTopic(d)), Buffer.from([0x00])),
    ],
    [
      'publish-remaining-length-5-bytes',
      'over-long remaining length',
      (d, _o, m) =>
        Buffer.concat([
          Buffer.from([0x32, 0x80, 0x80, 0x80, 0x80, 0x01]),
          publishBody(v, propertyTopic(d), markerPayload(m), 3),
        ]),
    ],
    [
      'publish-remaining-length-max',
      'over-long remaining length',
      (d, _o, m) => lying(0x32, 268_435_455, publishBody(v, propertyTopic(d), markerPayload(m), 3)),
    ],
    [
      'publish-topic-too-deep',
      'wildcards in a PUBLISH topic',
      (_d, _o, m) => publish(v, `${'a/'.repeat(200)}b`, markerPayload(m)),
    ],
    ['subscribe-no-topics', 'SUBSCRIBE with no topics', () => subscribe(v, 0x82, 5, Buffer.alloc(0))],
    ['subscribe-packet-id-0', 'packet id 0 for QoS>0', (d) => subscribe(v, 0x82, 0, filter(d))],
    ['subscribe-flags-0', 'reserved flag bits on SUBSCRIBE', (d) => subscribe(v, 0x80, 5, filter(d))],
    ['subscribe-flags-3', 'reserved flag bits on SUBSCRIBE', (d) => subscribe(v, 0x83, 5, filter(d))],
    ['subscribe-flags-a', 'reserved flag bits on SUBSCRIBE', (d) => subscribe(v, 0x8a, 5, filter(d))],
    [
      'subscribe-qos-3',
      'bad subscription options',
      (d) => subscribe(v, 0x82, 5, Buffer.concat([str(ownDown(d)), Buffer.from([3])])),
    ],
    [
      'subscribe-options-bits-7-6',
      'bad subscription options',
      (d) => subscribe(v, 0x82, 5, Buffer.concat([str(ownDown(d)), Buffer.from([0xc1])])),
    ],
    ['subscribe-options-missing', 'length fields lying', (d) => subscribe(v, 0x82, 5, str(ownDown(d)))],
    [
      'subscribe-filter-length-past-end',
      'length fields lying',
      (d) => subscribe(v, 0x82, 5, Buffer.concat([u16(300), Buffer.from(ownDown(d))])),
    ],
    [
      'subscribe-filter-nul',
      'U+0000',
      (d) => subscribe(v, 0x82, 5, Buffer.concat([str(`${ownDown(d)}\u0000`), Buffer.from([1])])),
    ],
    [
      'subscribe-filter-invalid-utf8',
      'invalid UTF-8',
      (d) =>
        subscribe(
          v,
          0x82,
          5,
          Buffer.concat([
            str(Buffer.concat([Buffer.from(`dev/${d.productKey}/${d.sn}/down/`), Buffer.from([0xff, 0xfe])])),
            Buffer.from([1]),
          ]),
        ),
    ],
    ['unsubscribe-no-topics', 'SUBSCRIBE with no topics', () => unsubscribe(v, 0xa2, 6, Buffer.alloc(0))],
    ['unsubscribe-packet-id-0', 'packet id 0 for QoS>0', (d) => unsubscribe(v, 0xa2, 0, str(ownDown(d)))],
    [
      'unsubscribe-flags-0',
      'reserved flag bits on UNSUBSCRIBE',
      (d) => unsubscribe(v, 0xa0, 6, str(ownDown(d))),
    ],
    [
      'unsubscribe-flags-f',
      'reserved flag bits on UNSUBSCRIBE',
      (d) => unsubscribe(v, 0xaf, 6, str(ownDown(d))),
    ],
    ['pubrel-flags-0', 'reserved flag bits on PUBREL', () => pkt(0x60, u16(9))],
    ['pubrel-flags-3', 'reserved flag bits on PUBREL', () => pkt(0x63, u16(9))],
    ['puback-flags-1', 'reserved flag bits', () => pkt(0x41, u16(9))],
    ['pingreq-flags', 'reserved flag bits', () => Buffer.from([0xc1, 0x00])],
    ['pingreq-with-body', 'length fields lying', () => Buffer.from([0xc0, 0x02, 0x00, 0x00])],
    ['disconnect-flags', 'reserved flag bits', () => Buffer.from([0xe2, 0x00])],
    ['second-connect', 'second CONNECT', (d) => validConnect(d, v)],
    ['second-connect-other-device', 'second CONNECT', (_d, o) => validConnect(o, v)],
    ['connack-from-client', 'server packet from a client', () => Buffer.from([0x20, 0x02, 0x00, 0x00])],
    ['suback-from-client', 'server packet from a client', () => Buffer.from([0x90, 0x03, 0x00, 0x01, 0x00])],
    [
      'unsuback-from-client',
      'server packet from a client',
      () =>
        v === 5 ? Buffer.from([0xb0, 0x04, 0x00, 0x01, 0x00, 0x00]) : Buffer.from([0xb0, 0x02, 0x00, 0x01]),
    ],
    ['pingresp-from-client', 'server packet from a client', () => Buffer.from([0xd0, 0x00])],
    ['type-0-reserved', 'server packet from a client', () => Buffer.from([0x00, 0x00])],
  ];
  if (v === 4) {
    list.push(['type-15-auth', 'server packet from a client', () => Buffer.from([0xf0, 0x00])]);
    list.push([
      'subscribe-options-bits-v5-in-v4',
      'bad subscription options',
      (d) => subscribe(v, 0x82, 5, Buffer.concat([str(ownDown(d)), Buffer.from([0x05])])),
    ]);
    list.push(['puback-with-reason', 'length fields lying', () => pkt(0x40, u16(9), Buffer.from([0x10]))]);
  } else {
    const pp = (d: TestDevice, m: string, ...ps: Buffer[]) => pub(d, m, { properties: props(...ps) });
    list.push(
      ['publish-property-unknown-id', 'property garbage', (d, _o, m) => pp(d, m, p1(0x7f, 1))],
      [
        'publish-property-duplicate-expiry',
        'property garbage',
        (d, _o, m) => pp(d, m, p4(P.messageExpiry, 10), p4(P.messageExpiry, 20)),
      ],
      [
        'publish-property-duplicate-topic-alias',
        'property garbage',
        (d, _o, m) => pp(d, m, p2(P.topicAlias, 1), p2(P.topicAlias, 2)),
      ],
      [
        'publish-property-duplicate-content-type',
        'property garbage',
        (d, _o, m) => pp(d, m, pStr(P.contentType, 'a'), pStr(P.contentType, 'b')),
      ],
      [
        'publish-property-session-expiry',
        'property garbage',
        (d, _o, m) => pp(d, m, p4(P.sessionExpiry, 10)),
      ],
      [
        'publish-property-subscription-id',
        'property garbage',
        (d, _o, m) => pp(d, m, pVar(P.subscriptionIdentifier, 4)),
      ],
      [
        'publish-property-receive-maximum',
        'property garbage',
        (d, _o, m) => pp(d, m, p2(P.receiveMaximum, 4)),
      ],
      [
        'publish-property-payload-format-2',
        'property garbage',
        // mqtt-packet reads it as a boolean (2 arrives as 1): the packet scanner reads the byte itself.
        (d, _o, m) => pp(d, m, p1(P.payloadFormat, 2)),
      ],
      [
        'publish-property-wrong-size',
        'property garbage',
        (d, _o, m) => pub(d, m, { properties: Buffer.concat([vbi(2), Buffer.from([P.topicAlias, 1])]) }),
      ],
      [
        'publish-property-length-huge',
        'property garbage',
        (d, _o, m) => pub(d, m, { properties: vbi(200_000) }),
      ],
      [
        'publish-property-content-type-nul',
        'property garbage',
        (d, _o, m) => pp(d, m, pStr(P.contentType, 'a\u0000')),
      ],
      ['publish-topic-alias-0', 'topic alias 0 / above maximum', (d, _o, m) => pp(d, m, p2(P.topicAlias, 0))],
      [
        'publish-topic-alias-33',
        'topic alias 0 / above maximum',
        (d, _o, m) => pp(d, m, p2(P.topicAlias, 33)),
      ],
      [
        'publish-topic-alias-65535',
        'topic alias 0 / above maximum',
        (d, _o, m) => pp(d, m, p2(P.topicAlias, 65535)),
      ],
      [
        'publish-topic-alias-undefined',
        'topic alias 0 / above maximum',
        (_d, _o, m) => publish(v, '', markerPayload(m), { properties: props(p2(P.topicAlias, 5)) }),
      ],
      ['publish-retain', 'reserved flag bits', (d, _o, m) => pub(d, m, { retain: true })],
      [
        'subscribe-retain-handling-3',
        'bad subscription options',
        (d) => subscribe(v, 0x82, 5, Buffer.concat([str(ownDown(d)), Buffer.from([0x31])])),
      ],
      [
        'subscribe-no-local-shared',
        'bad subscription options',
        () => subscribe(v, 0x82, 5, Buffer.concat([str('$share/g/#'), Buffer.from([0x05])])),
      ],
      [
        'subscribe-subscription-id-0',
        'property garbage',
        (d) => subscribe(v, 0x82, 5, filter(d), props(pVar(P.subscriptionIdentifier, 0))),
      ],
      [
        'subscribe-property-unknown',
        'property garbage',
        (d) => subscribe(v, 0x82, 5, filter(d), props(p1(0x7f, 0))),
      ],
      [
        'subscribe-property-topic-alias',
        'property garbage',
        (d) => subscribe(v, 0x82, 5, filter(d), props(p2(P.topicAlias, 1))),
      ],
      ['disconnect-bad-reason', 'property garbage', () => Buffer.from([0xe0, 0x01, 0x8c])],
      [
        'disconnect-session-expiry-after-0',
        'property garbage',
        () => pkt(0xe0, Buffer.from([0x00]), props(p4(P.sessionExpiry, 100))),
      ],
      [
        'auth-packet',
        'server packet from a client',
        () => pkt(0xf0, Buffer.from([0x18]), props(pStr(P.authMethod, 'x'))),
      ],
      ['puback-bad-reason', 'property garbage', () => pkt(0x40, u16(9), Buffer.from([0x01]))],
    );
  }
  return list;
}

/** Packets after a valid CONNECT cut short: the connection then ends, and nothing of them may take effect. */
function truncatedSession(v: Version): [string, Bytes][] {
  return [
    ['publish-cut-in-payload', (d, _o, m) => publish(v, propertyTopic(d), markerPayload(m)).subarray(0, -3)],
    ['publish-cut-in-topic', (d, _o, m) => publish(v, propertyTopic(d), markerPayload(m)).subarray(0, 8)],
    ['publish-header-only', () => Buffer.from([0x32])],
    ['publish-truncated-varint', () => Buffer.from([0x32, 0xff, 0xff])],
    [
      'subscribe-cut',
      (d) => subscribe(v, 0x82, 5, Buffer.concat([str(ownDown(d)), Buffer.from([1])])).subarray(0, 6),
    ],
  ];
}

/**
 * The corpus for both versions: hand-written entries for every kind, then generated ones (`generated` per version:
 * truncations and bit flips of a valid CONNECT, truncations of a valid PUBLISH, random bytes), all from `seed`.
 */
export function buildCorpus(seed = 20, generated = 45): CorpusEntry[] {
  const out: CorpusEntry[] = [];
  for (const v of [4, 5] as const) {
    for (const [name, bytes] of beforeConnect(v)) {
      out.push({
        name: `v${v}/before-connect/${name}`,
        kind: 'packet before CONNECT',
        version: v,
        stage: 'connect',
        expect: 'refuse',
        source: 'hand',
        bytes: (d, _o, m) => bytes(d, m),
      });
    }
    for (const [name, kind, bytes, fin] of connects(v)) {
      out.push({
        name: `v${v}/connect/${name}`,
        kind,
        version: v,
        stage: 'connect',
        expect: 'refuse',
        source: 'hand',
        fin,
        bytes,
      });
    }
    for (const [name, kind, bytes, gap] of session(v)) {
      out.push({
        name: `v${v}/session/${name}`,
        kind,
        version: v,
        stage: 'session',
        expect: 'close',
        source: 'hand',
        gap,
        bytes,
      });
    }
    for (const [name, bytes] of truncatedSession(v)) {
      out.push({
        name: `v${v}/session/${name}`,
        kind: 'truncated packet',
        version: v,
        stage: 'session',
        expect: 'no-effect',
        source: 'hand',
        fin: true,
        bytes,
      });
    }
    out.push(...generatedEntries(v, seed + v, generated));
  }
  return out;
}

/**
 * Variants of valid packets that are malformed by construction, so the oracle does not depend on the server:
 * - a valid CONNECT cut at a random point (then the end of the connection): incomplete;
 * - a valid CONNECT cut at a random point with its Remaining Length rewritten: the password, its last field, is
 *   missing or short;
 * - a bit flipped in the header byte, the protocol name, the reserved flag bit, or the client id, user name or
 *   password bytes: not a CONNECT, a bad name, or credentials that are no longer this device's;
 * - a valid PUBLISH cut inside its topic or packet id with its Remaining Length rewritten: its lengths lie;
 * - a bit flipped in a PUBLISH topic: another topic, which may be valid, but is not the device's property topic;
 * - random bytes before any CONNECT, and after one.
 */
function generatedEntries(v: Version, seed: number, count: number): CorpusEntry[] {
  const rnd = prng(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const out: CorpusEntry[] = [];
  const base = { version: v, source: 'generated' as const };
  for (let i = 0; out.length < count; i++) {
    const kind = i % 7;
    const r1 = rnd();
    const r2 = rnd();
    const rbytes = Array.from({ length: 4 + int(60) }, () => int(256));
    const name = (what: string) => `v${v}/generated/${String(i).padStart(3, '0')}-${what}`;
    if (kind === 0) {
      out.push({
        ...base,
        name: name('connect-cut'),
        kind: 'truncated packet',
        stage: 'connect',
        expect: 'refuse',
        fin: true,
        bytes: (d) => {
          const full = validConnect(d, v);
          return full.subarray(0, 1 + Math.floor(r1 * (full.length - 1)));
        },
      });
    } else if (kind === 1) {
      out.push({
        ...base,
        name: name('connect-cut-length-rewritten'),
        kind: 'length fields lying',
        stage: 'connect',
        expect: 'refuse',
        bytes: (d) => {
          const body = connectBody({ level: v, clientId: d.sn, username: d.sn, password: d.secret });
          return pkt(0x10, body.subarray(0, Math.floor(r1 * (body.length - 1))));
        },
      });
    } else if (kind === 2 || kind === 3) {
      out.push({
        ...base,
        name: name('connect-bit-flip'),
        kind: 'bit flip',
        stage: 'connect',
        expect: 'refuse',
        bytes: (d) => {
          const body = connectBody({ level: v, clientId: d.sn, username: d.sn, password: d.secret });
          const full = pkt(0x10, body);
          const head = full.length - body.length;
          // Regions where any flipped bit makes the CONNECT wrong: [start, end) offsets and the bits allowed.
          const idStart = head + 10 + (v === 5 ? 1 : 0) + 2;
          const userStart = idStart + d.sn.length + 2;
          const passStart = userStart + d.sn.length + 2;
          const regions: [number, number, number][] = [
            [0, 1, 0xff],
            [head + 2, head + 6, 0xff],
            [head + 7, head + 8, 0x01],
            [idStart, idStart + d.sn.length, 0xff],
            [userStart, userStart + d.sn.length, 0xff],
            [passStart, passStart + d.secret.length, 0xff],
          ];
          const [start, end, mask] = regions[Math.floor(r1 * regions.length)]!;
          const at = start + Math.floor(r2 * (end - start));
          const bits = [0, 1, 2, 3, 4, 5, 6, 7].filter((b) => mask & (1 << b));
          const copy = Buffer.from(full);
          copy[at] = copy[at]! ^ (1 << bits[rbytes[0]! % bits.length]!);
          return copy;
        },
      });
    } else if (kind === 4) {
      out.push({
        ...base,
        name: name('publish-cut-length-rewritten'),
        kind: 'length fields lying',
        stage: 'session',
        expect: 'close',
        bytes: (d, _o, m) => {
          const body = publishBody(v, propertyTopic(d), markerPayload(m), 11);
          // Inside the topic length, the topic or the packet id.
          const cut = Math.floor(r1 * (2 + propertyTopic(d).length + 2));
          return pkt(0x32, body.subarray(0, cut));
        },
      });
    } else if (kind === 5) {
      out.push({
        ...base,
        name: name('publish-topic-bit-flip'),
        kind: 'bit flip',
        stage: 'session',
        expect: 'no-effect',
        bytes: (d, _o, m) => {
          const topic = Buffer.from(propertyTopic(d));
          const at = Math.floor(r1 * topic.length);
          topic[at] = topic[at]! ^ (1 << (rbytes[0]! % 8));
          return publish(v, topic, markerPayload(m));
        },
      });
    } else {
      const session = r1 < 0.5;
      out.push({
        ...base,
        name: name(session ? 'random-after-connect' : 'random-first'),
        kind: 'random bytes',
        stage: session ? 'session' : 'connect',
        expect: session ? 'no-effect' : 'refuse',
        fin: true,
        bytes: () => Buffer.from(rbytes),
      });
    }
  }
  return out;
}

/** The kinds of fault the issue lists: each must be in the corpus, hand-written. */
export const REQUIRED_KINDS = [
  'packet before CONNECT',
  'bad protocol name',
  'bad protocol level',
  'reserved flag bit',
  'will flags inconsistent',
  'password without username',
  'client id empty with clean=0',
  'over-long remaining length',
  'truncated varint',
  'length fields lying',
  'invalid UTF-8',
  'U+0000',
  'wrong credentials',
  'another device client id',
  'property garbage',
  'PUBLISH with QoS 3',
  'wildcards in a PUBLISH topic',
  'empty topic without alias',
  'topic alias 0 / above maximum',
  'packet id 0 for QoS>0',
  'SUBSCRIBE with no topics',
  'bad subscription options',
  'reserved flag bits on SUBSCRIBE',
  'reserved flag bits on UNSUBSCRIBE',
  'reserved flag bits on PUBREL',
  'second CONNECT',
  'truncated packet',
  'random bytes',
  'bit flip',
];
