import { Duplex } from 'node:stream';
import mqttPacket from 'mqtt-packet';
import { MAX_PACKET_BYTES, PacketScanner, type Violation } from './packet-scanner';
import { connectFault } from './connect-check';
import { connectProtocolLevel } from './sniff';

/**
 * Bytes a device may send after its CONNECT that are read and held until the CONNACK; beyond them the connection
 * is not read (TCP flow control holds the device's sender) until the CONNACK has gone out.
 */
export const HOLD_BEFORE_CONNACK_BYTES = 64 * 1024;

/** How long a refused device may keep its half of the connection open after the refusal was sent. */
const END_GRACE_MS = 2000;

/** MQTT 5.0 reason codes the stream answers a violation with. */
const REASON_PACKET_TOO_LARGE = 0x95;
const REASON_MALFORMED_PACKET = 0x81;
const REASON_PROTOCOL_ERROR = 0x82;

export interface DeviceStreamOptions {
  /** Largest Remaining Length accepted (default: MAX_PACKET_BYTES). */
  maxRemainingLength?: number;
  /** See HOLD_BEFORE_CONNACK_BYTES. */
  holdBytes?: number;
  /** The connection's first packet (its CONNECT) arrived whole: the owner hands the stream to a broker now. */
  onFirstPacket(first: Buffer): void;
  /** The device broke a rule and is being cut off (stats, debug log). */
  onViolation(violation: Violation, level: number | undefined): void;
}

type Phase = 'first' | 'held' | 'open';

/**
 * A device connection as the broker (Aedes, or the MQTT 5.0 front) sees it: the device's bytes pass through a
 * {@link PacketScanner}, and what the server writes goes straight to the device. It enforces what Aedes 1.2 does
 * not, at the level of bytes, before anything is buffered or parsed:
 *
 * - Packet size: a packet announcing more than the limit cuts the connection off when its fixed header is read,
 *   before CONNECT too (MQTT 5.0: CONNACK or DISCONNECT 0x95 Packet too large; 3.1.1 has no way to say it).
 * - The pre-CONNACK queue: a device may send its buffered messages right behind the CONNECT. Aedes parses whatever
 *   arrives before the CONNACK into a queue of 42 packets and drops the connection beyond it; here the broker gets
 *   the CONNECT alone, and the bytes after it wait (up to `holdBytes`, then in the device's TCP window) until the
 *   CONNACK has been sent. Then they flow in order, so nothing is dropped and nothing is parsed twice.
 * - Packet ids (MQTT-2.3.1-1, 5.0: MQTT-2.2.1-3): a QoS 1/2 PUBLISH, SUBSCRIBE or UNSUBSCRIBE with id 0 closes the
 *   connection instead of being acknowledged (5.0: DISCONNECT 0x82 Protocol Error).
 */
export class DeviceStream extends Duplex {
  /** Read by the gateway for the device's IP (TCP; over WebSocket the request has it). */
  readonly remoteAddress: string | undefined;
  private readonly scanner: PacketScanner;
  private readonly holdBytes: number;
  private phase: Phase = 'first';
  /** Bytes read from the device and not yet passed on. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The device's stream ended; passed on after the pending bytes. */
  private deviceEnded = false;
  /** The consumer's read buffer is full (push returned false) until it reads again. */
  private consumerFull = false;
  private devicePaused = false;
  /** The server wrote to the device: its first packet is the CONNACK, so a refusal must now be a DISCONNECT. */
  private serverSpoke = false;
  /** Cut off with a last packet: what the broker writes now is dropped, the device gets a moment to read it. */
  private refused = false;
  /** Bytes read from the device so far, the CONNECT included. */
  private bytesRead = 0;
  private earlyBytes: number | undefined;
  private readonly onData = (chunk: Buffer) => this.read_(chunk);
  private readonly onEnd = () => this.ended();
  private readonly onClose = () => this.closed_();
  private readonly onError = (err: Error) => this.destroy(err);

