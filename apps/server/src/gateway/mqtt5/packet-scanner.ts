import { MAX_PAYLOAD_BYTES } from '@cellhub/contract/protocol';

/**
 * The largest Remaining Length a device's packet may announce: the 256 KB payload limit of docs/device-protocol.md.
 * Topic, packet id and properties count against it too, so every packet that carries an allowed payload and a
 * usual topic fits, and MQTT 5.0's Maximum Packet Size (which also counts the fixed header) can advertise it.
 */
export const MAX_PACKET_BYTES = MAX_PAYLOAD_BYTES;

/** Why a device's byte stream must be cut off. */
export type Violation =
  /** MQTT-3.1.0-1: the first packet of a connection must be a CONNECT. */
  | { kind: 'not-connect'; byte: number }
  /** MQTT-2.2.3: the Remaining Length takes at most 4 bytes. */
  | { kind: 'malformed-length' }
  /** The announced Remaining Length is above the limit: refused before a byte of the body is buffered. */
  | { kind: 'too-large'; type: number; length: number }
  /** MQTT-2.3.1-1 (5.0: MQTT-2.2.1-3): PUBLISH with QoS > 0, SUBSCRIBE and UNSUBSCRIBE carry a non-zero Packet Identifier. */
  | { kind: 'zero-packet-id'; type: number }
  /** The CONNECT breaks a rule its parser does not check (connect-check.ts). */
  | { kind: 'bad-connect'; reasonCode: number; why: string }
  /**
   * A packet whose fixed header the standard forbids (a length other than its type's, DUP on QoS 0; see scan), or
   * which ends before its packet id.
   */
  | { kind: 'bad-header'; type: number; why: string }
  /** MQTT 5.0 3.3.2.3.2: a PUBLISH's payload format indicator is 0 or 1 (the parser reads it as a boolean). */
  | { kind: 'bad-property'; type: number; why: string };

const CONNECT = 1;
const PUBLISH = 3;
const SUBSCRIBE = 8;
const UNSUBSCRIBE = 10;
const PINGREQ = 12;

/**
 * Remaining Lengths the standard fixes by packet type, which the MQTT parser does not hold a device to (it answers a
 * PINGREQ with a body, or an UNSUBSCRIBE with no topic filter, as if they were well-formed): 3.1 and 3.1.1 PUBACK,
 * PUBREC, PUBREL and PUBCOMP carry exactly their packet id (MQTT 3.1.1 3.4-3.7), PINGREQ nothing in any version (3.12),
 * DISCONNECT nothing before 5.0 (3.14), and a 3.1.1 SUBSCRIBE or UNSUBSCRIBE at least one topic filter after its id
 * (MQTT-3.8.3-3, MQTT-3.10.3-2). Packets a server alone sends are refused by the broker already.
 */
function lengthFault(type: number, length: number, level: number | undefined): string | undefined {
  if (type === PINGREQ && length !== 0) return 'PINGREQ with a body';
  if (level === 5) return undefined;
  if (type >= 4 && type <= 7 && length !== 2) return 'acknowledgement longer than its packet id';
  if (type === 14 && length !== 0) return 'DISCONNECT with a body';
  if ((type === SUBSCRIBE || type === UNSUBSCRIBE) && length <= 2) return 'no topic filter';
  return undefined;
}

const enum State {
  Header,
  Length,
  Body,
}

/** Where a PUBLISH's pick stands. */
const enum Stage {
  TopicLength,
  PacketId,
  PropertyLength,
  PropertyId,
  ByteValue,
  VarValue,
  StringLength,
  Done,
}

/** Value types of the properties a PUBLISH may carry (MQTT 5.0 3.3.2.3), by identifier. */
const PUBLISH_PROPERTY_KINDS: Record<number, 'byte' | 'u16' | 'u32' | 'var' | 'string' | 'pair'> = {
  0x01: 'byte', // payload format indicator
  0x02: 'u32', // message expiry interval
  0x03: 'string', // content type
  0x08: 'string', // response topic
  0x09: 'string', // correlation data (binary: the same 2-byte length)
  0x0b: 'var', // subscription identifier
  0x23: 'u16', // topic alias
  0x26: 'pair', // user property
};
const PAYLOAD_FORMAT = 0x01;

/** Which bytes of the current packet's body are picked out as they pass. */
const enum Pick {
  None,
  /** The first packet: protocol name length, then the protocol level. */
  Connect,
  /**
   * PUBLISH QoS > 0: topic length, then the packet id after the topic; 5.0 (any QoS): then the properties, walked to
   * their payload format indicator.
   */
  Publish,
  /** SUBSCRIBE, UNSUBSCRIBE: the packet id first. */
  PacketId,
}

