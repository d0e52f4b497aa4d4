import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Aedes, Client } from 'aedes';
import { DeviceStream } from './device-stream';
import type { Violation } from './packet-scanner';
import { connectProtocolLevel } from './sniff';
import { REASON } from './translate';
import { type FrontStats, V5Connection } from './v5-connection';

/** Longest an accepted connection's held packets wait for other connections' CONNACKs (see ConnectsFirst). */
export const CONNECTS_FIRST_MAX_WAIT_MS = 5000;
/** Accepted connections whose held packets are let in per turn of the event loop (see ConnectsFirst). */
const RELEASE_PER_TURN = 8;

export interface ProtocolFrontOptions {
  /** Debug logging of protocol failures (a device's mistakes are not the server's errors). */
  debug?: (msg: string, detail: Record<string, unknown>) => void;
  /** Largest Remaining Length a device's packet may announce (default MAX_PACKET_BYTES). */
  maxRemainingLength?: number;
  /** See CONNECTS_FIRST_MAX_WAIT_MS. */
  connectsFirstMaxWaitMs?: number;
  /**
   * A connected device (its CONNECT accepted) was cut off for a packet announcing more than the size limit; the
   * device gateway counts it as a drop of the device.
   */
  onTooLarge?: (clientId: string) => void;
}

/**
 * CONNACKs before flushes. A device back from a coverage gap sends its CONNECT and its buffered messages at once,
 * and so do its neighbours. Storing those messages (parsing, validation, database writes on this event loop) takes
 * far longer than answering a CONNECT, so when the first accepted devices' messages were let in at once, the other
 * devices' CONNECTs waited behind them: CONNACKs came seconds late (bench:reconnect), devices time out and
 * reconnect, and the storm feeds itself. So:
 * - the packets a device sent before its CONNACK wait while other CONNECTs are being answered, up to `maxWaitMs`
 *   (a CONNECT that hangs, or a never-ending stream of them, cannot hold anyone's messages longer); what a device
 *   sends after it received its CONNACK is never held;
 * - they are let in a few connections per turn of the event loop, so a CONNECT arriving meanwhile is read and
 *   answered between them instead of after all of them.
 */
class ConnectsFirst {
  /** Connections whose CONNECT went to the broker and whose CONNACK has not gone out. */
  private readonly connecting = new Set<DeviceStream>();
  /** Accepted connections whose held packets wait, oldest first. */
  private readonly ready: { stream: DeviceStream; since: number }[] = [];
  private immediate: NodeJS.Immediate | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly maxWaitMs: number) {}

  connectSent(stream: DeviceStream): void {
    this.connecting.add(stream);
    stream.once('close', () => this.answered(stream, false));
  }

  /** The CONNACK went out (or the connection ended without one). */
  answered(stream: DeviceStream, accepted: boolean): void {
    if (!this.connecting.delete(stream) && !accepted) return;
    if (accepted) {
      // Nothing held (a device that waited for its CONNACK, as most do): nothing to hold back.
      if (stream.heldBytes === 0 || (this.connecting.size === 0 && this.ready.length === 0)) {
        stream.open();
        this.schedule();
        return;
      }
      this.ready.push({ stream, since: Date.now() });
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.immediate || this.ready.length === 0) return;
    const wait = this.connecting.size === 0 ? 0 : this.ready[0]!.since + this.maxWaitMs - Date.now();
    if (wait <= 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.immediate = setImmediate(() => this.release());
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.schedule();
      }, wait);
      this.timer.unref();
    }
  }

  private release(): void {
    this.immediate = undefined;
    const now = Date.now();
    for (let n = 0; n < RELEASE_PER_TURN && this.ready.length > 0; n++) {
      if (this.connecting.size > 0 && now - this.ready[0]!.since < this.maxWaitMs) break;
      this.ready.shift()!.stream.open();
    }
    this.schedule();
  }
}

/** What the front counts for tests, health and benchmarks. */
export interface ConnectionStats extends FrontStats {
  /** Connections cut off because a packet announced more than the size limit. */
  tooLarge: number;
  /** Connections closed for a QoS 1/2 PUBLISH, SUBSCRIBE or UNSUBSCRIBE with packet id 0. */
  zeroPacketId: number;
  /** Connections whose first packet was not a CONNECT, or whose Remaining Length was malformed. */
  malformed: number;
}

