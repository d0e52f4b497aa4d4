/**
 * Forwarding (docs/forwarding.md): rules of a user that send the data of devices the user may read (properties,
 * events, online/offline, raw uplinks) to the user's own systems: an HTTP(S) endpoint (method, headers, body
 * template, HMAC-SHA256 signature over the body with the rule's secret) or an external MQTT broker (URL,
 * credentials, topic template, QoS). Delivery is at least once, in order per device, with retries, dead letters
 * and replay. Kafka and AMQP are not supported (no maintained client is installed; docs/forwarding.md).
 */
import { z } from 'zod';
import { pageQuery } from './common';
import { PRODUCT_KEY_RULE, SN_RULE } from './protocol';
import { text } from './text';

export const FORWARD_KINDS = ['property', 'event', 'online', 'offline', 'raw'] as const;
export type ForwardKind = (typeof FORWARD_KINDS)[number];
export const FORWARD_TARGET_KINDS = ['http', 'mqtt'] as const;
export type ForwardTargetKind = (typeof FORWARD_TARGET_KINDS)[number];
export const FORWARD_METHODS = ['POST', 'PUT', 'PATCH'] as const;

/** Headers every HTTP delivery carries; a rule's own headers may not replace them. */
export const FORWARD_HEADERS = {
  /** The message's idempotency key: the same on every retry and replay of one message. */
  id: 'x-cellhub-message-id',
  /** `sha256=<hex HMAC-SHA256 of the exact body bytes, keyed with the rule's secret>`. */
  signature: 'x-cellhub-signature',
  rule: 'x-cellhub-rule',
  /** Messages in the body: 1, or the array's length when the rule batches (the ids then comma-separated in `id`). */
  count: 'x-cellhub-message-count',
} as const;

/** Most messages one HTTP request may carry (a rule's `batch_max`). */
export const FORWARD_BATCH_MAX = 100;

/** Most rules one user may own (86002 past it). */
export const FORWARD_RULES_MAX = 100;
export const FORWARD_SNS_MAX = 1000;

const id = z.coerce.number().int().min(1).max(2_147_483_647);
export const forwardIdParams = z.object({ id });

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const RESERVED_HEADERS = new Set([
  ...Object.values(FORWARD_HEADERS),
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
]);

export const forwardHeader = z.object({
  name: text()
    .regex(HEADER_NAME, 'not a header name')
    .refine((n) => !RESERVED_HEADERS.has(n.toLowerCase()), 'this header is set by the platform'),
  // No CR or LF: a header value cannot start another header.
  value: text()
    .max(1024)
    .refine((v) => !/[\r\n]/.test(v), 'no line breaks'),
});
export type ForwardHeader = z.infer<typeof forwardHeader>;

const httpUrl = text()
  .trim()
  .max(2048)
  .refine((u) => /^https?:\/\/[^\s]+$/i.test(u), 'must be an http:// or https:// URL');
const mqttUrl = text()
  .trim()
  .max(2048)
  .refine((u) => /^(mqtt|mqtts):\/\/[^\s/]+\/?$/i.test(u), 'must be mqtt://host:port or mqtts://host:port');

export const httpTarget = z.object({
  kind: z.literal('http'),
  method: z.enum(FORWARD_METHODS).default('POST'),
  url: httpUrl,
  headers: z.array(forwardHeader).max(20).default([]),
  /** Empty: the message itself as JSON. Placeholders: see FORWARD_PLACEHOLDERS. */
  body_template: text().max(8192).default(''),
  /**
   * Most messages of one device in one request (1: a request per message). Above 1 the body is a JSON array of the
   * messages' bodies, in order, sent whenever more than one is waiting; the body must then be JSON (86003).
   */
  batch_max: z.number().int().min(1).max(FORWARD_BATCH_MAX).default(1),
});

