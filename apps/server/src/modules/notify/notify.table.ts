import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdat, tstz, updatedat } from '../../db/columns';
import { users } from '../users/users.table';

export type NotifyChannel = 'sms' | 'email' | 'wechat';
export type NotifyTemplate =
  | 'alert_raise'
  | 'alert_recover'
  | 'verify_code'
  | 'test'
  /** SIM reminders (modules/sim/sim-reminders.service.ts). */
  | 'sim_expiry'
  | 'sim_data_low';
export type DeliveryStatus = 'pending' | 'sending' | 'sent' | 'failed';

/**
 * Outgoing notifications as durable jobs (docs/notifications.md). One row per message: the idempotency key is unique,
 * so a message is enqueued once however often its event is replayed. The worker claims due rows
 * (`status = 'pending' and next_attempt_at <= now`, or a `sending` row whose lease ran out) with FOR UPDATE SKIP LOCKED.
 * `contact_id` is the alerts module's contact (no foreign key: contacts may be deleted, history stays).
 */
export const notifyDeliveries = pgTable(
  'notify_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    idempotencyKey: text('idempotency_key').notNull(),
    channel: text('channel').$type<NotifyChannel>().notNull(),
    /** Phone (mainland without +86, else E.164), email address or WeChat openid. */
    recipient: text('recipient').notNull(),
    template: text('template').$type<NotifyTemplate>().notNull(),
    subject: text('subject'),
    body: text('body').notNull(),
    params: jsonb('params').$type<Record<string, string>>().notNull().default({}),
    uid: integer('uid').references(() => users.id, { onDelete: 'set null' }),
    contactId: integer('contact_id'),
    status: text('status').$type<DeliveryStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(6),
    nextAttemptAt: tstz('next_attempt_at').notNull().defaultNow(),
    /** While `sending`: when the claim expires and another worker may take the row again. */
    lockedUntil: tstz('locked_until'),
    lastError: text('last_error'),
    /** The provider's id for the message (SMTP Message-ID, Aliyun BizId, Tencent SerialNo, WeChat msgid). */
    providerMessageId: text('provider_message_id'),
    sentat: tstz('sentat'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    uniqueIndex('notify_deliveries_idempotency_key_uq').on(t.idempotencyKey),
    // The worker's claim: only unfinished rows are indexed.
    index('notify_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} in ('pending', 'sending')`),
    // Per-recipient rate limit window.
    index('notify_deliveries_recipient_idx').on(t.channel, t.recipient, t.sentat),
    index('notify_deliveries_contact_idx').on(t.contactId, t.createdat),
    index('notify_deliveries_uid_idx').on(t.uid, t.createdat),
  ],
);
export type DeliveryRow = typeof notifyDeliveries.$inferSelect;