/**
 * Follows the packet boundaries of the bytes a device sends, without buffering: for each packet it reads the fixed
 * header and the Remaining Length, picks out the few body bytes it checks, and skips the rest. So a connection is
 * refused as soon as a packet announces more than the limit (250 MB announced costs 5 bytes, not 250 MB), and the
 * end of the first packet (the CONNECT) is known, which the connection gate needs.
 *
 * The packet id sits at the same place in every version (5.0 puts its properties after it). Everything else about a
 * packet's form is left to the MQTT parser that reads it next.
 */
export class PacketScanner {
  /** Bytes scanned so far. */
  offset = 0;
  /** Stream offset just after the first packet, once it has been read whole. */
  firstPacketEnd: number | undefined;
  /** The protocol level of the CONNECT (3, 4 or 5), once read. */
  level: number | undefined;
  /** Packets read whole. */
  packets = 0;

  private state = State.Header;
  private type = 0;
  private qos = 0;
  private length = 0;
  private lengthBytes = 0;
  private multiplier = 1;
  /** Body bytes of the current packet read so far. */
  private pos = 0;
  private pick = Pick.None;
  /** Body offset of the next byte to pick out; -1 when none. */
  private want = -1;
  private picked: number[] = [];
  private stage = Stage.Done;
  /** Body offset just after the topic. */
  private afterTopic = 0;
  /** A variable byte integer being read: value, multiplier, bytes. */
  private acc = 0;
  private accMul = 1;
  private accBytes = 0;
  /** Body offset where the properties end. */
  private propertiesEnd = 0;
  private propertyId = 0;
  /** Length-prefixed strings left in the current property, and the first byte of a length. */
  private strings = 0;
  private lengthHigh = -1;

  constructor(private readonly maxRemainingLength = MAX_PACKET_BYTES) {}

  /** Scans the next chunk of the stream; returns the first rule it breaks (the stream must then be cut off). */
  scan(chunk: Uint8Array): Violation | undefined {
    let i = 0;
    const end = chunk.length;
    while (i < end) {
      switch (this.state) {
        case State.Header: {
          const byte = chunk[i++]!;
          this.offset++;
          this.type = byte >> 4;
          this.qos = (byte >> 1) & 3;
          if (this.packets === 0 && this.type !== CONNECT) return { kind: 'not-connect', byte };
          // MQTT-3.3.1-2: the DUP flag of a QoS 0 message is 0 (the parser reads it as a flag and goes on).
          if (this.type === PUBLISH && this.qos === 0 && byte & 0x08) {
            return { kind: 'bad-header', type: this.type, why: 'DUP set on QoS 0' };
          }
          this.state = State.Length;
          this.length = 0;
          this.lengthBytes = 0;
          this.multiplier = 1;
          break;
        }
        case State.Length: {
          const byte = chunk[i++]!;
          this.offset++;
          this.length += (byte & 0x7f) * this.multiplier;
          this.multiplier *= 128;
          this.lengthBytes++;
          if (byte & 0x80) {
            if (this.lengthBytes === 4) return { kind: 'malformed-length' };
            break;
          }
          if (this.length > this.maxRemainingLength) {
            return { kind: 'too-large', type: this.type, length: this.length };
          }
          if (this.packets > 0) {
            const why = lengthFault(this.type, this.length, this.level);
            if (why) return { kind: 'bad-header', type: this.type, why };
          }
          this.startBody();
          if (this.length === 0) {
            const v = this.endPacket();
            if (v) return v;
          }
          break;
        }
        case State.Body: {
          if (this.want >= 0 && this.pos === this.want) {
            const violation = this.onPicked(chunk[i++]!);
            this.pos++;
            this.offset++;
            if (violation) return violation;
          } else {
            const stop = this.want > this.pos ? Math.min(this.want, this.length) : this.length;
            const n = Math.min(stop - this.pos, end - i);
            i += n;
            this.pos += n;
            this.offset += n;
          }
          if (this.pos >= this.length) {
            const v = this.endPacket();
            if (v) return v;
          }
          break;
        }
      }
    }
    return undefined;
  }

  private startBody(): void {
    this.state = State.Body;
    this.pos = 0;
    this.picked.length = 0;
    if (this.packets === 0) this.pick = Pick.Connect;
    else if (this.type === PUBLISH && (this.qos > 0 || this.level === 5)) this.pick = Pick.Publish;
    else if (this.type === SUBSCRIBE || this.type === UNSUBSCRIBE) this.pick = Pick.PacketId;
    else this.pick = Pick.None;
    this.want = this.pick === Pick.None ? -1 : 0;
    this.stage = this.pick === Pick.Publish ? Stage.TopicLength : Stage.Done;
  }

