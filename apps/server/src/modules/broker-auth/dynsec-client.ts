import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import mqtt, { type MqttClient } from 'mqtt';

/** Mosquitto's dynamic-security control topic (mosquitto 2.0 `dynamic-security` plugin). */
export const DYNSEC_TOPIC = '$CONTROL/dynamic-security/v1';
const RESPONSE_TOPIC = `${DYNSEC_TOPIC}/response`;

export interface DynsecCommand {
  command: string;
  [field: string]: unknown;
}

export interface DynsecResponse {
  command: string;
  error?: string;
  data?: Record<string, unknown>;
  correlationData?: string;
}

/** A refused dynamic-security command: the broker's own error text. */
export class DynsecError extends Error {
  constructor(
    readonly command: string,
    readonly brokerError: string,
  ) {
    super(`dynamic security ${command}: ${brokerError}`);
  }
}

interface Pending {
  ids: string[];
  got: Map<string, DynsecResponse>;
  resolve(responses: DynsecResponse[]): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * One MQTT connection to the external Mosquitto as its dynamic-security admin, sending control commands and
 * matching the answers by correlation data. Every instance may hold one: answers go to every subscriber of the
 * response topic, each takes only its own. Commands sent while the broker is away wait for the reconnect until
 * `timeoutMs`; then they fail and the job that sent them retries with backoff.
 */
export class DynsecClient {
  /** Requests waiting for answers, by the correlation data of their first command. */
  private readonly pending = new Map<string, Pending>();
  /** The same requests by the correlation data of each of their commands. */
  private readonly byId = new Map<string, Pending>();
  private readonly prefix = randomBytes(6).toString('hex');
  private seq = 0;
  /** Settles once the response topic is subscribed on the current connection (answers sent before would be lost). */
  private subscribed: Promise<void>;
  private markSubscribed: () => void = () => undefined;

  private constructor(
    private readonly client: MqttClient,
    private readonly timeoutMs: number,
    log: FastifyBaseLogger,
  ) {
    this.subscribed = this.nextSubscription();
    client.on('message', (topic, payload) => {
      if (topic === RESPONSE_TOPIC) this.onResponse(payload);
    });
    client.on('connect', () => {
      client.subscribe(RESPONSE_TOPIC, { qos: 1 }, (err) => {
        if (err) log.error({ err: err.message }, 'dynamic security: response subscription refused');
        else this.markSubscribed();
      });
    });
    client.on('close', () => {
      this.subscribed = this.nextSubscription();
    });
  }

  private nextSubscription(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.markSubscribed = resolve;
    });
  }

  /**
   * Connects (in the background: the first commands wait for it) to `url`, as `username`/`password` when given,
   * else as the user named in the URL.
   */
  static open(
    url: string,
    options: { username?: string; password?: string; log: FastifyBaseLogger; timeoutMs?: number },
  ): DynsecClient {
    const parsed = new URL(url);
    const username = options.username ?? (decodeURIComponent(parsed.username) || undefined);
    const password = options.password ?? (decodeURIComponent(parsed.password) || undefined);
    parsed.username = '';
    parsed.password = '';
    const client = mqtt.connect(parsed.toString(), {
      clientId: `cellhub-dynsec-${randomBytes(6).toString('hex')}`,
      username,
      password,
      clean: true,
      protocolVersion: 4,
      reconnectPeriod: 2000,
      connectTimeout: 10_000,
    });
    const { log } = options;
    client.on('error', (err) => log.warn({ err: err.message }, 'dynamic security connection failed'));
    return new DynsecClient(client, options.timeoutMs ?? 15_000, log);
  }

  /**
   * Sends the commands in one message and resolves with their answers in the same order. Rejects with a
   * DynsecError only through `check`; a broker that does not answer in time rejects with a plain Error.
   */
  async run(commands: readonly DynsecCommand[]): Promise<DynsecResponse[]> {
    if (commands.length === 0) return [];
    const ids = commands.map(() => `${this.prefix}-${++this.seq}`);
    const key = ids[0]!;
    const answered = new Promise<DynsecResponse[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.forget(key);
        reject(new Error(`dynamic security: no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      const p: Pending = { ids, got: new Map(), resolve, reject, timer };
      this.pending.set(key, p);
      for (const id of ids) this.byId.set(id, p);
    });
    const payload = JSON.stringify({
      commands: commands.map((c, i) => ({ ...c, correlationData: ids[i] })),
    });
    // Sent once answers can arrive; the timeout above covers a broker that stays away.
    await Promise.race([
      this.subscribed,
      answered.then(
        () => undefined,
        () => undefined,
      ),
    ]);
    if (!this.pending.has(key)) return answered;
    this.client.publish(DYNSEC_TOPIC, payload, { qos: 1 }, (err) => {
      const p = this.pending.get(key);
      if (err && p) {
        clearTimeout(p.timer);
        this.forget(key);
        p.reject(err);
      }
    });
    return answered;
  }

  /** `run`, throwing the first refusal that `tolerate` does not accept. */
  async check(
    commands: readonly DynsecCommand[],
    tolerate: (r: DynsecResponse) => boolean = () => false,
  ): Promise<DynsecResponse[]> {
    const responses = await this.run(commands);
    const bad = responses.find((r) => r.error && !tolerate(r));
    if (bad) throw new DynsecError(bad.command, bad.error!);
    return responses;
  }

  private onResponse(payload: Buffer): void {
    let body: { responses?: DynsecResponse[] };
    try {
      body = JSON.parse(payload.toString('utf8')) as { responses?: DynsecResponse[] };
    } catch {
      return;
    }
    for (const r of body.responses ?? []) {
      const id = r.correlationData;
      // Other instances' answers (they go to every subscriber) and late ones after a timeout.
      const p = typeof id === 'string' ? this.byId.get(id) : undefined;
      if (!p) continue;
      p.got.set(id!, r);
      if (p.got.size === p.ids.length) {
        clearTimeout(p.timer);
        this.forget(p.ids[0]!);
        p.resolve(p.ids.map((i) => p.got.get(i)!));
      }
    }
  }

  private forget(key: string): void {
    const p = this.pending.get(key);
    if (!p) return;
    this.pending.delete(key);
    for (const id of p.ids) this.byId.delete(id);
  }

  get connected(): boolean {
    return this.client.connected;
  }

  async close(): Promise<void> {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error('dynamic security client closed'));
    }
    this.pending.clear();
    this.byId.clear();
    await this.client.endAsync(true);
  }
}
