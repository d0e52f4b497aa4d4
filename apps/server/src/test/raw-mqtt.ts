// Test support (not shipped): a connection that writes MQTT bytes as given, for the connection layer's tests
// (packets before the CONNACK, packet id 0, headers announcing 250 MB, MQTT 3.1), against any broker address.
// raw-device.ts is the device-level kit for the app's broker.
import net from 'node:net';
import type { Duplex } from 'node:stream';
import mqttPacket, { type IConnectPacket, type Packet } from 'mqtt-packet';
import WebSocket, { createWebSocketStream } from 'ws';
import type { FastifyInstance } from 'fastify';
import type { TestDevice } from './gateway-test-kit';

/** Where a raw connection goes: a TCP port, or a WebSocket URL (the /mqtt route). */
export type RawTarget = { tcp: number } | { ws: string };

/** A fixed header announcing `length` bytes of body (which the caller may or may not send). */
export function fixedHeader(byte0: number, length: number): Buffer {
  const out = [byte0];
  do {
    let digit = length % 128;
    length = Math.floor(length / 128);
    if (length > 0) digit |= 0x80;
    out.push(digit);
  } while (length > 0);
  return Buffer.from(out);
}

/** Everything the server sends is parsed and kept in order; waits fail when the connection closes first. */
export class RawMqtt {
  readonly packets: Packet[] = [];
  readonly closed: Promise<void>;
  private waiters: (() => void)[] = [];

  private constructor(
    readonly stream: Duplex,
    readonly version: 3 | 4 | 5,
  ) {
    const parser = mqttPacket.parser({ protocolVersion: version === 5 ? 5 : 4 });
    parser.on('packet', (p: Packet) => {
      this.packets.push(p);
      this.wake();
    });
    stream.on('data', (b: Buffer) => parser.parse(b));
    stream.on('error', () => undefined);
    // The server ended the connection (a WebSocket stream only ends, it does not close by itself).
    stream.on('end', () => stream.destroy());
    this.closed = new Promise((resolve) =>
      stream.once('close', () => {
        resolve();
        this.wake();
      }),
    );
  }

  get isClosed(): boolean {
    return this.stream.destroyed;
  }

  static async open(target: RawTarget, version: 3 | 4 | 5): Promise<RawMqtt> {
    if ('tcp' in target) {
      const socket = net.connect(target.tcp, '127.0.0.1');
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('error', reject);
      });
      return new RawMqtt(socket, version);
    }
    const ws = new WebSocket(target.ws, 'mqtt');
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new RawMqtt(createWebSocketStream(ws), version);
  }

  /** The CONNECT of a device (clientId = username = sn) in this connection's version. */
  connectPacket(d: TestDevice, over: Partial<IConnectPacket> = {}): Buffer {
    return this.encode({
      cmd: 'connect',
      protocolId: this.version === 3 ? 'MQIsdp' : 'MQTT',
      protocolVersion: this.version,
      clean: true,
      keepalive: 60,
      clientId: d.sn,
      username: d.sn,
      password: Buffer.from(d.secret),
      ...over,
    });
  }

  encode(p: Packet): Buffer {
    return mqttPacket.generate(p, { protocolVersion: this.version === 5 ? 5 : 4 });
  }

  publishPacket(topic: string, payload: string | Buffer, messageId: number, qos: 1 | 2 = 1): Buffer {
    return this.encode({
      cmd: 'publish',
      topic,
      payload: Buffer.isBuffer(payload) ? payload : Buffer.from(payload),
      qos,
      messageId,
      dup: false,
      retain: false,
    });
  }

  /** Writes a packet, or bytes as they are. */
  send(p: Packet | Buffer): boolean {
    return this.stream.write(Buffer.isBuffer(p) ? p : this.encode(p));
  }

  /** Waits until `check` holds for the packets received so far. */
  async until(check: (packets: Packet[]) => boolean, what: string, ms = 10_000): Promise<void> {
    const end = Date.now() + ms;
    while (!check(this.packets)) {
      if (this.isClosed) throw new Error(`connection closed while waiting for ${what}`);
      const left = end - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The first packet of a kind (received already or still to come). */
  async next<C extends Packet['cmd']>(cmd: C, ms = 10_000): Promise<Extract<Packet, { cmd: C }>> {
    await this.until((ps) => ps.some((p) => p.cmd === cmd), cmd, ms);
    return this.packets.find((p) => p.cmd === cmd) as Extract<Packet, { cmd: C }>;
  }

  count(cmd: Packet['cmd']): number {
    return this.packets.filter((p) => p.cmd === cmd).length;
  }

  destroy(): void {
    this.stream.destroy();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** Starts `app` listening on 127.0.0.1 (a free port) and returns where raw devices reach its broker: TCP and /mqtt. */
export async function listenForRawDevices(app: FastifyInstance): Promise<{
  tcp: RawTarget;
  ws: RawTarget;
}> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const httpPort = typeof address === 'object' && address ? address.port : 0;
  return { tcp: { tcp: app.broker.port! }, ws: { ws: `ws://127.0.0.1:${httpPort}/mqtt` } };
}
