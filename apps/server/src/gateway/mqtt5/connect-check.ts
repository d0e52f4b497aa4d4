/**
 * A strict reading of a connection's first packet, its CONNECT, before any broker sees it. The MQTT parser Aedes
 * and the 5.0 front use (mqtt-packet) checks the form of a CONNECT only in part: it accepts, and Aedes then
 * connects, a CONNECT with will QoS 3, a will topic that is empty, holds wildcards or U+0000, bytes after the last
 * field, the 3.1 protocol name with level 4, the bridge bit on the level, invalid UTF-8, and (5.0) properties that
 * are repeated, belong to other packets or carry values the standard forbids. Each of these is a malformed packet or
 * a protocol error on which the server must close the connection (MQTT 3.1.1 1.5.3, 3.1.2, 3.1.3; 5.0 1.5.4, 2.2.2,
 * 3.1.2, 3.1.3, 4.13); issue 20's corpus (src/reliability/mqtt-corpus.ts) sends every one of them.
 */

/** What is wrong with a CONNECT; 5.0 devices are told with the reason code. */
export interface ConnectFault {
  reasonCode: typeof MALFORMED | typeof PROTOCOL_ERROR;
  why: string;
}

const MALFORMED = 0x81;
const PROTOCOL_ERROR = 0x82;

const utf8 = new TextDecoder('utf-8', { fatal: true });

class Fault extends Error {
  constructor(
    readonly reasonCode: ConnectFault['reasonCode'],
    why: string,
  ) {
    super(why);
  }
}

const malformed = (why: string) => new Fault(MALFORMED, why);

/** Property value types (MQTT 5.0 2.2.2.2). */
type Kind = 'byte' | 'u16' | 'u32' | 'var' | 'string' | 'binary' | 'pair';

/** Properties a CONNECT may carry, and those of its will (MQTT 5.0 3.1.2.11, 3.1.3.2). */
const CONNECT_PROPERTIES: Record<number, Kind> = {
  0x11: 'u32', // session expiry interval
  0x15: 'string', // authentication method
  0x16: 'binary', // authentication data
  0x17: 'byte', // request problem information
  0x19: 'byte', // request response information
  0x21: 'u16', // receive maximum
  0x22: 'u16', // topic alias maximum
  0x26: 'pair', // user property
  0x27: 'u32', // maximum packet size
};
const WILL_PROPERTIES: Record<number, Kind> = {
  0x01: 'byte', // payload format indicator
  0x02: 'u32', // message expiry interval
  0x03: 'string', // content type
  0x08: 'string', // response topic
  0x09: 'binary', // correlation data
  0x18: 'u32', // will delay interval
  0x26: 'pair', // user property
};
/** Properties with a value of 0 or 1 only. */
const BOOLEAN_PROPERTIES = new Set([0x01, 0x17, 0x19]);
/** Properties whose value must not be 0. */
const NON_ZERO_PROPERTIES = new Set([0x21, 0x27]);
const USER_PROPERTY = 0x26;

