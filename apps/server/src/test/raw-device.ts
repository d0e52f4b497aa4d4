// Test support (not shipped): a device speaking MQTT packets as written (raw-mqtt.ts), for what a client library
// would not send (a PUBLISH resent with the same packet id, a PUBREL held back) or hides (Session Present, the
// reason code of a DISCONNECT).
import type { IConnectPacket, Packet } from 'mqtt-packet';
import type { TestDevice } from './gateway-test-kit';
import { RawMqtt, type RawTarget } from './raw-mqtt';

export type Transport = 'tcp' | 'ws';
export type Version = 4 | 5;

/** Where the embedded broker listens: its MQTT port, and the HTTP port of the /mqtt WebSocket. */
export interface BrokerAddress {
  mqttPort: number;
  httpPort?: number;
}

type Of<C extends Packet['cmd']> = Extract<Packet, { cmd: C }>;

/** A device connection whose `next` takes each received packet once, in the order they arrived. */
export class RawDevice {
  private readonly taken = new Set<Packet>();

  private constructor(readonly conn: RawMqtt) {}

  /** Opens a connection and sends the device's CONNECT (clean session / Clean Start unless `over` says not). */
  static async connect(
    at: BrokerAddress,
    transport: Transport,
    version: Version,
    d: TestDevice,
    over: Partial<IConnectPacket> = {},
  ): Promise<RawDevice> {
    if (transport === 'ws' && at.httpPort === undefined) throw new Error('the app does not listen on HTTP');
    const target: RawTarget =
      transport === 'tcp' ? { tcp: at.mqttPort } : { ws: `ws://127.0.0.1:${at.httpPort}/mqtt` };
    const conn = await RawMqtt.open(target, version);
    conn.send(conn.connectPacket(d, over));
    return new RawDevice(conn);
  }

  get version(): Version {
    return this.conn.version === 5 ? 5 : 4;
  }

  /** Resolves when the connection closed. */
  get closed(): Promise<void> {
    return this.conn.closed;
  }

  /** Packets received and not yet taken by `next`. */
  get packets(): Packet[] {
    return this.conn.packets.filter((p) => !this.taken.has(p));
  }

  /** One write: the packets arrive together, as a device flushing its buffer sends them. */
  send(...packets: Packet[]): void {
    this.conn.send(Buffer.concat(packets.map((p) => this.conn.encode(p))));
  }

  /** The next packet of a kind not yet taken; fails when the connection closes first or nothing comes in time. */
  async next<C extends Packet['cmd']>(cmd: C, ms = 10_000): Promise<Of<C>> {
    const fresh = (p: Packet) => p.cmd === cmd && !this.taken.has(p);
    await this.conn.until((ps) => ps.some(fresh), cmd, ms);
    const p = this.conn.packets.find(fresh)!;
    this.taken.add(p);
    return p as Of<C>;
  }

  /** The CONNACK, which must accept the connection. */
  async connack(): Promise<Of<'connack'>> {
    const c = await this.next('connack');
    const code = this.version === 5 ? c.reasonCode : c.returnCode;
    if (code !== 0) throw new Error(`CONNACK refused the connection with ${code}`);
    return c;
  }

  /** A normal DISCONNECT, then waits for the server to close the connection. */
  async disconnect(): Promise<void> {
    this.send(this.version === 5 ? { cmd: 'disconnect', reasonCode: 0 } : { cmd: 'disconnect' });
    await this.closed;
  }

  destroy(): void {
    this.conn.destroy();
  }
}

/** The name this kit's class had at first (presence-rebuild.test.ts imports it so); new code uses RawDevice. */
export { RawDevice as RawMqtt };
