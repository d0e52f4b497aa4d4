/**
 * SIM reminders (docs/sim.md "Reminders"): a card's user hears, through the notification channels they have, that
 * the card's package expires within one of SIM_REMIND_DAYS days, or that its remaining traffic fell under
 * SIM_REMIND_DATA_PERCENT of the package flow.
 *
 * The job keeps no state of its own: each reminder has an idempotency key (`sim-expiry:<card>:<expiry day>:<days>`,
 * `sim-data:<card>:<period>`), and its messages are notify_deliveries rows keyed `<key>:<channel>`. A run reads
 * the cards that qualify now, leaves out reminders already queued, and queues the rest, one transaction per page.
 * Running it again, or on another instance at the same moment, queues nothing twice (enqueueNotification is a no-op
 * on a duplicate key). A renewal moves the expiry day, so the old day's keys are never reached again and the new day
 * gets its own reminders when it comes near.
 */
import { and, asc, eq, gt, inArray, isNull, lte, ne, or, sql } from 'drizzle-orm';
import type { Deps } from '../../lib/deps';
import { type QueuedJobDefinition, queuedJobKind, runRecurringNow } from '../../jobs/queue';
import { JobWorker, wakeWorkers } from '../../jobs/worker';
import { devices } from '../devices/devices.table';
import {
  enqueueNotification,
  notificationsQueued,
  type NotifyChannel,
  notifyDeliveries,
} from '../notify/notify.service';
import { users } from '../users/users.table';
import { addInboxMessages } from '../inbox/inbox.service';
import { dayOf, monthOf, remainingSql, toMb } from './sim-common';
import { type SimInboxParams, simMessage } from './sim-inbox';
import { simCards } from './sim-cards.table';

const DAY_MS = 86_400_000;
/** Cards read per query; each page costs one key lookup for all of its reminders. */
const PAGE = 200;
const CHANNELS: readonly NotifyChannel[] = ['email', 'sms', 'wechat'];
/** Mainland China has kept UTC+8 without daylight saving since 1991: dates in the text are Beijing time. */
const BEIJING_OFFSET_MS = 8 * 3_600_000;
const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

export interface SimRemindSettings {
  /** Days before expiry at which a reminder is due (7, 3, 1 by default); empty: no expiry reminders. */
  days: readonly number[];
  /** Remaining traffic under this percentage of the package flow is "low" (10 by default); 0: none. */
  dataPercent: number;
}

export interface SimReminderRun {
  /** Expiry reminders queued (one per card and threshold, over however many channels). */
  expiry: number;
  /** Low-data reminders queued. */
  dataLow: number;
  /** Messages queued (one per reminder and channel). */
  messages: number;
  /** Reminders due for a user with no channel (no email, phone or WeChat): nothing queued. */
  noChannel: number;
}

interface Recipient {
  id: number;
  email: string;
  phone: string | null;
  openid: string | null;
}

interface Reminder {
  key: string;
  uid: number;
  template: 'sim_expiry' | 'sim_data_low';
  subject: string;
  body: string;
  params: Record<string, string>;
  /** What the message box shows (sim-inbox.ts). */
  inbox: SimInboxParams;
}

/**
 * The user a card's reminders go to: the assigned user, else the owner of the device that reports the card's
 * ICCID (the one heard from last, should two report it). Null for a card in stock.
 */
const ownerSql = sql<number | null>`coalesce(${simCards.uid}, (
  select ${devices.uid} from ${devices}
  where ${devices.iccid} = ${simCards.iccid} and ${devices.iccid} <> '' and ${devices.uid} is not null
  order by ${devices.lastcommunicationat} desc nulls last, ${devices.id} desc
  limit 1))`.mapWith((v) => (v === null ? null : Number(v)));

/** `YYYY-MM-DD HH:mm` in Beijing time. */
export function beijingTime(d: Date): string {
  return new Date(d.getTime() + BEIJING_OFFSET_MS).toISOString().slice(0, 16).replace('T', ' ');
}

const mbText = (bytes: number): string => `${toMb(Math.max(0, bytes))} MB`;

function cardText(iccid: string, msisdn: string): string {
  return msisdn ? `ICCID ${iccid}，号码 ${msisdn}` : `ICCID ${iccid}`;
}