  constructor(
    private readonly device: Duplex,
    private readonly options: DeviceStreamOptions,
  ) {
    // A TCP read is up to 64 KB: one chunk in the buffer does not pause the socket at once.
    super({ readableHighWaterMark: 64 * 1024 });
    this.scanner = new PacketScanner(options.maxRemainingLength ?? MAX_PACKET_BYTES);
    this.holdBytes = options.holdBytes ?? HOLD_BEFORE_CONNACK_BYTES;
    this.remoteAddress = (device as { remoteAddress?: string }).remoteAddress;
    device.on('data', this.onData);
    device.on('end', this.onEnd);
    device.on('close', this.onClose);
    device.on('error', this.onError);
  }

  /** The protocol level of the CONNECT (3, 4 or 5), once its first bytes were read. */
  get level(): number | undefined {
    return this.scanner.level;
  }

  /** Bytes that arrived after the CONNECT and wait for the CONNACK (0 once they flow). */
  get heldBytes(): number {
    return this.phase === 'held' ? this.pendingBytes : 0;
  }

  /**
   * How many of the bytes this stream passes on (from its first, the CONNECT's) the device sent before the server's
   * first packet, its CONNACK, went out; undefined until then. What the device sent in those bytes it sent without
   * knowing the CONNACK's limits (MQTT 5.0 3.1.2.11.3: a client assumes a Receive Maximum of 65,535 until then).
   */
  get bytesBeforeConnack(): number | undefined {
    return this.earlyBytes;
  }

  /** The broker sent a CONNACK accepting the connection: the bytes held since the CONNECT flow on. */
  open(): void {
    if (this.phase !== 'held' || this.destroyed) return;
    this.phase = 'open';
    this.flush();
    this.updateFlow();
  }

  // --- device -> broker ---------------------------------------------------------------------------------

  private read_(chunk: Buffer): void {
    if (this.refused || this.destroyed) return;
    const violation = this.scanner.scan(chunk);
    if (violation) {
      this.violation(violation, chunk);
      return;
    }
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    this.bytesRead += chunk.length;
    if (this.phase === 'first' && this.scanner.firstPacketEnd !== undefined) this.firstPacket();
    else if (this.phase === 'open') this.flush();
    this.updateFlow();
  }

  private firstPacket(): void {
    const all = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    const end = this.scanner.firstPacketEnd!;
    const first = all.subarray(0, end);
    // A CONNECT the broker's parser would take although the standard says close (connect-check.ts).
    const fault = connectFault(first);
    if (fault) {
      this.violation({ kind: 'bad-connect', ...fault }, Buffer.alloc(0));
      return;
    }
    this.pending = end < all.length ? [all.subarray(end)] : [];
    this.pendingBytes = all.length - end;
    this.phase = 'held';
    this.push(first);
    this.options.onFirstPacket(first);
  }

  /** Passes the pending bytes on while the consumer takes them; then the end of stream, if it came. */
  private flush(): void {
    while (this.pending.length > 0 && !this.consumerFull) {
      const chunk = this.pending.shift()!;
      this.pendingBytes -= chunk.length;
      if (!this.push(chunk)) this.consumerFull = true;
    }
    if (this.pending.length === 0 && this.deviceEnded) this.push(null);
  }

  /** Reads from the device only while there is room: the first packet, the hold before CONNACK, the consumer. */
  private updateFlow(): void {
    if (this.destroyed || this.refused) return;
    const read =
      this.phase === 'first' ||
      (this.phase === 'held' && this.pendingBytes < this.holdBytes) ||
      (this.phase === 'open' && !this.consumerFull);
    if (read && this.devicePaused) {
      this.devicePaused = false;
      this.device.resume();
    } else if (!read && !this.devicePaused) {
      this.devicePaused = true;
      this.device.pause();
    }
  }

  override _read(): void {
    this.consumerFull = false;
    if (this.phase === 'open') this.flush();
    this.updateFlow();
  }