export const mqttTarget = z.object({
  kind: z.literal('mqtt'),
  url: mqttUrl,
  username: text().max(256).default(''),
  /** Write only: absent on an update keeps the stored one; never answered. */
  password: text().max(256).optional(),
  topic: text()
    .trim()
    .min(1)
    .max(512)
    .refine((t) => !/[+#]/.test(t), 'no wildcards in a topic'),
  qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).default(1),
  body_template: text().max(8192).default(''),
});

export const forwardTarget = z.discriminatedUnion('kind', [httpTarget, mqttTarget]);
export type ForwardTargetInput = z.input<typeof forwardTarget>;
export type ForwardTarget = z.output<typeof forwardTarget>;

/** POST /api/forwarding and PUT /api/forwarding/:id (the whole rule). */
export const forwardRuleBody = z.object({
  name: text().trim().min(1).max(64),
  enabled: z.boolean().default(true),
  /** Only devices of this product (null: any product). */
  product_key: text().regex(PRODUCT_KEY_RULE).nullable().default(null),
  /** Only these devices (empty: every device the owner may read, of the product if one is set). */
  sns: z.array(text().regex(SN_RULE)).max(FORWARD_SNS_MAX).default([]),
  kinds: z
    .array(z.enum(FORWARD_KINDS))
    .min(1)
    .max(FORWARD_KINDS.length)
    .transform((k) => [...new Set(k)]),
  target: forwardTarget,
});
export type ForwardRuleBody = z.input<typeof forwardRuleBody>;

/** PUT /api/forwarding/:id/enabled: the switch; turning a paused rule on resumes it. */
export const forwardEnabledBody = z.object({ enabled: z.boolean() });

export const FORWARD_STATUSES = ['running', 'paused', 'disabled'] as const;
export type ForwardStatus = (typeof FORWARD_STATUSES)[number];

export const forwardCounters = z.object({
  delivered: z.number().int(),
  failed: z.number().int(),
  dead: z.number().int(),
  pending: z.number().int(),
});
export type ForwardCounters = z.infer<typeof forwardCounters>;

const answeredTarget = z.discriminatedUnion('kind', [
  httpTarget.extend({ headers: z.array(z.object({ name: text(), value: text() })) }),
  mqttTarget.omit({ password: true }).extend({ has_password: z.boolean() }),
]);

export const forwardRuleItem = z.object({
  id: z.number().int(),
  name: text(),
  enabled: z.boolean(),
  status: z.enum(FORWARD_STATUSES),
  /** Why the server paused it (the last error), null unless paused. */
  paused_reason: text().nullable(),
  paused_at: text().nullable(),
  product_key: text().nullable(),
  sns: z.array(text()),
  kinds: z.array(z.enum(FORWARD_KINDS)),
  target: answeredTarget,
  /** Totals since the rule was made (delivered, failed attempts, dead letters now, pending now). */
  counters: forwardCounters,
  last_error: text().nullable(),
  created_at: text(),
  updated_at: text(),
});
export type ForwardRuleItem = z.infer<typeof forwardRuleItem>;

/** The create and secret-rotation answers: the signing secret, shown this once. */
export const forwardRuleCreated = forwardRuleItem.extend({ secret: text() });
export type ForwardRuleCreated = z.infer<typeof forwardRuleCreated>;
export const forwardSecret = z.object({ secret: text() });

export const forwardListQuery = pageQuery.extend({ keyword: text().trim().max(64).optional() });
export type ForwardListQuery = z.input<typeof forwardListQuery>;

/** POST /api/forwarding/:id/test: one sample message of a kind (device `SN0001`) sent now, the answer shown. */
export const forwardTestBody = z.object({ kind: z.enum(FORWARD_KINDS).default('property') });
export const forwardTestResult = z.object({
  ok: z.boolean(),
  /** HTTP status (null for MQTT or when nothing answered). */
  status: z.number().int().nullable(),
  headers: z.record(text(), text()),
  /** The first 2 KiB of the answer, as text. */
  body_excerpt: text(),
  duration_ms: z.number(),
  /** What went wrong (no answer, a refused address, a broker error), null when the target answered. */
  error: text().nullable(),
  /** The request as sent: body and the headers the platform added. */
  request_body: text(),
  message_id: text(),
});
export type ForwardTestResult = z.infer<typeof forwardTestResult>;

export const FORWARD_RANGES = ['1h', '24h', '7d'] as const;
export const forwardStatsQuery = z.object({ range: z.enum(FORWARD_RANGES).default('24h') });
export const forwardStats = z.object({
  counters: forwardCounters,
  /** Bucket size in seconds (1h: 60, 24h: 1800, 7d: 21600). */
  step: z.number().int(),
  points: z.array(
    z.object({
      at: text(),
      delivered: z.number().int(),
      failed: z.number().int(),
      dead: z.number().int(),
    }),
  ),
  /** Stored-to-delivered time of the messages delivered in the range (ms): mean and largest; null when none. */
  avg_ms: z.number().nullable(),
  max_ms: z.number().nullable(),
});
export type ForwardStats = z.infer<typeof forwardStats>;

export const forwardDeadItem = z.object({
  id: z.number().int(),
  message_id: text(),
  sn: text(),
  kind: z.enum(FORWARD_KINDS),
  attempts: z.number().int(),
  last_error: text().nullable(),
  stored_at: text(),
  died_at: text(),
  message: z.record(text(), z.unknown()),
});
export type ForwardDeadItem = z.infer<typeof forwardDeadItem>;
export const forwardDeadQuery = pageQuery;
/** POST /api/forwarding/:id/dead/replay: these dead letters (all of the rule's when absent) go out again. */
export const forwardReplayBody = z.object({
  ids: z.array(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)).max(1000).optional(),
});
export const forwardReplayResult = z.object({ replayed: z.number().int() });

