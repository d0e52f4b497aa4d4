import mqttPacket, { type Packet } from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import { MAX_PACKET_BYTES, PacketScanner } from './packet-scanner';

const gen = (p: Packet, protocolVersion: 4 | 5 = 4) => mqttPacket.generate(p, { protocolVersion });
const connect = (protocolVersion: 3 | 4 | 5) =>
  gen(
    {
      cmd: 'connect',
      protocolId: protocolVersion === 3 ? 'MQIsdp' : 'MQTT',
      protocolVersion,
      clean: true,
      keepalive: 30,
      clientId: 'dev-1',
    },
    protocolVersion === 5 ? 5 : 4,
  );
const publish = (messageId: number, qos: 0 | 1 | 2 = 1, topic = 'P/up/property') =>
  gen({
    cmd: 'publish',
    topic,
    payload: Buffer.from('{"params":{"t":1}}'),
    qos,
    messageId,
    dup: false,
    retain: false,
  });
// mqtt-packet refuses to write packet id 0: patch it into a packet written with id 1.
const zeroId = (bytes: Buffer, idOffset: number) => {
  const b = Buffer.from(bytes);
  b.writeUInt16BE(0, idOffset);
  return b;
};

/** A fixed header announcing `length` bytes (the body does not follow). */
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

/** Scans in pieces of `size` bytes, as the network may deliver them. */
function scanInPieces(scanner: PacketScanner, bytes: Buffer, size: number) {
  for (let i = 0; i < bytes.length; i += size) {
    const v = scanner.scan(bytes.subarray(i, i + size));
    if (v) return v;
  }
  return undefined;
}

describe('PacketScanner', () => {
  it('follows packet boundaries across any chunking and reads the CONNECT level', () => {
    for (const level of [3, 4, 5] as const) {
      const connectBytes = connect(level);
      const stream = Buffer.concat([
        connectBytes,
        ...Array.from({ length: 50 }, (_, i) => publish(i + 1, 1, `t/${'x'.repeat(i)}`)),
        gen({ cmd: 'pingreq' }),
      ]);
      for (const size of [1, 2, 3, 7, 64, stream.length]) {
        const s = new PacketScanner();
        expect(scanInPieces(s, stream, size)).toBeUndefined();
        expect(s.level).toBe(level);
        expect(s.firstPacketEnd).toBe(connectBytes.length);
        expect(s.packets).toBe(52);
        expect(s.offset).toBe(stream.length);
      }
    }
  });

  it('refuses a Remaining Length above the limit from the fixed header alone, first packet included', () => {
    // PUBLISH announcing 250 MB after a CONNECT: 5 bytes of header are enough.
    const huge = 250 * 1024 * 1024;
    const s = new PacketScanner();
    expect(s.scan(Buffer.concat([connect(4), fixedHeader(0x32, huge)]))).toEqual({
      kind: 'too-large',
      type: 3,
      length: huge,
    });
    // A CONNECT announcing one byte more than the limit, read byte by byte.
    expect(scanInPieces(new PacketScanner(), fixedHeader(0x10, MAX_PACKET_BYTES + 1), 1)).toEqual({
      kind: 'too-large',
      type: 1,
      length: MAX_PACKET_BYTES + 1,
    });
    // Exactly the limit passes.
    const limit = new PacketScanner(300);
    const ok = publish(1, 1, 'a');
    expect(limit.scan(Buffer.concat([connect(4), ok]))).toBeUndefined();
    expect(new PacketScanner(ok.length - 3).scan(Buffer.concat([connect(4), ok]))).toMatchObject({
      kind: 'too-large',
    });
  });

  it('refuses a first packet that is no CONNECT and a Remaining Length longer than 4 bytes', () => {
    expect(new PacketScanner().scan(Buffer.from('GET / HTTP/1.1\r\n'))).toEqual({
      kind: 'not-connect',
      byte: 0x47,
    });
    expect(new PacketScanner().scan(publish(1))).toMatchObject({ kind: 'not-connect' });
    expect(new PacketScanner(Infinity).scan(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x01]))).toEqual({
      kind: 'malformed-length',
    });
  });

  it('refuses packet id 0 on QoS 1/2 PUBLISH, SUBSCRIBE and UNSUBSCRIBE', () => {
    const topic = 'P/up/property';
    const idAt = 2 + 2 + topic.length; // fixed header (2 bytes here), topic length, topic
    const zeroQos1 = zeroId(publish(1, 1, topic), idAt);
    const zeroQos2 = zeroId(publish(1, 2, topic), idAt);
    const sub = zeroId(gen({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'a/#', qos: 1 }] }), 2);
    const unsub = zeroId(gen({ cmd: 'unsubscribe', messageId: 1, unsubscriptions: ['a/#'] }), 2);
    for (const level of [3, 4, 5] as const) {
      for (const [bytes, type] of [
        [zeroQos1, 3],
        [zeroQos2, 3],
        [sub, 8],
        [unsub, 10],
      ] as const) {
        for (const size of [1, 5, 1000]) {
          const s = new PacketScanner();
          expect(scanInPieces(s, Buffer.concat([connect(level), publish(7), bytes]), size)).toEqual({
            kind: 'zero-packet-id',
            type,
          });
        }
      }
    }
    // QoS 0 has no packet id; in 5.0 the properties follow the packet id (they do not move it).
    const qos0 = gen({ cmd: 'publish', topic, payload: Buffer.from('x'), qos: 0, dup: false, retain: false });
    expect(new PacketScanner().scan(Buffer.concat([connect(4), qos0]))).toBeUndefined();
    const v5 = gen(
      {
        cmd: 'publish',
        topic,
        payload: Buffer.from('x'),
        qos: 1,
        messageId: 9,
        dup: false,
        retain: false,
        properties: { topicAlias: 1 },
      },
      5,
    );
    expect(new PacketScanner().scan(Buffer.concat([connect(5), v5]))).toBeUndefined();
    expect(new PacketScanner().scan(Buffer.concat([connect(5), zeroId(v5, idAt)]))).toMatchObject({
      kind: 'zero-packet-id',
    });
    // An id whose high byte is 0 is not id 0.
    expect(new PacketScanner().scan(Buffer.concat([connect(4), publish(1), publish(256)]))).toBeUndefined();
  });
});

