// Socket mode (docs/device-hosts.md): a DTU that talks to a Cellhub device host over plain TCP or UDP instead of
// MQTT. It sends its registration packet first, then heartbeats and its serial port's bytes (raw frames of its
// readings, or the answers of a Modbus slave behind it to the platform's requests).
import dgram from 'node:dgram';
import net from 'node:net';
import type { DeviceIdentity } from './device';
import type { ModbusBus } from './modbus';
import { encodeRawFrame } from './raw-frame';
import { hashSeed, Telemetry } from './telemetry';

export interface SocketOptions {
  protocol: 'tcp' | 'udp';
  host: string;
  port: number;
  /** The registration packet; `{sn}` is replaced by the device's sn (default `{sn}`). */
  register: string;
  /** Heartbeat content ('' for none) and its interval in seconds. */
  heartbeat: string;
  heartbeatEvery: number;
  /** Raw frames (devsim --raw-frames format) per second; 0 for none. */
  rate: number;
  /** Bytes each frame is padded to (0: the 5-byte frame as it is). */
  frameBytes: number;
  /** A Modbus slave behind the serial port answers what arrives. */
  modbus?: () => ModbusBus;
  /** Reconnect after this many ms when the host closes the connection (0: never). */
  reconnectMs: number;
  /** New connections per second across the fleet (0: no limit). */
  connectRate: number;
}

export const DEFAULT_SOCKET_OPTIONS: Omit<SocketOptions, 'protocol' | 'host' | 'port'> = {
  register: '{sn}',
  heartbeat: 'PING',
  heartbeatEvery: 30,
  rate: 1,
  frameBytes: 0,
  reconnectMs: 1000,
  connectRate: 200,
};

export interface SocketStats {
  connected: number;
  connects: number;
  closed: number;
  framesSent: number;
  heartbeats: number;
  bytesReceived: number;
  modbusAnswers: number;
}

/** One DTU in socket mode. */
export class SocketDtu {
  private tcp?: net.Socket;
  private udp?: dgram.Socket;
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;
  private up = false;
  private readonly telemetry: Telemetry;
  private readonly bus?: ModbusBus;
  /** Every received packet, for tests. */
  readonly received: Buffer[] = [];
  /** Called with every frame sent (for benchmarks: the frame's bytes and when it went). */
  onFrame?: (frame: Buffer) => void;

  constructor(
    readonly identity: DeviceIdentity,
    private readonly options: SocketOptions,
    private readonly stats: SocketStats,
  ) {
    this.telemetry = new Telemetry(hashSeed(identity.sn));
    this.bus = options.modbus?.();
  }

  get connected(): boolean {
    return this.up;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.open();
  }

  private async open(): Promise<void> {
    const o = this.options;
    if (o.protocol === 'tcp') {
      const s = net.connect({ host: o.host, port: o.port, noDelay: true });
      this.tcp = s;
      s.on('data', (b: Buffer) => this.receive(b));
      s.on('error', () => undefined);
      s.on('close', () => this.closed());
      await new Promise<void>((resolve) => {
        s.once('connect', () => resolve());
        s.once('close', () => resolve());
      });
      if (s.destroyed) return;
    } else {
      const s = dgram.createSocket('udp4');
      this.udp = s;
      s.on('message', (b) => this.receive(b));
      s.on('error', () => undefined);
      await new Promise<void>((resolve) => s.bind(0, () => resolve()));
    }
    this.up = true;
    this.stats.connected++;
    this.stats.connects++;
    await this.send(Buffer.from(o.register.replaceAll('{sn}', this.identity.sn)));
    if (o.heartbeat && o.heartbeatEvery > 0) {
      this.timers.push(
        setInterval(() => {
          this.stats.heartbeats++;
          void this.send(Buffer.from(o.heartbeat));
        }, o.heartbeatEvery * 1000),
      );
    }
    if (o.rate > 0) {
      const every = 1000 / o.rate;
      // Spread the fleet's frames over the interval instead of sending them all at once.
      const first = setTimeout(() => {
        this.frame();
        this.timers.push(setInterval(() => this.frame(), every));
      }, Math.random() * every);
      this.timers.push(first);
    }
  }

  private frame(): void {
    const reading = this.telemetry.sample(['temperature', 'humidity', 'rssi']);
    let frame = Buffer.from(encodeRawFrame(reading));
    if (this.options.frameBytes > frame.length) {
      frame = Buffer.concat([frame, Buffer.alloc(this.options.frameBytes - frame.length)]);
    }
    this.stats.framesSent++;
    this.onFrame?.(frame);
    void this.send(frame);
  }

