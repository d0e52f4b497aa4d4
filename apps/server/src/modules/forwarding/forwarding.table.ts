import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
} from 'drizzle-orm/pg-core';
import type { ForwardKind, ForwardMessage } from '@cellhub/contract/forwarding';
import { createdat, tstz, updatedat } from '../../db/columns';
import { users } from '../users/users.table';

/**
 * What a rule's target keeps in the clear: everything but secrets. The MQTT password and the HMAC secret are
 * sealed (lib/crypto.ts) in their own columns.
 */
export type StoredTarget =
  | {
      kind: 'http';
      method: 'POST' | 'PUT' | 'PATCH';
      url: string;
      headers: { name: string; value: string }[];
      body_template: string;
      /** Most messages per request; absent (rules saved before batching) is 1. */
      batch_max?: number;
    }
  | {
      kind: 'mqtt';
      url: string;
      username: string;
      topic: string;
      qos: 0 | 1 | 2;
      body_template: string;
    };

/** Forwarding rules (docs/forwarding.md): a user's, sending the data of devices the user may read. */
export const forwardRules = pgTable(
  'forward_rules',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    productKey: text('product_key'),
    sns: jsonb('sns').$type<string[]>().notNull().default([]),
    kinds: jsonb('kinds').$type<ForwardKind[]>().notNull(),
    target: jsonb('target').$type<StoredTarget>().notNull(),
    /** HMAC-SHA256 key of the signature header, sealed. */
    secret: text('secret').notNull(),
    /** MQTT password, sealed; null without one. */
    password: text('password'),
    /** Set when the server paused the rule because its target kept failing; the switch clears it. */
    pausedAt: tstz('paused_at'),
    pausedReason: text('paused_reason'),
    /** Start of the current run of failed attempts (null after a success). */
    failingSince: tstz('failing_since'),
    lastError: text('last_error'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('forward_rules_uid_idx').on(t.uid, t.id)],
);
export type ForwardRuleRow = typeof forwardRules.$inferSelect;

export type ForwardMessageStatus = 'pending' | 'taken' | 'dead';

/**
 * The delivery queue, one row per message and rule (a job kind's table, src/jobs/README.md): `pending` waits for
 * `run_at`, `taken` is claimed under `locked_until`, `dead` is a dead letter (kept with its last error until replayed
 * or the rule is deleted). A delivered message's row is deleted and counted in `forward_stats`. Only the oldest
 * undelivered row of a rule and device is ever claimed, so a device's messages go out in order.
 */
export const forwardMessages = pgTable(
  'forward_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    ruleId: integer('rule_id')
      .notNull()
      .references(() => forwardRules.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id').notNull(),
    sn: text('sn').notNull(),
    kind: text('kind').$type<ForwardKind>().notNull(),
    /** The idempotency key (`message.id`). */
    messageId: text('message_id').notNull(),
    message: jsonb('message').$type<ForwardMessage>().notNull(),
    status: text('status').$type<ForwardMessageStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    runAt: tstz('run_at').notNull().defaultNow(),
    lockedUntil: tstz('locked_until'),
    lastError: text('last_error'),
    storedAt: tstz('stored_at').notNull(),
    /** When it became a dead letter. */
    diedAt: tstz('died_at'),
  },
  (t) => [
    index('forward_messages_queue_idx')
      .on(t.ruleId, t.deviceId, t.id)
      .where(sql`${t.status} in ('pending', 'taken')`),
    index('forward_messages_dead_idx')
      .on(t.ruleId, t.id)
      .where(sql`${t.status} = 'dead'`),
  ],
);
export type ForwardMessageRow = typeof forwardMessages.$inferSelect;

/** Per rule and minute: messages delivered, failed attempts, new dead letters, and delivery latency. */
export const forwardStats = pgTable(
  'forward_stats',
  {
    ruleId: integer('rule_id')
      .notNull()
      .references(() => forwardRules.id, { onDelete: 'cascade' }),
    bucket: tstz('bucket').notNull(),
    delivered: integer('delivered').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    dead: integer('dead').notNull().default(0),
    /** Sum and largest of stored-to-delivered times of the delivered messages (ms). */
    latencySum: bigint('latency_sum', { mode: 'number' }).notNull().default(0),
    latencyMax: integer('latency_max').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.bucket] })],
);