// --- messages and templates ---------------------------------------------------------------------------------------

/** A forwarded message: the default body, and what templates read. */
export interface ForwardMessage {
  /** Idempotency key (also the `x-cellhub-message-id` header): the same on every retry and replay. */
  id: string;
  rule_id: number;
  kind: ForwardKind;
  product_key: string;
  sn: string;
  /** Device time of the data (property items), else when the platform received it (Unix ms). */
  ts: number;
  /** When the platform stored (received) it, ISO 8601. */
  stored_at: string;
  /**
   * property: `{ params }`; event: `{ event, level, params }`; online/offline: `{ online, reason? }`;
   * raw: `{ hex }` (the bytes as hex).
   */
  data: Record<string, unknown>;
}

/** Placeholders a body or topic template may use; `{{data.<path>}}` reads inside `data`. */
export const FORWARD_PLACEHOLDERS = [
  'id',
  'rule_id',
  'kind',
  'product_key',
  'sn',
  'ts',
  'stored_at',
  'data',
  'message',
] as const;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g;

/** Placeholders of a template that are not known (empty when all are). */
export function unknownPlaceholders(template: string): string[] {
  const bad: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) {
    const name = m[1]!;
    const root = name.split('.')[0]!;
    if (!(FORWARD_PLACEHOLDERS as readonly string[]).includes(root) || (root !== 'data' && name !== root))
      bad.push(name);
  }
  return bad;
}

function lookup(message: ForwardMessage, name: string): unknown {
  if (name === 'message') return message;
  const [root, ...path] = name.split('.');
  let value: unknown = (message as unknown as Record<string, unknown>)[root!];
  for (const p of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[p];
  }
  return value;
}

/**
 * Fills a template. `json` mode (bodies): strings go in JSON-escaped without their quotes, so `"sn": "{{sn}}"` stays
 * valid JSON whatever the value; objects, arrays, numbers and booleans as JSON; missing values as nothing. `raw`
 * mode (topics): strings as they are, `/`, `+` and `#` inside values replaced by `_`. An empty body template is
 * the message as JSON.
 */
export function renderTemplate(
  template: string,
  message: ForwardMessage,
  mode: 'json' | 'raw' = 'json',
): string {
  if (mode === 'json' && template.trim() === '') return JSON.stringify(message);
  return template.replace(PLACEHOLDER, (_all, name: string) => {
    const value = lookup(message, name);
    if (value === undefined || value === null) return mode === 'json' && value === null ? 'null' : '';
    if (mode === 'raw') {
      const s = typeof value === 'object' ? JSON.stringify(value) : String(value);
      return s.replace(/[/+#]/g, '_');
    }
    if (typeof value === 'string') return JSON.stringify(value).slice(1, -1);
    return JSON.stringify(value);
  });
}

/** A sample message of a kind, for the preview and the test send. */
export function sampleMessage(
  kind: ForwardKind,
  ruleId: number,
  device: { sn: string; product_key: string } = { sn: 'SN0001', product_key: 'pk_demo' },
  now = Date.now(),
): ForwardMessage {
  const data: Record<string, unknown> =
    kind === 'property'
      ? { params: { temp: 23.5, humidity: 41 } }
      : kind === 'event'
        ? { event: 'overheat', level: 'warning', params: { temp: 81 } }
        : kind === 'online'
          ? { online: 1 }
          : kind === 'offline'
            ? { online: 0, reason: 'test' }
            : { hex: '010300000002c40b' };
  return {
    id: `test-${now.toString(36)}`,
    rule_id: ruleId,
    kind,
    product_key: device.product_key,
    sn: device.sn,
    ts: now,
    stored_at: new Date(now).toISOString(),
    data,
  };
}