  send(bytes: Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.tcp && !this.tcp.destroyed) this.tcp.write(bytes, () => resolve());
      else if (this.udp) this.udp.send(bytes, this.options.port, this.options.host, () => resolve());
      else resolve();
    });
  }

  private receive(bytes: Buffer): void {
    this.received.push(bytes);
    this.stats.bytesReceived += bytes.length;
    if (this.bus) {
      void this.bus.receive(bytes, async (answer) => {
        this.stats.modbusAnswers++;
        await this.send(Buffer.from(answer));
      });
    }
  }

  private closed(): void {
    this.clearTimers();
    if (this.up) {
      this.up = false;
      this.stats.connected--;
      this.stats.closed++;
    }
    this.tcp = undefined;
    if (!this.stopped && this.options.reconnectMs > 0) {
      const t = setTimeout(() => void this.open(), this.options.reconnectMs);
      this.timers.push(t);
    }
  }

  private clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimers();
    if (this.tcp) {
      const s = this.tcp;
      await new Promise<void>((resolve) => {
        if (s.destroyed) return resolve();
        s.once('close', () => resolve());
        s.destroy();
      });
    }
    if (this.udp) {
      this.udp.close();
      this.udp = undefined;
      if (this.up) {
        this.up = false;
        this.stats.connected--;
      }
    }
  }
}

/** A fleet of socket-mode DTUs connecting at a limited rate. */
export class SocketFleet {
  readonly stats: SocketStats = {
    connected: 0,
    connects: 0,
    closed: 0,
    framesSent: 0,
    heartbeats: 0,
    bytesReceived: 0,
    modbusAnswers: 0,
  };
  readonly devices: SocketDtu[];

  constructor(
    identities: DeviceIdentity[],
    readonly options: SocketOptions,
  ) {
    this.devices = identities.map((id) => new SocketDtu(id, options, this.stats));
  }

  async start(): Promise<void> {
    const rate = this.options.connectRate;
    const batch = rate > 0 ? Math.max(1, Math.round(rate / 10)) : this.devices.length;
    for (let i = 0; i < this.devices.length; i += batch) {
      await Promise.all(this.devices.slice(i, i + batch).map((d) => d.start()));
      if (rate > 0 && i + batch < this.devices.length) await new Promise((r) => setTimeout(r, 100));
    }
  }

  statusLine(previous?: { sent: number; at: number }): string {
    const s = this.stats;
    const rate = previous
      ? ` (${((s.framesSent - previous.sent) / Math.max(0.001, (Date.now() - previous.at) / 1000)).toFixed(0)}/s)`
      : '';
    return (
      `socket ${this.options.protocol} ${this.options.host}:${this.options.port}: connected ${s.connected}/` +
      `${this.devices.length} frames ${s.framesSent}${rate} heartbeats ${s.heartbeats} received ${s.bytesReceived} B` +
      (this.options.modbus ? ` modbus answers ${s.modbusAnswers}` : '') +
      ` reconnects ${Math.max(0, s.connects - this.devices.length)}`
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.devices.map((d) => d.stop()));
  }
}

/** The CLI's socket mode: runs the fleet, prints a status line every `statusEvery` s, stops after `duration` s. */
export async function runSocketFleet(
  identities: DeviceIdentity[],
  options: SocketOptions,
  run: { statusEvery: number; duration?: number },
): Promise<never> {
  const fleet = new SocketFleet(identities, options);
  console.log(
    `devsim: ${identities.length} socket-mode DTUs -> ${options.protocol}://${options.host}:${options.port}` +
      ` (frame every ${options.rate ? (1 / options.rate).toFixed(1) : '-'} s, heartbeat "${options.heartbeat}"` +
      ` every ${options.heartbeatEvery} s)`,
  );
  let previous = { sent: 0, at: Date.now() };
  const timer = setInterval(() => {
    console.log(fleet.statusLine(previous));
    previous = { sent: fleet.stats.framesSent, at: Date.now() };
  }, run.statusEvery * 1000);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(timer);
    await fleet.stop();
    console.log(fleet.statusLine());
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  if (run.duration !== undefined) setTimeout(() => void stop(), run.duration * 1000);
  await fleet.start();
  console.log(`devsim: every DTU tried once; ${fleet.stats.connected}/${identities.length} connected`);
  return new Promise<never>(() => undefined);
}