function renewText(publicUrl: string, what: string): string {
  return `${what}请登录 Cellhub 控制台，进入「物联网卡 > 套餐」页面（${publicUrl}/card/package），选择这张卡和套餐，用账户余额支付。`;
}

/** The smallest threshold the expiry is within, e.g. 2.5 days left of [7, 3, 1] -> 3; undefined when none. */
export function expiryThreshold(expiresAt: Date, now: Date, days: readonly number[]): number | undefined {
  const left = expiresAt.getTime() - now.getTime();
  if (left <= 0) return undefined;
  return [...days].sort((a, b) => a - b).find((d) => left <= d * DAY_MS);
}

// --- expiry ------------------------------------------------------------------------------------------------------

async function expiryReminders(deps: Deps, settings: SimRemindSettings, now: Date, out: SimReminderRun) {
  const days = settings.days.filter((d) => d > 0);
  if (days.length === 0) return;
  const horizon = new Date(now.getTime() + Math.max(...days) * DAY_MS);
  // Keyset pages over sim_cards_expires_idx.
  let after: { at: Date; id: number } | undefined;
  for (;;) {
    const rows = await deps.db
      .select({
        id: simCards.id,
        iccid: simCards.iccid,
        msisdn: simCards.msisdn,
        expiresAt: simCards.expiresAt,
        owner: ownerSql,
      })
      .from(simCards)
      .where(
        and(
          gt(simCards.expiresAt, now),
          lte(simCards.expiresAt, horizon),
          ne(simCards.status, 'deactivated'),
          after ? sql`(${simCards.expiresAt}, ${simCards.id}) > (${ts(after.at)}, ${after.id})` : undefined,
        ),
      )
      .orderBy(asc(simCards.expiresAt), asc(simCards.id))
      .limit(PAGE);
    if (rows.length === 0) break;
    const last = rows[rows.length - 1]!;
    after = { at: last.expiresAt!, id: last.id };
    const reminders: Reminder[] = [];
    for (const r of rows) {
      const threshold = expiryThreshold(r.expiresAt!, now, days);
      if (r.owner === null || threshold === undefined) continue;
      const expiry = beijingTime(r.expiresAt!);
      reminders.push({
        key: `sim-expiry:${r.id}:${dayOf(r.expiresAt!)}:${threshold}`,
        uid: r.owner,
        template: 'sim_expiry',
        subject: `【Cellhub】物联网卡套餐将在 ${threshold} 天内到期：${r.iccid}`,
        body:
          `您好！您的物联网卡（${cardText(r.iccid, r.msisdn)}）的套餐将于 ${expiry}（北京时间）到期，` +
          `剩余不足 ${threshold} 天。到期后这张卡可能无法上网。\n` +
          renewText(deps.config.publicUrl, '续费方法：'),
        params: { iccid: r.iccid, phone: r.msisdn || '-', expiry, days: String(threshold) },
        inbox: { iccid: r.iccid, phone: r.msisdn, expiry: r.expiresAt!.toISOString(), days: threshold },
      });
    }
    out.expiry += await queue(deps, reminders, out);
    if (rows.length < PAGE) break;
  }
}

// --- low data ----------------------------------------------------------------------------------------------------

/**
 * What the remaining traffic is measured against, as a key part: the operator's quota (its total and expiry), a pool
 * (its start and size: a renewal adds flow, so a new size is a new pool to warn about), or a monthly allowance (the
 * UTC month, as the allowance resets each month).
 */
function dataPeriod(
  c: {
    quotaRemainingBytes: number | null;
    quotaTotalBytes: number | null;
    operatorExpiresAt: Date | null;
    allowanceType: string | null;
    allowanceBytes: number | null;
    periodStart: Date | null;
  },
  now: Date,
): { period: string; scope: 'month' | 'pool' } {
  if (c.quotaRemainingBytes !== null) {
    const until = c.operatorExpiresAt ? dayOf(c.operatorExpiresAt) : 'open';
    return { period: `quota-${c.quotaTotalBytes ?? c.allowanceBytes}-${until}`, scope: 'pool' };
  }
  if (c.allowanceType === 'pool') {
    const start = c.periodStart ? dayOf(c.periodStart) : 'open';
    return { period: `pool-${start}-${c.allowanceBytes}`, scope: 'pool' };
  }
  return { period: monthOf(now), scope: 'month' };
}

