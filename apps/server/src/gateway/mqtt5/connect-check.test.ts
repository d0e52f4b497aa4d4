import mqttPacket, { type IConnectPacket } from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import { connectFault } from './connect-check';

// The strict CONNECT check in front of the broker (issue 20): what mqtt-packet parses and Aedes would accept although
// the standard says close. The whole corpus runs against the app in src/reliability/mqtt-faults.test.ts.

const base = (level: 3 | 4 | 5, over: Partial<IConnectPacket> = {}): IConnectPacket => ({
  cmd: 'connect',
  protocolId: level === 3 ? 'MQIsdp' : 'MQTT',
  protocolVersion: level,
  clean: true,
  keepalive: 60,
  clientId: 'SN-1',
  username: 'SN-1',
  password: Buffer.from('secret'),
  ...over,
});
const gen = (p: IConnectPacket) =>
  mqttPacket.generate(p, { protocolVersion: p.protocolVersion === 5 ? 5 : 4 });
/** The body offset of a generated CONNECT (fixed header of 2 bytes for these sizes). */
const at = (b: Buffer, offset: number, value: number) => {
  const c = Buffer.from(b);
  c[2 + offset] = value;
  return c;
};
const fault = (b: Buffer) => connectFault(b)?.why;
const str = (x: string) => Buffer.concat([Buffer.from([0, Buffer.byteLength(x)]), Buffer.from(x)]);
/** A CONNECT with a client id and a password only (mqtt-packet writes no password without a user name). */
const passwordOnly = (level: 4 | 5) => {
  const body = Buffer.concat([
    str('MQTT'),
    Buffer.from([level, 0x42, 0, 60]),
    ...(level === 5 ? [Buffer.from([0])] : []),
    str('SN-1'),
    str('secret'),
  ]);
  return Buffer.concat([Buffer.from([0x10, body.length]), body]);
};

describe('connectFault', () => {
  it('passes well-formed 3.1, 3.1.1 and 5.0 CONNECTs, with wills, properties and a 5.0 password alone', () => {
    const will = {
      topic: 'dev/pk/SN-1/up/status',
      payload: Buffer.from('{"online":0}'),
      qos: 1 as const,
      retain: false,
    };
    for (const p of [
      base(3),
      base(4),
      base(5),
      base(4, { will }),
      base(5, {
        will: {
          ...will,
          properties: { willDelayInterval: 5, contentType: 'json', userProperties: { a: 'b' } },
        },
      }),
      base(5, {
        properties: {
          sessionExpiryInterval: 60,
          receiveMaximum: 10,
          maximumPacketSize: 1000,
          requestProblemInformation: true,
          userProperties: { k: ['1', '2'] },
        },
      }),
      base(4, { username: undefined, password: undefined, clientId: '' }),
    ]) {
      expect(fault(gen(p)), JSON.stringify(p)).toBeUndefined();
    }
    expect(fault(passwordOnly(5))).toBeUndefined();
  });

  it('refuses what the parser lets through: names, levels, flags, will topics, trailing bytes, UTF-8, U+0000', () => {
    const v4 = gen(base(4));
    expect(fault(gen(base(4, { protocolId: 'MQIsdp' })))).toMatch(/protocol "MQIsdp" level 4/);
    expect(fault(at(v4, 6, 0x84))).toMatch(/level 132/);
    expect(fault(at(v4, 7, v4[2 + 7]! | 0x01))).toMatch(/reserved/);
    const will = {
      topic: 'dev/pk/SN-1/up/status',
      payload: Buffer.from('x'),
      qos: 1 as const,
      retain: false,
    };
    const withWill = gen(base(4, { will }));
    expect(fault(at(withWill, 7, withWill[2 + 7]! | 0x18))).toMatch(/will QoS 3/);
    expect(fault(at(v4, 7, v4[2 + 7]! | 0x20))).toMatch(/without a will/);
    expect(fault(at(v4, 7, v4[2 + 7]! & ~0x80))).toBeDefined();
    expect(fault(passwordOnly(4))).toMatch(/password without user name/);
    expect(fault(gen(base(4, { will: { ...will, topic: 'dev/pk/SN-1/up/#' } })))).toMatch(
      /will topic: wildcard/,
    );
    // mqtt-packet writes no empty will topic: a one-letter one, cut to nothing.
    const one = gen(base(4, { will: { ...will, topic: 'x' } }));
    const i = one.indexOf(Buffer.from([0, 1, 0x78]));
    const empty = Buffer.concat([one.subarray(0, i), Buffer.from([0, 0]), one.subarray(i + 3)]);
    empty[1] = empty[1]! - 1;
    expect(fault(empty)).toMatch(/will topic: empty/);
    expect(fault(gen(base(5, { will: { ...will, topic: 'a\u0000' } })))).toMatch(/U\+0000/);
    expect(fault(gen(base(4, { clientId: 'SN-1\u0000' })))).toMatch(/client id: contains U\+0000/);
    // "SN-1" with its last byte replaced by 0xC3 (a lead byte without its continuation).
    const id = Buffer.from(v4);
    id[id.indexOf('SN-1') + 3] = 0xc3;
    expect(fault(id)).toMatch(/client id: not valid UTF-8/);
    const tail = Buffer.concat([v4, Buffer.from('xx')]);
    tail[1] = tail[1]! + 2;
    expect(fault(tail)).toMatch(/2 bytes after the last field/);
    const short = Buffer.from(v4.subarray(0, v4.length - 3));
    short[1] = short[1]! - 3;
    expect(fault(short)).toMatch(/past the end/);
  });

  it('refuses 5.0 properties that are repeated, out of place or of forbidden values (Protocol Error 0x82)', () => {
    // The property block sits right after the keep-alive: body offset 10 (length), 11 (first property).
    const withProps = (...bytes: number[]) => {
      const b = gen(base(5));
      const body = b.subarray(2);
      const out = Buffer.concat([
        body.subarray(0, 10),
        Buffer.from([bytes.length, ...bytes]),
        body.subarray(11),
      ]);
      return Buffer.concat([Buffer.from([0x10, out.length]), out]);
    };
    const cases: [number[], RegExp][] = [
      [[0x11, 0, 0, 0, 1, 0x11, 0, 0, 0, 2], /0x11 repeated/],
      [[0x23, 0, 1], /0x23 not allowed/],
      [[0x18, 0, 0, 0, 5], /0x18 not allowed/],
      [[0x7f, 1], /0x7f not allowed/],
      [[0x21, 0, 0], /must not be 0/],
      [[0x27, 0, 0, 0, 0], /must not be 0/],
      [[0x17, 2], /must be 0 or 1/],
      [[0x11, 0, 60], /past the end|runs past/],
    ];
    for (const [bytes, why] of cases) {
      const f = connectFault(withProps(...bytes));
      expect(f?.why, bytes.join(',')).toMatch(why);
    }
    expect(connectFault(withProps(0x11, 0, 0, 0, 1, 0x11, 0, 0, 0, 2))?.reasonCode).toBe(0x82);
    expect(connectFault(withProps(0x21, 0, 5))).toBeUndefined();
  });
});
