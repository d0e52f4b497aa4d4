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
  | { kind: 'zero-packet-id'; type: number };

const CONNECT = 1;
const PUBLISH = 3;
const SUBSCRIBE = 8;
const UNSUBSCRIBE = 10;

const enum State {
  Header,
  Length,
  Body,
}

/** Which bytes of the current packet's body are picked out as they pass. */
const enum Pick {
  None,
  /** The first packet: protocol name length, then the protocol level. */
  Connect,
  /** PUBLISH QoS > 0: topic length, then the packet id after the topic. */
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
          this.startBody();
          if (this.length === 0) this.endPacket();
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
          if (this.pos >= this.length) this.endPacket();
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
    else if (this.type === PUBLISH && this.qos > 0) this.pick = Pick.Publish;
    else if (this.type === SUBSCRIBE || this.type === UNSUBSCRIBE) this.pick = Pick.PacketId;
    else this.pick = Pick.None;
    this.want = this.pick === Pick.None ? -1 : 0;
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
      case Pick.Publish: {
        // Topic length (2 bytes), the topic, then the packet id (2 bytes).
        if (p.length < 4) {
          this.want = p.length === 1 ? 1 : 2 + ((p[0]! << 8) | p[1]!) + (p.length - 2);
          return undefined;
        }
        return ((p[2]! << 8) | p[3]!) === 0 ? { kind: 'zero-packet-id', type: this.type } : undefined;
      }
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

  private endPacket(): void {
    this.packets++;
    if (this.packets === 1) this.firstPacketEnd = this.offset;
    this.state = State.Header;
    this.want = -1;
  }
}
