import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { HEX_RULE, parseTopic, topicPrefix, type UpKind, upTopic } from '@cellhub/contract/protocol';
import type { ModbusBus } from './modbus';
import { hmacPassword } from './protocol';

export interface DeviceIdentity {
  sn: string;
  product_key: string;
  secret: string;
}

/** Counters a fleet shares between its devices; printed on the status line. */
export interface DeviceStats {
  connects: number;
  disconnects: number;
  /** Uplinks handed to the client (properties, info, status, replies). */
  sent: number;
  /** Uplinks the broker acknowledged (PUBACK). */
  acked: number;
  /** Failed connects, failed or timed-out publishes. */
  errors: number;
  commands: number;
  configs: number;
  /** Deliberately broken messages sent (`--bad-ratio`). */
  bad: number;
}

export const newStats = (): DeviceStats => ({
  connects: 0,
  disconnects: 0,
  sent: 0,
  acked: 0,
  errors: 0,
  commands: 0,
  configs: 0,
  bad: 0,
});

export type PropertyParams = Record<string, number | string | boolean>;

/**
 * Handles one downlink kind (`P/down/<kind>`). The extension point for what the simulator does not do yet:
 * issue 5 plugs its OTA behaviour in as the `ota` handler without touching this class.
 */
export type DownlinkHandler = (device: VirtualDevice, body: Record<string, unknown>) => void | Promise<void>;

export type BadKind = 'json' | 'schema' | 'topic';

export interface DeviceOptions {
  /** mqtt://host:port or ws://host:port/mqtt */
  url: string;
  /** Sign in with the HMAC password instead of the plain secret. */
  hmac?: boolean;
  /** Seconds; the platform marks the device offline after 1.5 x this without traffic. */
  keepalive?: number;
  /** 4 = MQTT 3.1.1 (default), 5 = MQTT 5. */
  protocolVersion?: 4 | 5;
  /** Values the device reports on `P/up/property`; called on every report. */
  properties?: () => PropertyParams;
  /** `P/up/info` body, sent after every connect. */
  info?: Record<string, string | number> | (() => Record<string, string | number>);
  /** Ask for the expected configuration after connecting (`P/up/config_get`). Default true. */
  configGet?: boolean;
  /** Keep readings taken while offline and send them as one batch with device timestamps after reconnecting. */
  bufferOffline?: number;
  /** Delay before answering a command, in ms (a serial round trip on a real DTU). */
  commandDelayMs?: number;
  /** A publish not acknowledged within this many ms counts as an error. Default 30 s. */
  publishTimeoutMs?: number;
  stats?: DeviceStats;
  /** Extra downlink kinds, or replacements for the built-in `cmd` and `config` behaviour. */
  handlers?: Partial<Record<string, DownlinkHandler>>;
  /**
   * Modbus RTU slaves on the DTU's serial port (transparent mode): frames arriving on `P/down/raw` go to the
   * bus and the slaves' answers leave on `P/up/raw` (see ./modbus.ts).
   */
  modbus?: ModbusBus;
  /** Called when the connection closes; `planned` is false when the device did not ask for it. */
  onClose?: (device: VirtualDevice, planned: boolean) => void;
}

/**
 * One virtual DTU: connects with clientId = username = sn, announces itself online (with the will set to
 * offline), reports its info, asks for its configuration, answers commands and applies configuration as
 * PROTOCOL.md says. Reconnecting is the caller's choice (the fleet paces it with `--connect-rate`).
 */
export class VirtualDevice {
  private client?: MqttClient;
  private seq = 0;
  private planned = false;
  private readonly buffered: { ts: number; params: PropertyParams }[] = [];
  readonly stats: DeviceStats;
  config: { version: number; config: Record<string, unknown> } = { version: 0, config: {} };
  readonly commands: { id: string; type: string; data: string }[] = [];
  /** The firmware it runs after an upgrade; wins over `fw_version` of the `info` option. */
  fwVersion: string | undefined;

  constructor(
    readonly identity: DeviceIdentity,
    private readonly opts: DeviceOptions,
  ) {
    this.stats = opts.stats ?? newStats();
  }

  get prefix() {
    return topicPrefix(this.identity.product_key, this.identity.sn);
  }

  get connected(): boolean {
    return this.client?.connected ?? false;
  }

