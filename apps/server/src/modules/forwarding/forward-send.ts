/**
 * One delivery of one message to a rule's target, through the outbound fence (lib/outbound.ts): HTTP(S) with the
 * signature and idempotency headers, or a publish on an external MQTT broker over a fenced TCP connection. Used by
 * the delivery worker and the test-send button alike, so what the button shows is what deliveries do.
 */
import { createHmac } from 'node:crypto';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import { MqttClient } from 'mqtt';
import { FORWARD_HEADERS, type ForwardMessage, renderTemplate } from '@cellhub/contract/forwarding';
import { connectOutbound, openOutbound, OutboundError, type OutboundPool } from '../../lib/outbound';
import type { StoredTarget } from './forwarding.table';

export interface LoadedTarget {
  ruleId: number;
  target: StoredTarget;
  /** The HMAC key, opened. */
  secret: string;
  /** The MQTT password, opened. */
  password: string | null;
}

export interface SendOutcome {
  ok: boolean;
  /** Worth trying again later (no answer, 5xx, 408/425/429, a broker error); false: a dead letter at once. */
  retryable: boolean;
  status: number | null;
  headers: Record<string, string>;
  bodyExcerpt: string;
  durationMs: number;
  error: string | null;
  requestBody: string;
}

export interface SendPolicy {
  allow: readonly string[];
  timeoutMs: number;
  /** Kept-alive HTTP connections (made for `allow`). */
  pool?: OutboundPool;
}

const EXCERPT = 2048;
const RETRY_STATUSES = new Set([408, 425, 429]);

export const signBody = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** Messages per request of a rule (1 for MQTT targets and for HTTP rules saved before batching). */
export const batchMaxOf = (target: StoredTarget): number =>
  target.kind === 'http' ? Math.max(1, target.batch_max ?? 1) : 1;

/**
 * The body of one request: the message's rendered body, or, when the rule batches (`batch_max` above 1), a JSON
 * array of the messages' bodies in order (an array of one for a single message, so a receiver sees one shape).
 */
export function httpBody(
  target: StoredTarget & { kind: 'http' },
  messages: readonly ForwardMessage[],
): string {
  const bodies = messages.map((m) => renderTemplate(target.body_template, m, 'json'));
  return batchMaxOf(target) > 1 ? `[${bodies.join(',')}]` : bodies[0]!;
}

/** Sends one message, or several of one device in order when the rule batches, in one request. */
export async function sendHttp(
  policy: SendPolicy,
  rule: LoadedTarget,
  messages: ForwardMessage | readonly ForwardMessage[],
  signal?: AbortSignal,
): Promise<SendOutcome> {
  const t = rule.target;
  if (t.kind !== 'http') throw new Error('not an HTTP target');
  const list = Array.isArray(messages)
    ? (messages as readonly ForwardMessage[])
    : [messages as ForwardMessage];
  if (list.length === 0 || list.length > batchMaxOf(t)) throw new Error('batch size out of the rule range');
  const body = httpBody(t, list);
  const headers: Record<string, string> = {};
  for (const h of t.headers) headers[h.name] = h.value;
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json';
  headers[FORWARD_HEADERS.id] = list.map((m) => m.id).join(',');
  headers[FORWARD_HEADERS.count] = String(list.length);
  headers[FORWARD_HEADERS.signature] = signBody(rule.secret, body);
  headers[FORWARD_HEADERS.rule] = String(rule.ruleId);
  const started = performance.now();
  const base = { requestBody: body };
  try {
    const res = await openOutbound(
      {
        allow: policy.allow,
        timeoutMs: policy.timeoutMs,
        maxBytes: 1024 * 1024,
        maxRedirects: 0,
        ...(policy.pool ? { pool: policy.pool } : {}),
      },
      t.url,
      { method: t.method, headers, body, ...(signal ? { signal } : {}) },
    );
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        if (size < EXCERPT) chunks.push(chunk);
        size += chunk.length;
      }
    } catch (err) {
      // A 2xx whose body broke off or was too large was still received: the status is what counts.
      if (!(err instanceof OutboundError) || res.status < 200 || res.status > 299) throw err;
    }
    const answered: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) answered[k] = Array.isArray(v) ? v.join(', ') : v;
    const ok = res.status >= 200 && res.status < 300;
    return {
      ...base,
      ok,
      retryable: !ok && (res.status >= 500 || RETRY_STATUSES.has(res.status)),
      status: res.status,
      headers: answered,
      bodyExcerpt: Buffer.concat(chunks).subarray(0, EXCERPT).toString('utf8'),
      durationMs: Math.round(performance.now() - started),
      error: ok ? null : `HTTP ${res.status}`,
    };
  } catch (err) {
    const e = err as Error;
    const retryable = !(
      err instanceof OutboundError &&
      (err.kind === 'refused' || err.kind === 'invalid_url')
    );
    return {
      ...base,
      ok: false,
      retryable,
      status: null,
      headers: {},
      bodyExcerpt: '',
      durationMs: Math.round(performance.now() - started),
      error: err instanceof OutboundError ? `${err.kind}: ${err.message}` : (e?.message ?? 'error'),
    };
  }
}

