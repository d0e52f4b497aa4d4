import { and, asc, eq, gt, gte, inArray, lt, notInArray, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { backoffMs as jobBackoffMs } from '../../jobs/backoff';
import { type JobKind, JobWorker, type WakeChannels } from '../../jobs/worker';
import type { ChannelDeps } from './delivery';
import { DeliveryError, deliver } from './notify.channels';
import { NOTIFY_KIND } from './notify.service';
import { type DeliveryRow, notifyDeliveries } from './notify.table';

const BATCH = 20;
const WINDOW_MS = 60_000;
const MAX_BACKOFF_MS = 60 * 60_000;

export interface NotifyWorker {
  /** Claims the due messages (one batch), sends them and records the outcome. Answers how many were claimed. */
  runOnce(): Promise<number>;
  /** Polls every NOTIFY_POLL_MS and answers wake-ups on `jobs_notify` (`notificationsQueued`, any instance). */
  start(): void;
  /** Stops claiming, gives back claims not started, waits for the sends in progress. */
  stop(): Promise<void>;
  /** Tests: a crash. Sends in progress write nothing afterwards; their rows wait for the lease. */
  abandon(): void;
}

export interface NotifyWorkerOptions {
  /** Delay factor source for the jitter, for tests; Math.random by default. */
  random?: () => number;
}

/**
 * The delivery worker (docs/notifications.md "Delivery guarantees"): the `notify` job kind of src/jobs, whose
 * JobWorker runs the loop (up to BATCH sends at once, wake-ups on `jobs_notify` after an enqueue committed on any
 * instance, a poll every NOTIFY_POLL_MS, graceful stop). Any number of them, in any number of server instances, share the table:
 *
 * - a claim is one short transaction: due rows are locked with FOR UPDATE SKIP LOCKED (two workers never take one
 *   row), marked `sending` with a lease (`locked_until`) and their attempt counted, then the transaction commits
 *   and the provider is called outside it;
 * - per recipient (channel + to) at most NOTIFY_RATE_PER_MINUTE messages are sent or in flight in any 60 s; the rest
 *   of a claim is deferred to when the window frees a slot (never dropped). The count runs under a transaction-level
 *   advisory lock per recipient, so two workers cannot both take the last slot;
 * - the outcome is written only if the row is still ours (same attempt, still `sending`): a worker that outlived its
 *   lease cannot overwrite the result of the worker that took the row over;
 * - a failure is retried after base × 2^(attempt−1) (at most an hour) with equal jitter, until `max_attempts`;
 *   then (or at once for a permanent refusal) the row becomes `failed` with `last_error`: the failure record.
 *
 * A row whose lease ran out (its worker died mid-send) is taken again. Whether the provider got that message is
 * unknown, so this is the one case that can send twice; it needs a crash during a provider call.
 */
export function createNotifyWorker(
  deps: ChannelDeps & { channels?: WakeChannels },
  options: NotifyWorkerOptions = {},
): NotifyWorker {
  const cfg = deps.config.notify;
  const random = options.random ?? Math.random;
  const leaseMs = 4 * cfg.sendTimeoutMs + 30_000;

  async function claim(limit: number): Promise<DeliveryRow[]> {
    const now = deps.now();
    // Dates here have millisecond resolution, the database's now() microseconds: a row queued earlier in this same
    // millisecond is due too.
    const dueBy = new Date(now.getTime() + 1);
    return deps.db.transaction(async (tx) => {
      const due = await tx
        .select()
        .from(notifyDeliveries)
        .where(
          or(
            and(eq(notifyDeliveries.status, 'pending'), lt(notifyDeliveries.nextAttemptAt, dueBy)),
            and(eq(notifyDeliveries.status, 'sending'), lt(notifyDeliveries.lockedUntil, now)),
          ),
        )
        .orderBy(asc(notifyDeliveries.nextAttemptAt), asc(notifyDeliveries.id))
        .limit(limit)
        .for('update', { skipLocked: true });
      if (due.length === 0) return [];

      const groups = new Map<string, DeliveryRow[]>();
      for (const row of due) {
        const key = `${row.channel}:${row.recipient}`;
        groups.set(key, [...(groups.get(key) ?? []), row]);
      }
      const claimed: DeliveryRow[] = [];
      // Sorted, so two workers take the advisory locks in the same order.
      for (const key of [...groups.keys()].sort()) {
        const rows = groups.get(key)!;
        claimed.push(...(await claimGroup(tx, key, rows, now)));
      }
      return claimed;
    });
  }

  async function claimGroup(tx: DbOrTx, key: string, rows: DeliveryRow[], now: Date): Promise<DeliveryRow[]> {
    const { channel, recipient } = rows[0]!;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`cellhub.notify:${key}`}))`);
    const ids = rows.map((r) => r.id);
    const windowStart = new Date(now.getTime() - WINDOW_MS);
    const [usage] = await tx
      .select({
        used: sql<number>`count(*)::int`,
        oldest: sql<
          string | null
        >`min(coalesce(${notifyDeliveries.sentat}, ${now.toISOString()}::timestamptz))`,
      })
      .from(notifyDeliveries)
      .where(
        and(
          eq(notifyDeliveries.channel, channel),
          eq(notifyDeliveries.recipient, recipient),
          or(
            and(eq(notifyDeliveries.status, 'sent'), gt(notifyDeliveries.sentat, windowStart)),
            and(
              eq(notifyDeliveries.status, 'sending'),
              gte(notifyDeliveries.lockedUntil, now),
              notInArray(notifyDeliveries.id, ids),
            ),
          ),
        ),
      );
    const used = usage?.used ?? 0;
    const free = Math.max(0, cfg.ratePerMinute - used);
    const take = rows.slice(0, free);
    const wait = rows.slice(free);

    const out: DeliveryRow[] = [];
    const exhausted = take.filter((r) => r.status === 'sending' && r.attempts >= r.maxAttempts);
    for (const row of exhausted) {
      await tx
        .update(notifyDeliveries)
        .set({
          status: 'failed',
          lockedUntil: null,
          lastError: `interrupted during the last try (${row.lastError ?? 'worker stopped while sending'})`,
        })
        .where(eq(notifyDeliveries.id, row.id));
    }
    const sendable = take.filter((r) => !exhausted.includes(r));
    if (sendable.length > 0) {
      const updated = await tx
        .update(notifyDeliveries)
        .set({
          status: 'sending',
          attempts: sql`${notifyDeliveries.attempts} + 1`,
          lockedUntil: new Date(now.getTime() + leaseMs),
        })
        .where(
          inArray(
            notifyDeliveries.id,
            sendable.map((r) => r.id),
          ),
        )
        .returning();
      out.push(...updated);
    }
    if (wait.length > 0) {
      const oldest = usage?.oldest ? new Date(usage.oldest).getTime() : now.getTime();
      // Rows taken now fill the window too; the first slot frees when the oldest of the window ages out.
      const nextSlot = Math.max(now.getTime() + 1000, (used > 0 ? oldest : now.getTime()) + WINDOW_MS);
      await tx
        .update(notifyDeliveries)
        .set({ status: 'pending', nextAttemptAt: new Date(nextSlot), lockedUntil: null })
        .where(
          inArray(
            notifyDeliveries.id,
            wait.map((r) => r.id),
          ),
        );
    }
    return out;
  }

  const backoffMs = (attempt: number) =>
    jobBackoffMs({ baseMs: cfg.retryBaseMs, maxMs: MAX_BACKOFF_MS }, attempt, random);

  const mine = (row: DeliveryRow) =>
    and(
      eq(notifyDeliveries.id, row.id),
      eq(notifyDeliveries.status, 'sending'),
      eq(notifyDeliveries.attempts, row.attempts),
    );

  async function finish(row: DeliveryRow, signal: AbortSignal): Promise<void> {
    try {
      const result = await deliver(deps, row);
      // A crashed worker writes nothing (tests abandon a worker to play one).
      if (signal.aborted) return;
      await deps.db
        .update(notifyDeliveries)
        .set({
          status: 'sent',
          sentat: deps.now(),
          lockedUntil: null,
          lastError: null,
          providerMessageId: result.providerMessageId ?? null,
        })
        .where(mine(row));
    } catch (err) {
      if (signal.aborted) return;
      const known = err instanceof DeliveryError;
      if (!known) deps.log.error({ err, delivery: row.id }, 'notification send crashed');
      const reason = known ? err.message : `unexpected error: ${(err as Error).message}`;
      const retry = (!known || err.retryable) && row.attempts < row.maxAttempts;
      if (retry) {
        await deps.db
          .update(notifyDeliveries)
          .set({
            status: 'pending',
            lockedUntil: null,
            lastError: reason,
            nextAttemptAt: new Date(deps.now().getTime() + backoffMs(row.attempts)),
          })
          .where(mine(row));
      } else {
        await deps.db
          .update(notifyDeliveries)
          .set({ status: 'failed', lockedUntil: null, lastError: reason })
          .where(mine(row));
        deps.log.warn(
          { delivery: row.id, channel: row.channel, attempts: row.attempts, reason },
          'notification failed for good',
        );
      }
    }
  }

  const kind: JobKind<DeliveryRow> = {
    name: NOTIFY_KIND,
    claim,
    run: (row, ctx) => finish(row, ctx.signal),
    async release(rows) {
      for (const row of rows) {
        await deps.db
          .update(notifyDeliveries)
          .set({ status: 'pending', attempts: sql`${notifyDeliveries.attempts} - 1`, lockedUntil: null })
          .where(mine(row));
      }
    },
  };
  const worker = new JobWorker(kind, {
    log: deps.log,
    channels: deps.channels,
    concurrency: BATCH,
    pollMs: cfg.pollMs,
  });

  return {
    runOnce: () => worker.runOnce(),
    start: () => worker.start(),
    stop: () => worker.stop(),
    abandon: () => worker.abandon(),
  };
}