  private onPicked(byte: number): Violation | undefined {
    const p = this.picked;
    p.push(byte);
    this.want = -1;
    switch (this.pick) {
      case Pick.Connect:
        // Protocol name length (2 bytes), the name, then the level.
        if (p.length === 1) this.want = 1;
        else if (p.length === 2) this.want = 2 + ((p[0]! << 8) | p[1]!);
        else this.level = byte;
        return undefined;
      case Pick.Publish:
        return this.onPublishByte(byte);
      case Pick.PacketId:
        if (p.length === 1) {
          this.want = 1;
          return undefined;
        }
        return ((p[0]! << 8) | p[1]!) === 0 ? { kind: 'zero-packet-id', type: this.type } : undefined;
      default:
        return undefined;
    }
  }

  /**
   * A PUBLISH: topic length (2 bytes), the topic, the packet id (2 bytes, QoS > 0), and in 5.0 the properties, walked
   * one by one to check the payload format indicator. The walk stops at anything it does not know: the parser refuses
   * a malformed property section itself.
   */
  private onPublishByte(byte: number): Violation | undefined {
    const p = this.picked;
    const next = this.pos + 1;
    switch (this.stage) {
      case Stage.TopicLength:
        if (p.length === 1) {
          this.want = next;
          return undefined;
        }
        this.afterTopic = 2 + ((p[0]! << 8) | p[1]!);
        if (this.qos > 0) {
          this.stage = Stage.PacketId;
          this.want = this.afterTopic;
          return undefined;
        }
        return this.startProperties(this.afterTopic);
      case Stage.PacketId:
        if (p.length === 3) {
          this.want = next;
          return undefined;
        }
        if (((p[2]! << 8) | p[3]!) === 0) return { kind: 'zero-packet-id', type: this.type };
        return this.startProperties(this.afterTopic + 2);
      case Stage.PropertyLength:
        this.acc += (byte & 0x7f) * this.accMul;
        this.accMul *= 128;
        if (byte & 0x80) {
          if (++this.accBytes < 4) this.want = next;
          return undefined;
        }
        this.propertiesEnd = next + this.acc;
        return this.nextProperty(next);
      case Stage.PropertyId: {
        const kind = PUBLISH_PROPERTY_KINDS[byte];
        this.propertyId = byte;
        if (kind === 'byte') {
          this.stage = Stage.ByteValue;
          this.want = next;
        } else if (kind === 'u16') return this.nextProperty(next + 2);
        else if (kind === 'u32') return this.nextProperty(next + 4);
        else if (kind === 'var') {
          this.stage = Stage.VarValue;
          this.accBytes = 0;
          this.want = next;
        } else if (kind === 'string' || kind === 'pair') {
          this.stage = Stage.StringLength;
          this.strings = kind === 'pair' ? 2 : 1;
          this.lengthHigh = -1;
          this.want = next;
        }
        return undefined;
      }
      case Stage.ByteValue:
        if (this.propertyId === PAYLOAD_FORMAT && byte > 1) {
          return { kind: 'bad-property', type: this.type, why: `payload format indicator ${byte}` };
        }
        return this.nextProperty(next);
      case Stage.VarValue:
        if (byte & 0x80 && ++this.accBytes < 4) {
          this.want = next;
          return undefined;
        }
        return this.nextProperty(next);
      case Stage.StringLength:
        if (this.lengthHigh < 0) {
          this.lengthHigh = byte;
          this.want = next;
          return undefined;
        }
        {
          const end = next + ((this.lengthHigh << 8) | byte);
          this.lengthHigh = -1;
          if (--this.strings > 0) {
            this.want = end;
            return undefined;
          }
          return this.nextProperty(end);
        }
      default:
        return undefined;
    }
  }

  /** 5.0: the property length starts at body offset `at`; before 5.0 the PUBLISH has been read far enough. */
  private startProperties(at: number): Violation | undefined {
    this.stage = Stage.Done;
    if (this.level !== 5) return undefined;
    this.stage = Stage.PropertyLength;
    this.acc = 0;
    this.accMul = 1;
    this.accBytes = 0;
    this.want = at;
    return undefined;
  }

  private nextProperty(at: number): Violation | undefined {
    if (at >= this.propertiesEnd) {
      this.stage = Stage.Done;
      return undefined;
    }
    this.stage = Stage.PropertyId;
    this.want = at;
    return undefined;
  }

  private endPacket(): Violation | undefined {
    // The packet ended before its packet id (the parser would hand on a PUBLISH with packet id -1).
    const short =
      (this.pick === Pick.Publish && this.qos > 0 && this.picked.length < 4) ||
      (this.pick === Pick.PacketId && this.picked.length < 2);
    this.packets++;
    if (this.packets === 1) this.firstPacketEnd = this.offset;
    this.state = State.Header;
    this.want = -1;
    return short ? { kind: 'bad-header', type: this.type, why: 'packet id missing' } : undefined;
  }
}
