import { randomUUID } from 'node:crypto';
import type { DeliveryItem } from '@cellhub/contract/system-settings';
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { wakeWorkers } from '../../jobs/worker';
import { AppError } from '../../lib/app-error';
import type { Deps } from '../../lib/deps';
import { outboundRefusal } from '../../lib/outbound';
import type { ChannelDeps } from './delivery';
import { DeliveryError, deliver, messageOf, notConfigured } from './notify.channels';
import { type DeliveryRow, notifyDeliveries, type NotifyChannel, type NotifyTemplate } from './notify.table';

export { notifyDeliveries, type DeliveryRow, type NotifyChannel, type NotifyTemplate } from './notify.table';
export { TEMPLATE_PARAMS as SMS_TEMPLATE_PARAMS } from './templates';

/**
 * One message to one recipient (docs/notifications.md).
 *
 * - `body` is the rendered text: the email body, the WeChat `content` field, the log provider's line.
 *   `subject` is the email subject (a default per template otherwise).
 * - `params` fill the provider-side templates: SMS template variables (Aliyun by name, Tencent by position) and
 *   WeChat template data. Names by template: `verify_code`, `test`: `code`;
 *   `alert_raise`, `alert_recover`: `device`, `property`, `value`, `time`.
 * - `to`: a phone (mainland without +86, else E.164), an email address or a WeChat openid (`users.wechat_openid`,
 *   set when a user binds WeChat through the QR flow).
 */
export interface NotificationInput {
  /** Unique per message, e.g. `alert:<historyId>:raise:contact:<contactId>:sms`. Enqueueing it again is a no-op. */
  idempotencyKey: string;
  channel: NotifyChannel;
  to: string;
  template: NotifyTemplate;
  subject?: string;
  body: string;
  params: Record<string, string>;
  userId?: number;
  contactId?: number;
}

/** The job kind of the delivery worker (notify.worker.ts); its wake-up channel is `jobs_notify`. */
export const NOTIFY_KIND = 'notify';

/**
 * Queues a message inside the caller's transaction: the row exists exactly when the caller's change commits, and
 * the delivery worker sends it after that (retries with backoff, per-recipient rate limit, a `failed` record after
 * the last try). Unique on `idempotencyKey`: a second call with the same key changes nothing and answers the first
 * row's id with `created: false`. Once the transaction has committed, the caller calls `notificationsQueued` so a
 * worker sends at once instead of at its next poll.
 */
export async function enqueueNotification(
  tx: DbOrTx,
  n: NotificationInput,
): Promise<{ id: number; created: boolean }> {
  const [row] = await tx
    .insert(notifyDeliveries)
    .values(rowValues(n))
    .onConflictDoNothing({ target: notifyDeliveries.idempotencyKey })
    .returning({ id: notifyDeliveries.id });
  if (row) return { id: row.id, created: true };
  const [existing] = await tx
    .select({ id: notifyDeliveries.id })
    .from(notifyDeliveries)
    .where(eq(notifyDeliveries.idempotencyKey, n.idempotencyKey));
  if (!existing) throw new Error(`delivery ${n.idempotencyKey} vanished`);
  return { id: existing.id, created: false };
}

/**
 * Wakes the delivery workers of every instance (NOTIFY on `jobs_notify`; in process on PGlite). Call it after the
 * transaction that queued messages committed: woken earlier, a worker would find nothing yet. Never throws: a lost
 * wake-up (the LISTEN connection is down) only makes the messages wait for a worker's next poll (NOTIFY_POLL_MS).
 */
export async function notificationsQueued(deps: Pick<Deps, 'channels' | 'log'>): Promise<void> {
  try {
    await wakeWorkers(deps.channels, NOTIFY_KIND);
  } catch (err) {
    deps.log.warn(
      { err },
      'notify: waking the delivery workers failed; they find the messages at their next poll',
    );
  }
}

function rowValues(n: NotificationInput) {
  return {
    idempotencyKey: n.idempotencyKey,
    channel: n.channel,
    recipient: n.to,
    template: n.template,
    subject: n.subject ?? null,
    body: n.body,
    params: n.params,
    uid: n.userId ?? null,
    contactId: n.contactId ?? null,
  };
}

/** The contract code a failed synchronous send answers with, by channel. */
export const SEND_FAILED_CODE: Record<NotifyChannel, number> = { email: 20117, sms: 31002, wechat: 90002 };

const MASK = '******';