/**
 * What the embedded broker's listeners (TCP and the /mqtt WebSocket) hand their connections to instead of
 * `aedes.handle`. Every connection gets a {@link DeviceStream} (packet size limit from the first byte, packet ids,
 * the bytes after the CONNECT held until the CONNACK, and while other CONNECTs wait: {@link ConnectsFirst}). Its
 * CONNECT decides where it goes: MQTT 3.1 and 3.1.1
 * connections (and anything else) go to Aedes as they are; MQTT 5.0 connections get a translating `V5Connection`
 * in front of Aedes 1.2, which speaks 3.1.1 only.
 */
export class ProtocolFront {
  readonly stats: ConnectionStats = {
    v5Connections: 0,
    directConnections: 0,
    oversizeDropped: 0,
    tooLarge: 0,
    zeroPacketId: 0,
    malformed: 0,
  };
  private readonly v5 = new WeakMap<Client, V5Connection>();
  private readonly streams = new WeakMap<Client, DeviceStream>();
  private readonly connectTimeoutMs: number;
  private readonly connectsFirst: ConnectsFirst;
  private readonly debug: (msg: string, detail: Record<string, unknown>) => void;

  constructor(
    private readonly aedes: Aedes,
    private readonly options: ProtocolFrontOptions = {},
  ) {
    this.debug = options.debug ?? (() => undefined);
    this.connectsFirst = new ConnectsFirst(options.connectsFirstMaxWaitMs ?? CONNECTS_FIRST_MAX_WAIT_MS);
    // Aedes drops a connection whose CONNECT does not arrive in time; the front waits no longer for it.
    this.connectTimeoutMs = (aedes as unknown as { connectTimeout?: number }).connectTimeout ?? 30_000;
    aedes.on('keepaliveTimeout', (client) => {
      const conn = this.v5.get(client);
      if (conn) conn.closeReason = REASON.keepAliveTimeout;
    });
    // Aedes emits this once the CONNACK is written (for 5.0 devices its translation went out just before).
    aedes.on('connackSent', (packet, client) => {
      const stream = this.streams.get(client);
      if (stream) this.connectsFirst.answered(stream, packet.returnCode === 0);
    });
  }

  handle(conn: Duplex, req?: IncomingMessage): void {
    const timer = setTimeout(() => stream.destroy(), this.connectTimeoutMs);
    timer.unref();
    let client: Client | undefined;
    const stream: DeviceStream = new DeviceStream(conn, {
      maxRemainingLength: this.options.maxRemainingLength,
      onFirstPacket: (first) => {
        clearTimeout(timer);
        client = this.handOver(stream, first, req);
      },
      onViolation: (v, level) => {
        this.violation(v, level);
        // Only an accepted CONNECT names the device (client id = sn, authenticated).
        if (v.kind === 'too-large' && client?.connected && client.id) this.options.onTooLarge?.(client.id);
      },
    });
    stream.on('error', (err: Error) => this.debug('mqtt connection error', { err: err.message }));
    stream.once('close', () => clearTimeout(timer));
  }

  private handOver(stream: DeviceStream, first: Buffer, req: IncomingMessage | undefined): Client {
    let client: Client;
    if (connectProtocolLevel(first) === 5) {
      this.stats.v5Connections++;
      const v5 = new V5Connection(
        { aedes: this.aedes, stats: this.stats, debug: this.debug },
        stream,
        req,
        () => stream.bytesBeforeConnack,
      );
      client = v5.aedesClient;
      this.v5.set(client, v5);
    } else {
      this.stats.directConnections++;
      client = this.aedes.handle(stream, req);
    }
    this.streams.set(client, stream);
    this.connectsFirst.connectSent(stream);
    return client;
  }

  private violation(v: Violation, level: number | undefined): void {
    if (v.kind === 'too-large') this.stats.tooLarge++;
    else if (v.kind === 'zero-packet-id') this.stats.zeroPacketId++;
    else this.stats.malformed++;
    this.debug('mqtt connection cut off', { ...v, level });
  }
}
