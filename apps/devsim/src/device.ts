import mqtt, { type MqttClient } from 'mqtt';
import { hmacPassword, isValidHex, topicPrefix } from './protocol';

export interface DeviceIdentity {
  sn: string;
  product_key: string;
  secret: string;
}

export interface DeviceOptions {
  /** mqtt://host:port or ws://host:port/mqtt */
  url: string;
  /** Sign in with the HMAC password instead of the plain secret. */
  hmac?: boolean;
  keepalive?: number;
  /** Values the device reports on `P/up/property`; a function is called on every tick. */
  properties?: () => Record<string, number | string | boolean>;
  info?: Record<string, string | number>;
}

/**
 * One virtual DTU: connects with clientId = username = sn, announces itself online (with the will set to
 * offline), reports its info, answers commands and applies configuration as PROTOCOL.md says.
 */
export class VirtualDevice {
  private client?: MqttClient;
  private seq = 0;
  config: { version: number; config: Record<string, unknown> } = { version: 0, config: {} };
  readonly commands: { id: string; type: string; data: string }[] = [];

  constructor(
    readonly identity: DeviceIdentity,
    private readonly opts: DeviceOptions,
  ) {}

  get prefix() {
    return topicPrefix(this.identity.product_key, this.identity.sn);
  }

  async connect(): Promise<void> {
    const { sn, secret } = this.identity;
    const client = mqtt.connect(this.opts.url, {
      clientId: sn,
      username: sn,
      password: this.opts.hmac ? hmacPassword(sn, secret) : secret,
      keepalive: this.opts.keepalive ?? 60,
      reconnectPeriod: 0,
      will: {
        topic: `${this.prefix}/up/status`,
        payload: Buffer.from('{"online":0}'),
        qos: 1,
        retain: false,
      },
    });
    this.client = client;
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
      client.once('close', () => reject(new Error(`connection of ${sn} closed`)));
    });
    client.on('message', (topic, payload) => this.onMessage(topic, payload));
    await client.subscribeAsync(`${this.prefix}/down/#`, { qos: 1 });
    await this.publish('status', { online: 1 });
    if (this.opts.info) await this.publish('info', this.opts.info);
  }

  async publish(kind: string, body: unknown): Promise<void> {
    if (!this.client) throw new Error('not connected');
    await this.client.publishAsync(`${this.prefix}/up/${kind}`, JSON.stringify(body), { qos: 1 });
  }

  /** One telemetry report. */
  async report(): Promise<void> {
    const params = this.opts.properties?.() ?? {};
    await this.publish('property', { id: `m${++this.seq}`, ts: Date.now(), params });
  }

  private onMessage(topic: string, payload: Buffer): void {
    const kind = topic.slice(this.prefix.length + '/down/'.length);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
    } catch {
      return; // a real DTU ignores what it cannot parse
    }
    if (kind === 'cmd') {
      const id = String(body.id ?? '');
      const type = String(body.type ?? '');
      const data = String(body.data ?? '');
      this.commands.push({ id, type, data });
      const valid = type === 'string' || (type === 'hex' && isValidHex(data));
      void this.publish('cmd_reply', valid ? { id, code: 0, data } : { id, code: 70003 });
    } else if (kind === 'config' && typeof body.version === 'number') {
      this.config = { version: body.version, config: (body.config as Record<string, unknown>) ?? {} };
      void this.publish('config', this.config);
    }
  }

  async close(): Promise<void> {
    await this.client?.endAsync();
    this.client = undefined;
  }
}