  private ended(): void {
    // Before its CONNECT arrived whole, a device that stops sending has nothing for a broker.
    if (this.phase === 'first') {
      this.destroy();
      return;
    }
    this.deviceEnded = true;
    if (this.phase === 'open') this.flush();
  }

  /**
   * The device's connection closed. Bytes it sent before are still passed on (a last PUBLISH, a DISCONNECT that
   * discards the will); the stream closes once the consumer read them.
   */
  private closed_(): void {
    if (this.phase !== 'open') {
      this.destroy();
      return;
    }
    this.deviceEnded = true;
    this.flush();
    if (this.readableEnded) this.destroy();
    else this.once('end', () => this.destroy());
  }

  private violation(violation: Violation, chunk: Buffer): void {
    let level = this.scanner.level;
    if (level === undefined && this.phase === 'first') {
      // A CONNECT too large to take: its level is in its first bytes, which have arrived.
      const head = Buffer.concat([...this.pending, chunk.subarray(0, 16)]).subarray(0, 16);
      level = connectProtocolLevel(head) ?? undefined;
    }
    this.options.onViolation(violation, level);
    this.pending = [];
    this.pendingBytes = 0;
    if (level !== 5) {
      // MQTT 3.1.1 cannot say why (its CONNACK return codes do not cover it): close the network connection.
      this.destroy();
      return;
    }
    const reasonCode =
      violation.kind === 'too-large'
        ? REASON_PACKET_TOO_LARGE
        : violation.kind === 'zero-packet-id' || violation.kind === 'bad-property'
          ? REASON_PROTOCOL_ERROR
          : violation.kind === 'bad-connect'
            ? violation.reasonCode
            : REASON_MALFORMED_PACKET;
    // MQTT 5.0 4.13: a CONNACK with the reason code while the CONNECT is unanswered, a DISCONNECT after it.
    this.refuseWith(
      mqttPacket.generate(
        this.serverSpoke
          ? { cmd: 'disconnect', reasonCode }
          : { cmd: 'connack', sessionPresent: false, reasonCode },
        { protocolVersion: 5 },
      ),
    );
  }

  /** Sends the device one last packet and ends the connection; the broker sees it closed (a lost connection). */
  private refuseWith(last: Buffer): void {
    this.refused = true;
    this.device.off('data', this.onData);
    this.device.pause();
    this.device.end(last);
    const timer = setTimeout(() => this.device.destroy(), END_GRACE_MS);
    timer.unref();
    this.device.once('close', () => clearTimeout(timer));
    this.destroy();
  }

  // --- broker -> device ---------------------------------------------------------------------------------

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    if (this.refused || this.device.destroyed || this.device.writableEnded) return callback();
    this.spoke();
    if (this.device.write(chunk)) callback();
    else this.afterDrain(callback);
  }

  override _writev(
    chunks: { chunk: Buffer; encoding: BufferEncoding }[],
    callback: (err?: Error | null) => void,
  ): void {
    if (this.refused || this.device.destroyed || this.device.writableEnded) return callback();
    this.spoke();
    let ok = true;
    this.device.cork();
    for (const { chunk } of chunks) ok = this.device.write(chunk);
    this.device.uncork();
    if (ok) callback();
    else this.afterDrain(callback);
  }

  private spoke(): void {
    if (this.serverSpoke) return;
    this.serverSpoke = true;
    this.earlyBytes = this.bytesRead;
  }

  private afterDrain(callback: () => void): void {
    const done = () => {
      this.device.off('drain', done);
      this.device.off('close', done);
      callback();
    };
    this.device.once('drain', done);
    this.device.once('close', done);
  }

  override _final(callback: (err?: Error | null) => void): void {
    if (!this.refused) this.device.end();
    callback();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.device.off('data', this.onData);
    this.device.off('end', this.onEnd);
    this.device.off('close', this.onClose);
    this.device.off('error', this.onError);
    // Errors after the end are the device's to have: the stream no longer reports them.
    this.device.on('error', () => undefined);
    this.pending = [];
    if (!this.refused) this.device.destroy();
    callback(err);
  }
}
