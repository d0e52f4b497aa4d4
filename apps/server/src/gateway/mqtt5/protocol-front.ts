import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Aedes, Client } from 'aedes';
import { connectProtocolLevel } from './sniff';
import { REASON } from './translate';
import { type FrontStats, V5Connection } from './v5-connection';

export interface ProtocolFrontOptions {
  /** Debug logging of protocol failures (a device's mistakes are not the server's errors). */
  debug?: (msg: string, detail: Record<string, unknown>) => void;
}

/**
 * What the embedded broker's listeners (TCP and the /mqtt WebSocket) hand their connections to instead of
 * `aedes.handle`. It reads the protocol level of the first CONNECT: MQTT 3.1 and 3.1.1 connections (and anything
 * else) go to Aedes untouched, so they cost one look at their first bytes; MQTT 5.0 connections get a
 * translating `V5Connection` in front of Aedes 1.2, which speaks 3.1.1 only.
 */
export class ProtocolFront {
  readonly stats: FrontStats = { v5Connections: 0, directConnections: 0, oversizeDropped: 0 };
  private readonly v5 = new WeakMap<Client, V5Connection>();
  private readonly connectTimeoutMs: number;
  private readonly debug: (msg: string, detail: Record<string, unknown>) => void;

  constructor(
    private readonly aedes: Aedes,
    options: ProtocolFrontOptions = {},
  ) {
    this.debug = options.debug ?? (() => undefined);
    // Aedes drops a connection whose CONNECT does not arrive in time; the front waits no longer for it.
    this.connectTimeoutMs = (aedes as unknown as { connectTimeout?: number }).connectTimeout ?? 30_000;
    aedes.on('keepaliveTimeout', (client) => {
      const conn = this.v5.get(client);
      if (conn) conn.closeReason = REASON.keepAliveTimeout;
    });
  }

  handle(conn: Duplex, req?: IncomingMessage): void {
    let seen: Buffer | undefined;
    const timer = setTimeout(() => {
      done();
      conn.destroy();
    }, this.connectTimeoutMs);
    timer.unref();
    const onError = (err: Error) => this.debug('mqtt connection error before CONNECT', { err: err.message });
    const done = () => {
      clearTimeout(timer);
      conn.off('readable', onReadable);
      conn.off('error', onError);
      conn.off('close', done);
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = conn.read() as Buffer | null) !== null) {
        seen = seen ? Buffer.concat([seen, chunk]) : chunk;
        const level = connectProtocolLevel(seen);
        if (level === undefined) continue;
        done();
        conn.unshift(seen);
        if (level === 5) {
          this.stats.v5Connections++;
          const v5 = new V5Connection({ aedes: this.aedes, stats: this.stats, debug: this.debug }, conn, req);
          this.v5.set(v5.aedesClient, v5);
        } else {
          this.stats.directConnections++;
          this.aedes.handle(conn, req);
        }
        return;
      }
    };
    conn.on('readable', onReadable);
    conn.on('error', onError);
    conn.once('close', done);
  }
}