describe('fixed headers the parser takes although the standard refuses them (issue 20)', () => {
  const scanAll = (level: 4 | 5, ...packets: Buffer[]) => {
    const s = new PacketScanner();
    return s.scan(Buffer.concat([connect(level), ...packets]));
  };

  it('refuses a PINGREQ with a body, a 3.1.1 acknowledgement or DISCONNECT of the wrong length, a SUBSCRIBE without filters', () => {
    expect(scanAll(4, Buffer.from([0xc0, 0x02, 0, 0]))).toMatchObject({
      kind: 'bad-header',
      why: 'PINGREQ with a body',
    });
    expect(scanAll(5, Buffer.from([0xc0, 0x01, 0]))).toMatchObject({ kind: 'bad-header' });
    expect(scanAll(4, Buffer.from([0x40, 0x03, 0, 1, 0x10]))).toMatchObject({ kind: 'bad-header' });
    expect(scanAll(4, Buffer.from([0xe0, 0x01, 0]))).toMatchObject({ kind: 'bad-header' });
    expect(scanAll(4, Buffer.from([0x82, 0x02, 0, 1]))).toMatchObject({
      kind: 'bad-header',
      why: 'no topic filter',
    });
    expect(scanAll(4, Buffer.from([0xa2, 0x02, 0, 1]))).toMatchObject({
      kind: 'bad-header',
      why: 'no topic filter',
    });
    // 5.0 acknowledgements carry a reason code and properties; a 5.0 DISCONNECT a reason code.
    expect(scanAll(5, Buffer.from([0x40, 0x03, 0, 1, 0x10]), Buffer.from([0xe0, 0x01, 0]))).toBeUndefined();
    expect(
      scanAll(4, Buffer.from([0xc0, 0x00]), Buffer.from([0x40, 0x02, 0, 1]), Buffer.from([0xe0, 0x00])),
    ).toBeUndefined();
  });

  it('refuses DUP on a QoS 0 PUBLISH, and a QoS 1 PUBLISH that ends before its packet id', () => {
    const qos0 = publish(0, 0);
    const dup = Buffer.from(qos0);
    dup[0] = dup[0]! | 0x08;
    expect(scanAll(4, dup)).toMatchObject({ kind: 'bad-header', why: 'DUP set on QoS 0' });
    expect(scanAll(4, qos0)).toBeUndefined();
    const topic = Buffer.from('P/up/property');
    const noId = Buffer.concat([
      Buffer.from([0x32, 2 + topic.length + 1, 0, topic.length]),
      topic,
      Buffer.from([0]),
    ]);
    expect(scanAll(4, noId)).toMatchObject({ kind: 'bad-header', why: 'packet id missing' });
    expect(scanAll(5, Buffer.from([0x82, 0x01, 0]))).toMatchObject({
      kind: 'bad-header',
      why: 'packet id missing',
    });
  });
});