async function dataReminders(deps: Deps, settings: SimRemindSettings, now: Date, out: SimReminderRun) {
  const percent = settings.dataPercent;
  if (!(percent > 0)) return;
  const remaining = remainingSql(monthOf(now));
  // The package flow, or the operator's quota when it reports one (as the card list's month_total).
  const total = sql<number | null>`coalesce(${simCards.quotaTotalBytes}, ${simCards.allowanceBytes})`.mapWith(
    (v) => (v === null ? null : Number(v)),
  );
  let lastId = 0;
  for (;;) {
    const rows = await deps.db
      .select({
        id: simCards.id,
        iccid: simCards.iccid,
        msisdn: simCards.msisdn,
        allowanceType: simCards.allowanceType,
        allowanceBytes: simCards.allowanceBytes,
        periodStart: simCards.periodStart,
        quotaTotalBytes: simCards.quotaTotalBytes,
        quotaRemainingBytes: simCards.quotaRemainingBytes,
        operatorExpiresAt: simCards.operatorExpiresAt,
        remaining,
        total,
        owner: ownerSql,
      })
      .from(simCards)
      .where(
        and(
          gt(simCards.id, lastId),
          ne(simCards.status, 'deactivated'),
          // An expired card needs renewing, which its expiry reminders said; traffic left on it does not matter.
          or(isNull(simCards.expiresAt), gt(simCards.expiresAt, now)),
          sql`${total} > 0`,
          sql`${remaining} * 100 < ${total} * ${percent}::numeric`,
        ),
      )
      .orderBy(asc(simCards.id))
      .limit(PAGE);
    if (rows.length === 0) break;
    lastId = rows[rows.length - 1]!.id;
    const reminders: Reminder[] = [];
    for (const r of rows) {
      if (r.owner === null || r.remaining === null || r.total === null) continue;
      const { period, scope } = dataPeriod(r, now);
      const left = mbText(r.remaining);
      const what = scope === 'month' ? '本月剩余流量' : '剩余流量';
      reminders.push({
        key: `sim-data:${r.id}:${period}`,
        uid: r.owner,
        template: 'sim_data_low',
        subject: `【Cellhub】物联网卡流量不足 ${percent}%：${r.iccid}`,
        body:
          `您好！您的物联网卡（${cardText(r.iccid, r.msisdn)}）${what} ${left}，` +
          `已不足套餐流量 ${mbText(r.total)} 的 ${percent}%。流量用完后这张卡将无法上网。\n` +
          renewText(deps.config.publicUrl, '如需更多流量，请为该卡续费或更换套餐：'),
        params: { iccid: r.iccid, phone: r.msisdn || '-', remaining: left, percent: String(percent) },
        inbox: { iccid: r.iccid, phone: r.msisdn, remaining_mb: toMb(Math.max(0, r.remaining)), percent },
      });
    }
    out.dataLow += await queue(deps, reminders, out);
    if (rows.length < PAGE) break;
  }
}

// --- queueing ----------------------------------------------------------------------------------------------------

/** The user's channels: email when they have an address, SMS when a phone, WeChat when bound. */
function targetsOf(user: Recipient): { channel: NotifyChannel; to: string }[] {
  const targets: { channel: NotifyChannel; to: string }[] = [];
  if (user.email) targets.push({ channel: 'email', to: user.email });
  if (user.phone) targets.push({ channel: 'sms', to: user.phone });
  if (user.openid) targets.push({ channel: 'wechat', to: user.openid });
  return targets;
}

/**
 * Queues the reminders not queued before (on any channel) to their users' channels, a page in one transaction (a
 * pass that fails queues none of the page, and the next pass tries again). Pages are read in one order and channels
 * enqueued in one order, so two instances on the same page wait for each other instead of deadlocking. Answers how
 * many reminders were queued now.
 */
