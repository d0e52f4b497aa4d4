import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Aedes, Client } from 'aedes';
import { DeviceStream } from './device-stream';
import type { Violation } from './packet-scanner';
import { connectProtocolLevel } from './sniff';
import { REASON } from './translate';
import { type FrontStats, V5Connection } from './v5-connection';

export interface ProtocolFrontOptions {
  /** Debug logging of protocol failures (a device's mistakes are not the server's errors). */
  debug?: (msg: string, detail: Record<string, unknown>) => void;
  /** Largest Remaining Length a device's packet may announce (default MAX_PACKET_BYTES). */
  maxRemainingLength?: number;
}

/** What the front counts for tests, health and benchmarks. */
export interface ConnectionStats extends FrontStats {
  /** Connections cut off because a packet announced more than the size limit. */
  tooLarge: number;
  /** MQTT 3.1.1 connections closed for a QoS 1/2 PUBLISH, SUBSCRIBE or UNSUBSCRIBE with packet id 0. */
  zeroPacketId: number;
  /** Connections whose first packet was not a CONNECT, or whose Remaining Length was malformed. */
  malformed: number;
}

/**
 * What the embedded broker's listeners (TCP and the /mqtt WebSocket) hand their connections to instead of
 * `aedes.handle`. Every connection gets a {@link DeviceStream} (packet size limit from the first byte, packet ids,
 * the bytes after the CONNECT held until the CONNACK). Its CONNECT decides where it goes: MQTT 3.1 and 3.1.1
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
  private readonly debug: (msg: string, detail: Record<string, unknown>) => void;

  constructor(
    private readonly aedes: Aedes,
    private readonly options: ProtocolFrontOptions = {},
  ) {
    this.debug = options.debug ?? (() => undefined);
    // Aedes drops a connection whose CONNECT does not arrive in time; the front waits no longer for it.
    this.connectTimeoutMs = (aedes as unknown as { connectTimeout?: number }).connectTimeout ?? 30_000;
    aedes.on('keepaliveTimeout', (client) => {
      const conn = this.v5.get(client);
      if (conn) conn.closeReason = REASON.keepAliveTimeout;
    });
    // Aedes emits this once the CONNACK is written (for 5.0 devices its translation went out just before).
    aedes.on('connackSent', (packet, client) => {
      if (packet.returnCode === 0) this.streams.get(client)?.open();
    });
  }

  handle(conn: Duplex, req?: IncomingMessage): void {
    const timer = setTimeout(() => stream.destroy(), this.connectTimeoutMs);
    timer.unref();
    const stream: DeviceStream = new DeviceStream(conn, {
      maxRemainingLength: this.options.maxRemainingLength,
      onFirstPacket: (first) => {
        clearTimeout(timer);
        this.handOver(stream, first, req);
      },
      onViolation: (v, level) => this.violation(v, level),
    });
    stream.on('error', (err: Error) => this.debug('mqtt connection error', { err: err.message }));
    stream.once('close', () => clearTimeout(timer));
  }

  private handOver(stream: DeviceStream, first: Buffer, req: IncomingMessage | undefined): void {
    let client: Client;
    if (connectProtocolLevel(first) === 5) {
      this.stats.v5Connections++;
      const v5 = new V5Connection({ aedes: this.aedes, stats: this.stats, debug: this.debug }, stream, req);
      client = v5.aedesClient;
      this.v5.set(client, v5);
    } else {
      this.stats.directConnections++;
      client = this.aedes.handle(stream, req);
    }
    this.streams.set(client, stream);
  }

  private violation(v: Violation, level: number | undefined): void {
    if (v.kind === 'too-large') this.stats.tooLarge++;
    else if (v.kind === 'zero-packet-id') this.stats.zeroPacketId++;
    else this.stats.malformed++;
    this.debug('mqtt connection cut off', { ...v, level });
  }
}