/**
 * A verification code is stored as a keyed hash by its owner; the delivery row keeps the message without it, so the
 * table never holds a usable code. The adapter still sends the real text.
 */
function redacted(n: NotificationInput): NotificationInput {
  const code = n.params.code;
  if (n.template !== 'verify_code' || !code) return n;
  const hide = (s: string) => s.split(code).join(MASK);
  return {
    ...n,
    subject: n.subject === undefined ? undefined : hide(n.subject),
    body: hide(n.body),
    params: { ...n.params, code: MASK },
  };
}

/**
 * Sends at once (verification codes, "send test") through the same adapters as the worker, and records it as a
 * delivery row like any other (one attempt, no retry: the person waiting retries). Answers the row (`sent`).
 * Failures are thrown as AppError and recorded as `failed`: 20141 when the channel is not configured, else the
 * channel's code (31002 SMS, 20117 email, 90002 WeChat) with the provider's reason in the message; 40004 on
 * `host` when the outbound fence refused the SMTP host (docs/outbound.md).
 * Without `idempotencyKey` a random one is used; with one already used, nothing is sent again and the earlier
 * outcome is answered (or thrown). Not rate-limited here: callers limit codes per recipient themselves.
 */
export async function sendNow(
  deps: ChannelDeps,
  n: Omit<NotificationInput, 'idempotencyKey'> & { idempotencyKey?: string },
): Promise<DeliveryRow> {
  const input: NotificationInput = { ...n, idempotencyKey: n.idempotencyKey ?? `now:${randomUUID()}` };
  const now = deps.now();
  const [claimed] = await deps.db
    .insert(notifyDeliveries)
    .values({
      ...rowValues(redacted(input)),
      status: 'sending',
      attempts: 1,
      maxAttempts: 1,
      nextAttemptAt: now,
      lockedUntil: new Date(now.getTime() + 4 * deps.config.notify.sendTimeoutMs + 30_000),
    })
    .onConflictDoNothing({ target: notifyDeliveries.idempotencyKey })
    .returning();
  if (!claimed) {
    const [existing] = await deps.db
      .select()
      .from(notifyDeliveries)
      .where(eq(notifyDeliveries.idempotencyKey, input.idempotencyKey));
    if (!existing) throw new Error(`delivery ${input.idempotencyKey} vanished`);
    if (existing.status === 'failed') throw sendFailed(existing.channel, existing.lastError ?? 'failed');
    return existing;
  }
  try {
    const result = await deliver(deps, claimed, { ...messageOf(claimed), ...messageFields(input) });
    const [done] = await deps.db
      .update(notifyDeliveries)
      .set({
        status: 'sent',
        sentat: deps.now(),
        lockedUntil: null,
        lastError: null,
        providerMessageId: result.providerMessageId ?? null,
      })
      .where(eq(notifyDeliveries.id, claimed.id))
      .returning();
    return done!;
  } catch (err) {
    const reason = err instanceof DeliveryError ? err.message : 'unexpected error';
    if (!(err instanceof DeliveryError))
      deps.log.error({ err, delivery: claimed.id }, 'notification send failed');
    await deps.db
      .update(notifyDeliveries)
      .set({ status: 'failed', lockedUntil: null, lastError: reason })
      .where(eq(notifyDeliveries.id, claimed.id));
    // A host the outbound fence refused (the SMTP host) answers like every refused target: 400 40004.
    throw notConfigured(err) ?? outboundRefusal(err, 'host') ?? sendFailed(claimed.channel, reason);
  }
}

const messageFields = (n: NotificationInput) => ({
  to: n.to,
  subject: n.subject ?? null,
  body: n.body,
  params: n.params,
});

/** `details.reason` carries the provider's words, so the console can show them next to the code's own text. */
function sendFailed(channel: NotifyChannel, reason: string): AppError {
  return new AppError(SEND_FAILED_CODE[channel], 400, `${channel} send failed: ${reason}`, {
    channel,
    reason,
  });
}

/** A delivery row as the API shows it (history views, send-test answers). */
export function toDeliveryItem(row: DeliveryRow): DeliveryItem {
  return {
    id: row.id,
    channel: row.channel,
    to: row.recipient,
    template: row.template,
    status: row.status,
    attempts: row.attempts,
    last_error: row.lastError,
    provider_message_id: row.providerMessageId,
    sentat: row.sentat?.toISOString() ?? null,
    createdat: row.createdat.toISOString(),
  };
}