async function queue(deps: Deps, reminders: Reminder[], out: SimReminderRun): Promise<number> {
  if (reminders.length === 0) return 0;
  // The message box gets every reminder, also of users without a channel (written once per key).
  await addInboxMessages(deps.db, reminders.map(simMessage));
  const keys = reminders.flatMap((r) => CHANNELS.map((c) => `${r.key}:${c}`));
  const existing = await deps.db
    .select({ key: notifyDeliveries.idempotencyKey })
    .from(notifyDeliveries)
    .where(inArray(notifyDeliveries.idempotencyKey, keys));
  const done = new Set(existing.map((e) => e.key.slice(0, e.key.lastIndexOf(':'))));
  const due = reminders.filter((r) => !done.has(r.key));
  if (due.length === 0) return 0;

  const uids = [...new Set(due.map((r) => r.uid))];
  const recipients = new Map<number, Recipient>();
  const rows = await deps.db
    .select({ id: users.id, email: users.email, phone: users.phone, openid: users.wechatOpenid })
    .from(users)
    .where(and(inArray(users.id, uids), eq(users.disabled, false)));
  for (const u of rows) recipients.set(u.id, u);

  const planned: { reminder: Reminder; targets: { channel: NotifyChannel; to: string }[] }[] = [];
  for (const reminder of due) {
    const user = recipients.get(reminder.uid);
    const targets = user ? targetsOf(user) : [];
    if (targets.length === 0) out.noChannel += 1;
    else planned.push({ reminder, targets });
  }
  if (planned.length === 0) return 0;
  const { reminders: queued, messages } = await deps.db.transaction(async (tx) => {
    let n = 0;
    let m = 0;
    for (const { reminder: r, targets } of planned) {
      let created = 0;
      for (const target of targets) {
        const res = await enqueueNotification(tx, {
          idempotencyKey: `${r.key}:${target.channel}`,
          channel: target.channel,
          to: target.to,
          template: r.template,
          subject: r.subject,
          body: r.body,
          params: r.params,
          userId: r.uid,
        });
        if (res.created) created += 1;
      }
      // Another instance may have queued the same reminder since our look-up: then it counts there.
      if (created > 0) n += 1;
      m += created;
    }
    return { reminders: n, messages: m };
  });
  if (messages > 0) await notificationsQueued(deps);
  out.messages += messages;
  return queued;
}

// --- run and worker ----------------------------------------------------------------------------------------------

/** One pass over the cards: queues the expiry and low-data reminders that are due and not yet queued. */
export async function runSimReminders(
  deps: Deps,
  settings: SimRemindSettings = deps.config.simRemind,
): Promise<SimReminderRun> {
  const now = deps.now();
  const out: SimReminderRun = { expiry: 0, dataLow: 0, messages: 0, noChannel: 0 };
  await expiryReminders(deps, settings, now, out);
  await dataReminders(deps, settings, now, out);
  if (out.messages > 0) deps.log.info({ simReminders: out }, 'SIM reminders queued');
  return out;
}

export const REMINDERS_KIND = 'sim_reminders';

/**
 * Asks for a pass now, on whichever instance claims it (after a sync run: usage, status or expiry moved). A no-op
 * when reminders are off (no recurring row) or a pass is running.
 */
export async function wakeSimReminders(deps: Pick<Deps, 'db' | 'now' | 'channels'>): Promise<void> {
  if (await runRecurringNow(deps.db, REMINDERS_KIND, deps.now()))
    await wakeWorkers(deps.channels, REMINDERS_KIND);
}

/**
 * The `sim_reminders` job: a recurring pass in the jobs table, so one instance at a time runs it, every
 * `intervalMs` (the first one interval after the first start) and when a sync run asks. A pass cut off midway is
 * taken over after its lease; what it had queued is not queued again (idempotency keys).
 */
export function simRemindersJob(deps: Deps, intervalMs: number): QueuedJobDefinition<unknown> {
  return {
    name: REMINDERS_KIND,
    everyMs: intervalMs,
    firstRunAfterMs: intervalMs,
    leaseMs: 10 * 60_000,
    maxAttempts: 3,
    backoff: { baseMs: 60_000, maxMs: intervalMs },
    handler: async () => void (await runSimReminders(deps)),
  };
}

/** `intervalMs` 0 starts nothing (tests call runSimReminders themselves). */
export function startSimReminderWorker(deps: Deps, intervalMs: number): { stop(): Promise<void> } {
  if (intervalMs <= 0) return { stop: async () => undefined };
  const worker = new JobWorker(queuedJobKind(deps, simRemindersJob(deps, intervalMs)), {
    log: deps.log,
    channels: deps.channels,
    concurrency: 1,
    // Notices a pass that became due by time; passes asked for by a sync run come by NOTIFY.
    pollMs: Math.min(intervalMs, 60_000),
  });
  worker.start();
  return worker;
}