// --- MQTT ---------------------------------------------------------------------------------------------------------

interface MqttEntry {
  key: string;
  client: Promise<MqttClient>;
}

/**
 * Connections to external brokers, one per rule, opened on first use through `connectOutbound` (the fence) and
 * dropped on any error (the next delivery connects again; the job layer's backoff spaces the tries). mqtt.js's own
 * reconnect is off: it would reconnect around the fence.
 */
export class MqttTargets {
  private readonly clients = new Map<number, MqttEntry>();

  constructor(private readonly policy: () => SendPolicy) {}

  async send(rule: LoadedTarget, message: ForwardMessage): Promise<SendOutcome> {
    const t = rule.target;
    if (t.kind !== 'mqtt') throw new Error('not an MQTT target');
    const body = renderTemplate(t.body_template, message, 'json');
    const topic = renderTemplate(t.topic, message, 'raw');
    const started = performance.now();
    const base = { requestBody: body, status: null, headers: {}, bodyExcerpt: '' };
    try {
      const client = await this.client(rule);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no acknowledgement within ${this.policy().timeoutMs / 1000} s`)),
          this.policy().timeoutMs,
        );
        client.publish(
          topic,
          body,
          // MQTT 3.1.1, which every broker speaks: the idempotency key travels in the body (`id`, or `{{id}}`).
          { qos: t.qos },
          (err) => {
            clearTimeout(timer);
            if (err) reject(err);
            else resolve();
          },
        );
      });
      return {
        ...base,
        ok: true,
        retryable: false,
        durationMs: Math.round(performance.now() - started),
        error: null,
      };
    } catch (err) {
      this.drop(rule.ruleId);
      const refused = err instanceof OutboundError && (err.kind === 'refused' || err.kind === 'invalid_url');
      return {
        ...base,
        ok: false,
        retryable: !refused,
        durationMs: Math.round(performance.now() - started),
        error: err instanceof OutboundError ? `${err.kind}: ${err.message}` : (err as Error).message,
      };
    }
  }

  private client(rule: LoadedTarget): Promise<MqttClient> {
    const t = rule.target as Extract<StoredTarget, { kind: 'mqtt' }>;
    const key = JSON.stringify([t.url, t.username, rule.password]);
    const hit = this.clients.get(rule.ruleId);
    if (hit && hit.key === key) return hit.client;
    if (hit) this.drop(rule.ruleId);
    const client = this.open(rule.ruleId, t, rule.password);
    this.clients.set(rule.ruleId, { key, client });
    client.catch(() => {
      if (this.clients.get(rule.ruleId)?.client === client) this.clients.delete(rule.ruleId);
    });
    return client;
  }

  private async open(
    ruleId: number,
    t: Extract<StoredTarget, { kind: 'mqtt' }>,
    password: string | null,
  ): Promise<MqttClient> {
    const url = new URL(t.url);
    const secure = url.protocol === 'mqtts:';
    const port = url.port ? Number(url.port) : secure ? 8883 : 1883;
    const policy = this.policy();
    const { socket, servername } = await connectOutbound(
      { allow: policy.allow, timeoutMs: policy.timeoutMs },
      url.hostname.replace(/^\[|\]$/g, ''),
      port,
    );
    const stream = secure
      ? tlsConnect({ socket, ...(servername ? { servername } : {}) } as ConnectionOptions)
      : socket;
    let built = false;
    const client = new MqttClient(
      () => {
        // One stream only: a second build would be a reconnect around the fence.
        if (built) throw new Error('reconnect is done by a new client');
        built = true;
        return stream;
      },
      {
        protocolVersion: 4,
        clientId: `cellhub-fwd-${ruleId}-${Math.random().toString(36).slice(2, 10)}`,
        username: t.username || undefined,
        password: password ?? undefined,
        reconnectPeriod: 0,
        connectTimeout: policy.timeoutMs,
        keepalive: 60,
      },
    );
    return new Promise((resolve, reject) => {
      const fail = (err: Error) => {
        client.end(true);
        reject(err);
      };
      client.once('connect', () => {
        client.off('error', fail);
        client.on('error', () => this.drop(ruleId));
        client.once('close', () => this.drop(ruleId));
        resolve(client);
      });
      client.once('error', fail);
      client.once('close', () => reject(new Error('the broker closed the connection')));
    });
  }

  drop(ruleId: number): void {
    const hit = this.clients.get(ruleId);
    if (!hit) return;
    this.clients.delete(ruleId);
    hit.client.then((c) => c.end(true)).catch(() => undefined);
  }

  close(): void {
    for (const id of [...this.clients.keys()]) this.drop(id);
  }
}