describe('MQTT 5.0 PUBLISH properties the parser reads as a boolean (issue 20)', () => {
  const topic = 'P/up/property';
  /** A 5.0 PUBLISH with these properties; the payload format indicator is written as 1 and patched to `format`. */
  const v5publish = (qos: 0 | 1, properties: Record<string, unknown>, format?: number) => {
    const bytes = gen(
      {
        cmd: 'publish',
        topic,
        payload: Buffer.from('{"params":{"t":1}}'),
        qos,
        messageId: qos ? 5 : undefined,
        dup: false,
        retain: false,
        properties: { ...properties, ...(format === undefined ? {} : { payloadFormatIndicator: true }) },
      } as Packet,
      5,
    );
    if (format === undefined) return bytes;
    // mqtt-packet writes 0x01 0x01 for the indicator; every other property here comes before it or holds no 0x01 0x01.
    const b = Buffer.from(bytes);
    const at = b.indexOf(Buffer.from([0x01, 0x01]), 2 + 2 + topic.length);
    b[at + 1] = format;
    return b;
  };
  const others = {
    messageExpiryInterval: 60,
    contentType: 'application/json',
    responseTopic: 'P/up/reply',
    correlationData: Buffer.from([0x01, 0x02, 0x01]),
    userProperties: { a: 'b', c: ['d', 'e'] },
    topicAlias: 3,
  };

  it('refuses a payload format indicator other than 0 or 1, at any chunking and QoS', () => {
    for (const qos of [0, 1] as const) {
      for (const format of [2, 3, 255]) {
        for (const size of [1, 3, 1000]) {
          const s = new PacketScanner();
          expect(
            scanInPieces(s, Buffer.concat([connect(5), v5publish(qos, others, format)]), size),
            `qos ${qos}, ${format}, pieces of ${size}`,
          ).toEqual({ kind: 'bad-property', type: 3, why: `payload format indicator ${format}` });
        }
      }
    }
  });

  it('takes 0 and 1, walks past every other property, and leaves 3.1.1 alone', () => {
    for (const qos of [0, 1] as const) {
      for (const format of [0, 1, undefined]) {
        for (const size of [1, 7, 1000]) {
          const s = new PacketScanner();
          const bytes = Buffer.concat([
            connect(5),
            v5publish(qos, others, format),
            v5publish(qos, {}),
            v5publish(qos, others, format),
          ]);
          expect(scanInPieces(s, bytes, size)).toBeUndefined();
          expect(s.packets).toBe(4);
        }
      }
    }
    // A 3.1.1 PUBLISH has no properties: a 0x01 0x02 in its topic or payload means nothing.
    const s = new PacketScanner();
    const odd = gen({
      cmd: 'publish',
      topic: 'P/up/\u0001\u0002',
      payload: Buffer.from([1, 2]),
      qos: 0,
      dup: false,
      retain: false,
    });
    expect(s.scan(Buffer.concat([connect(4), odd]))).toBeUndefined();
  });
});