/** Reads the fields of one packet's body; every read past the end is a malformed packet. */
class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}

  get left(): number {
    return this.buf.length - this.pos;
  }

  byte(what: string): number {
    if (this.left < 1) throw malformed(`${what}: past the end`);
    return this.buf[this.pos++]!;
  }

  u16(what: string): number {
    if (this.left < 2) throw malformed(`${what}: past the end`);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  u32(what: string): number {
    if (this.left < 4) throw malformed(`${what}: past the end`);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  varInt(what: string): number {
    let value = 0;
    for (let i = 0, mult = 1; ; i++, mult *= 128) {
      if (i === 4) throw malformed(`${what}: variable byte integer longer than 4 bytes`);
      const b = this.byte(what);
      value += (b & 0x7f) * mult;
      if ((b & 0x80) === 0) return value;
    }
  }

  binary(what: string): Buffer {
    const n = this.u16(what);
    if (this.left < n) throw malformed(`${what}: length past the end`);
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  /** A UTF-8 string: well-formed (no surrogates, no overlong forms) and without U+0000 (MQTT-1.5.3-1, -2). */
  string(what: string): string {
    const bytes = this.binary(what);
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw malformed(`${what}: not valid UTF-8`);
    }
    if (text.includes('\u0000')) throw malformed(`${what}: contains U+0000`);
    return text;
  }
}

/** A topic name (the will's, a response topic): not empty, no wildcards (MQTT-4.7.3-1, MQTT-3.3.2-2). */
function topicName(text: string, what: string): void {
  if (text.length === 0) throw new Fault(PROTOCOL_ERROR, `${what}: empty`);
  if (text.includes('+') || text.includes('#')) throw new Fault(PROTOCOL_ERROR, `${what}: wildcard`);
}

function properties(r: Reader, allowed: Record<number, Kind>, what: string): Map<number, unknown> {
  const length = r.varInt(`${what} length`);
  if (length > r.left) throw malformed(`${what}: length past the end`);
  const end = r.pos + length;
  const seen = new Map<number, unknown>();
  while (r.pos < end) {
    const id = r.varInt(`${what} identifier`);
    const kind = allowed[id];
    if (!kind) throw new Fault(PROTOCOL_ERROR, `${what}: property 0x${id.toString(16)} not allowed here`);
    if (id !== USER_PROPERTY && seen.has(id)) {
      throw new Fault(PROTOCOL_ERROR, `${what}: property 0x${id.toString(16)} repeated`);
    }
    const name = `${what} 0x${id.toString(16)}`;
    let value: unknown;
    switch (kind) {
      case 'byte':
        value = r.byte(name);
        break;
      case 'u16':
        value = r.u16(name);
        break;
      case 'u32':
        value = r.u32(name);
        break;
      case 'var':
        value = r.varInt(name);
        break;
      case 'string':
        value = r.string(name);
        break;
      case 'binary':
        value = r.binary(name);
        break;
      case 'pair':
        value = [r.string(name), r.string(name)];
        break;
    }
    if (BOOLEAN_PROPERTIES.has(id) && value !== 0 && value !== 1) {
      throw new Fault(PROTOCOL_ERROR, `${name}: must be 0 or 1`);
    }
    if (NON_ZERO_PROPERTIES.has(id) && value === 0) throw new Fault(PROTOCOL_ERROR, `${name}: must not be 0`);
    seen.set(id, value);
  }
  if (r.pos !== end) throw malformed(`${what}: a property runs past the property length`);
  return seen;
}

/**
 * Checks a whole CONNECT packet (fixed header included, as the connection's first bytes end it). `undefined` when
 * it is well-formed; whether its credentials are any good is the broker's to decide.
 */
export function connectFault(packet: Buffer): ConnectFault | undefined {
  try {
    check(packet);
    return undefined;
  } catch (err) {
    if (err instanceof Fault) return { reasonCode: err.reasonCode, why: err.message };
    throw err;
  }
}

function check(packet: Buffer): void {
  // The fixed header: 0x10 (no flag bits) and the Remaining Length, which the scanner found to end the packet.
  if (packet[0] !== 0x10) throw malformed('CONNECT header flags');
  let pos = 1;
  while (packet[pos]! & 0x80) pos++;
  const r = new Reader(packet.subarray(pos + 1));

  const name = r.string('protocol name');
  const level = r.byte('protocol level');
  // MQTT-3.1.2-1, -2: "MQIsdp" is 3.1 (level 3), "MQTT" is 3.1.1 (4) or 5.0 (5); the 0x80 "bridge" bit is no level.
  const known = (name === 'MQIsdp' && level === 3) || (name === 'MQTT' && (level === 4 || level === 5));
  if (!known) throw new Fault(PROTOCOL_ERROR, `protocol ${JSON.stringify(name)} level ${level}`);
  const v5 = level === 5;

  const flags = r.byte('connect flags');
  if (flags & 0x01) throw malformed('reserved connect flag set'); // MQTT-3.1.2-3
  const will = (flags & 0x04) !== 0;
  const willQos = (flags >> 3) & 3;
  const willRetain = (flags & 0x20) !== 0;
  const hasUsername = (flags & 0x80) !== 0;
  const hasPassword = (flags & 0x40) !== 0;
  if (willQos === 3) throw malformed('will QoS 3'); // MQTT-3.1.2-14
  if (!will && (willQos !== 0 || willRetain)) throw malformed('will QoS or retain without a will'); // -11, -13, -15
  // MQTT-3.1.2-22 (3.1 and 3.1.1 only: 5.0 allows a password without a user name).
  if (!v5 && hasPassword && !hasUsername) throw malformed('password without user name');

  r.u16('keep alive');
  if (v5) properties(r, CONNECT_PROPERTIES, 'CONNECT properties');
  r.string('client id');
  if (will) {
    if (v5) {
      const props = properties(r, WILL_PROPERTIES, 'will properties');
      const responseTopic = props.get(0x08);
      if (typeof responseTopic === 'string') topicName(responseTopic, 'will response topic');
    }
    topicName(r.string('will topic'), 'will topic');
    r.binary('will payload');
  }
  if (hasUsername) r.string('user name');
  if (hasPassword) r.binary('password');
  // MQTT 3.1.1 2.2.3 / 5.0 2.1.4: the Remaining Length is the fields, nothing after them.
  if (r.left !== 0) throw malformed(`${r.left} bytes after the last field`);
}