  /** Connects and runs the start-up sequence of PROTOCOL.md: subscribe, status, info, buffered data, config_get. */
  async connect(): Promise<void> {
    if (this.client) throw new Error(`${this.identity.sn} is already connected`);
    const { sn, secret } = this.identity;
    const options: IClientOptions = {
      clientId: sn,
      username: sn,
      // A fresh HMAC timestamp per connect: the server accepts it for 15 minutes only.
      password: this.opts.hmac ? hmacPassword(sn, secret) : secret,
      keepalive: this.opts.keepalive ?? 60,
      protocolVersion: this.opts.protocolVersion ?? 4,
      reconnectPeriod: 0,
      connectTimeout: 30_000,
      will: {
        topic: upTopic(this.identity.product_key, this.identity.sn, 'status'),
        payload: Buffer.from('{"online":0}'),
        qos: 1,
        retain: false,
      },
    };
    const client = mqtt.connect(this.opts.url, options);
    this.client = client;
    this.planned = false;
    try {
      await new Promise<void>((resolve, reject) => {
        const fail = (err: Error) => {
          client.removeListener('connect', ok);
          reject(err);
        };
        const ok = () => {
          client.removeListener('error', fail);
          client.removeListener('close', closed);
          resolve();
        };
        const closed = () => fail(new Error(`connection of ${sn} closed`));
        client.once('connect', ok);
        client.once('error', fail);
        client.once('close', closed);
      });
    } catch (err) {
      this.client = undefined;
      client.end(true);
      this.stats.errors++;
      throw err;
    }
    this.stats.connects++;
    client.on('error', () => undefined); // errors end in 'close', which is what the caller acts on
    client.on('message', (topic, payload) => this.onMessage(topic, payload));
    client.once('close', () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.stats.disconnects++;
      client.end(true);
      this.opts.onClose?.(this, this.planned);
    });
    await client.subscribeAsync(`${this.prefix}/down/#`, { qos: 1 });
    await this.publish('status', { online: 1 });
    const info = typeof this.opts.info === 'function' ? this.opts.info() : this.opts.info;
    if (info) await this.publish('info', this.fwVersion ? { ...info, fw_version: this.fwVersion } : info);
    if (this.buffered.length > 0) {
      const items = this.buffered.splice(0);
      await this.publish('property', { id: `m${++this.seq}`, items });
    }
    if (this.opts.configGet !== false) await this.publish('config_get', {});
  }

  /** Publishes a JSON body on `P/up/<kind>` with QoS 1 and waits for the PUBACK. */
  async publish(kind: UpKind, body: unknown): Promise<void> {
    await this.publishRaw(
      upTopic(this.identity.product_key, this.identity.sn, kind),
      JSON.stringify(body),
      1,
    );
  }

  private async publishRaw(topic: string, payload: string | Buffer, qos: 0 | 1): Promise<void> {
    const client = this.client;
    if (!client) throw new Error(`${this.identity.sn} is not connected`);
    this.stats.sent++;
    const timeoutMs = this.opts.publishTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.publishAsync(topic, payload, { qos }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no PUBACK within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      this.stats.acked++;
    } catch (err) {
      this.stats.errors++;
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Publishes bytes as they are (`P/up/raw` in transparent mode) with QoS 1. */
  async publishBytes(kind: UpKind, bytes: Uint8Array): Promise<void> {
    await this.publishRaw(upTopic(this.identity.product_key, this.identity.sn, kind), Buffer.from(bytes), 1);
  }

  /** One telemetry report; while offline (with `bufferOffline`) the reading is kept for the next connect. */
  async report(params: PropertyParams = this.opts.properties?.() ?? {}): Promise<void> {
    if (!this.connected) {
      const cap = this.opts.bufferOffline ?? 0;
      if (cap > 0) {
        this.buffered.push({ ts: Date.now(), params });
        if (this.buffered.length > cap) this.buffered.shift(); // a DTU's buffer is a ring: oldest goes first
      }
      return;
    }
    await this.publish('property', { id: `m${++this.seq}`, ts: Date.now(), params });
  }

  /**
   * Reports a thing model event on `P/up/event` (docs/device-protocol.md): `event` is an event identifier of the
   * product's model and `params` its output parameters. Resolves on the PUBACK, which means stored or dropped as
   * invalid (an event the model does not define, or parameters of the wrong type).
   */
  async sendEvent(event: string, params: Record<string, number | string | boolean> = {}): Promise<void> {
    await this.publish('event', { event, params, ts: Date.now() });
  }

  /** Readings waiting for the next connect. */
  get bufferedCount(): number {
    return this.buffered.length;
  }

  /**
   * A deliberately broken uplink, to exercise the platform's rejection paths (`--bad-ratio`): invalid JSON,
   * a schema violation, or a topic the device may not publish to. The last may cost the connection: MQTT 3.1.1
   * has no way to refuse one publish, so a broker may drop the client instead.
   */
  async sendBad(kind: BadKind): Promise<void> {
    this.stats.bad++;
    if (kind === 'json') {
      await this.publishRaw(`${this.prefix}/up/property`, '{"params": {"temperature": 2', 1);
    } else if (kind === 'schema') {
      const bodies = [
        { params: 'not an object' },
        { params: { temperature: { nested: true } } },
        { items: [{ ts: 'yesterday', params: {} }] },
        { ts: -5, params: { humidity: [1, 2] } },
      ];
      const body = bodies[this.seq++ % bodies.length];
      await this.publishRaw(`${this.prefix}/up/property`, JSON.stringify(body), 1);
    } else {
      // QoS 0: a refused publish gets no PUBACK, and waiting for one would only measure the timeout.
      const topics = [
        `${this.prefix}/up/no_such_kind`,
        `${this.prefix}/down/cmd`,
        upTopic(this.identity.product_key, `not-${this.identity.sn}`, 'property'),
      ];
      const topic = topics[this.seq++ % topics.length] ?? topics[0]!;
      await this.publishRaw(topic, JSON.stringify({ params: { temperature: 1 } }), 0);
    }
  }

  private onMessage(topic: string, payload: Buffer): void {
    const parsed = parseTopic(topic);
    if (!parsed || parsed.direction !== 'down') return;
    const { kind } = parsed;
    if (kind === 'raw' && this.opts.modbus && !this.opts.handlers?.raw) {
      this.opts.modbus
        .receive(new Uint8Array(payload), (frame) => this.publishBytes('raw', frame))
        .catch(() => undefined);
      return;
    }
    let body: Record<string, unknown>;
    try {
      const json: unknown = JSON.parse(payload.toString('utf8'));
      if (typeof json !== 'object' || json === null) return;
      body = json as Record<string, unknown>;
    } catch {
      return; // a real DTU ignores what it cannot parse
    }
    const handler = this.opts.handlers?.[kind] ?? builtIn[kind];
    if (!handler) return;
    Promise.resolve(handler(this, body)).catch(() => undefined); // failures are already counted in stats
  }

  /** Applies a configuration and reports it back, as a DTU does after `P/down/config`. */
  async applyConfig(version: number, config: Record<string, unknown>): Promise<void> {
    this.config = { version, config };
    this.stats.configs++;
    await this.publish('config', this.config);
  }

  async answerCommand(id: string, type: string, data: string): Promise<void> {
    this.commands.push({ id, type, data });
    this.stats.commands++;
    const delay = this.opts.commandDelayMs ?? 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    const valid = type === 'string' || (type === 'hex' && HEX_RULE.test(data));
    // The simulated serial peer echoes what it was sent, which is what a loop-back test expects.
    await this.publish('cmd_reply', valid ? { id, code: 0, data } : { id, code: 70003 });
  }

  /**
   * Drops the connection on purpose. `clean` says goodbye first ({"online":0}, then DISCONNECT, so no will);
   * `abrupt` cuts the socket like a lost cell, so the broker fires the will.
   */
  async goOffline(mode: 'clean' | 'abrupt'): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.planned = true;
    if (mode === 'clean') {
      await this.publish('status', { online: 0 }).catch(() => undefined);
      await client.endAsync();
    } else {
      client.stream.destroy();
      await new Promise<void>((r) => (client.connected ? client.once('close', () => r()) : r()));
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.planned = true;
    await client.endAsync();
  }
}

const builtIn: Record<string, DownlinkHandler> = {
  cmd: (device, body) =>
    device.answerCommand(String(body.id ?? ''), String(body.type ?? ''), String(body.data ?? '')),
  config: (device, body) => {
    if (typeof body.version !== 'number') return;
    const config =
      typeof body.config === 'object' && body.config !== null ? (body.config as Record<string, unknown>) : {};
    return device.applyConfig(body.version, config);
  },
};
