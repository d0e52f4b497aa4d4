/**
 * The SIM sync job: durable runs in sim_sync_runs, scheduled per provider every `sync_interval_min` and on demand.
 * A run pulls status, identity, this month's usage (with daily figures where offered) and the quota of each card of
 * the provider through its adapter, then refreshes the cards' flags. Failures the operator may recover from
 * (rate limit, 5xx, timeouts, malformed replies) put the run in `retry_wait` with backoff; refused credentials and
 * business refusals fail it. Runs are claimed with one UPDATE ... FOR UPDATE SKIP LOCKED and a lease, so any number
 * of instances share them and a crashed instance's run is taken over when its lease ends. The loop is the `sim_sync`
 * kind of src/jobs (JobWorker: poll, NOTIFY wake on `jobs_sim_sync`, graceful stop).
 */
import { and, asc, count, desc, eq, gt, inArray, lte, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { SimSyncRun, simSyncRunQuery } from '@cellhub/contract/sim';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { type BackoffPolicy, backoffMs as jobBackoffMs } from '../../jobs/backoff';
import { type JobKind, JobWorker, wakeWorkers } from '../../jobs/worker';
import { writeAudit } from '../audit/audit.service';
import {
  AuthError,
  NotFoundError,
  ProviderError,
  RateLimitError,
  SimProviderError,
} from './providers/errors';
import type { SimAdapter, SimCardInfo } from './providers/types';
import { monthOf } from './sim-common';
import { refreshExhausted } from './sim-cards.service';
import { wakeSimReminders } from './sim-reminders.service';
import { simCards, simUsageDaily, simUsageMonthly } from './sim-cards.table';
import { adapterOf, findProvider } from './sim-providers.service';
import { type SimProviderRow, simProviders } from './sim-providers.table';
import { type SimSyncRunRow, simSyncRuns } from './sim-sync.table';

/** Attempts of one run before it fails for good. */
export const SYNC_MAX_ATTEMPTS = 5;
/** First retry after this long; doubled each attempt, at most SYNC_MAX_BACKOFF_MS. */
export const SYNC_BACKOFF_MS = 30_000;
const SYNC_MAX_BACKOFF_MS = 3_600_000;
/** How long a claimed run stays ours without progress; extended after each page of cards. */
export const SYNC_LEASE_MS = 10 * 60_000;
const PAGE = 100;
const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;
const ACTIVE = ['queued', 'running', 'retry_wait'] as const;

// --- read ------------------------------------------------------------------------------------------------------

function toRun(r: SimSyncRunRow, providerName: string): SimSyncRun {
  return {
    id: r.id,
    provider_id: r.providerId,
    provider_name: providerName,
    trigger: r.trigger,
    status: r.status,
    attempts: r.attempts,
    next_attempt_at:
      r.status === 'retry_wait' || r.status === 'queued' ? r.nextAttemptAt.toISOString() : null,
    started_at: r.startedAt ? r.startedAt.toISOString() : null,
    finished_at: r.finishedAt ? r.finishedAt.toISOString() : null,
    cards_total: r.cardsTotal,
    cards_updated: r.cardsUpdated,
    cards_not_found: r.cardsNotFound,
    cards_flagged: r.cardsFlagged,
    error: r.error,
    createdat: r.createdat.toISOString(),
  };
}

export async function getSyncRun(db: DbOrTx, id: number): Promise<SimSyncRun | undefined> {
  const [row] = await db
    .select({ r: simSyncRuns, name: simProviders.name })
    .from(simSyncRuns)
    .innerJoin(simProviders, eq(simProviders.id, simSyncRuns.providerId))
    .where(eq(simSyncRuns.id, id));
  return row ? toRun(row.r, row.name) : undefined;
}

export async function listSyncRuns(
  deps: Deps,
  actor: Actor,
  query: z.infer<typeof simSyncRunQuery>,
): Promise<{ items: SimSyncRun[]; total: number }> {
  requireAdmin(actor);
  const conditions: (SQL | undefined)[] = [];
  if (query.provider_id) conditions.push(eq(simSyncRuns.providerId, query.provider_id));
  if (query.status) conditions.push(eq(simSyncRuns.status, query.status));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ r: simSyncRuns, name: simProviders.name })
      .from(simSyncRuns)
      .innerJoin(simProviders, eq(simProviders.id, simSyncRuns.providerId))
      .where(where)
      .orderBy(desc(simSyncRuns.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(simSyncRuns).where(where),
  ]);
  return { items: rows.map((r) => toRun(r.r, r.name)), total: total?.n ?? 0 };
}

// --- enqueue ---------------------------------------------------------------------------------------------------

/**
 * POST .../sync: queues a run now, or answers the provider's run already queued, running or waiting to retry
 * (at most one is unfinished per provider).
 */
export async function requestSync(deps: Deps, actor: Actor, providerId: number): Promise<SimSyncRun> {
  requireAdmin(actor);
  const provider = await findProvider(deps.db, providerId);
  if (!provider) throw new AppError(10107);
  const now = deps.now();
  const id = await deps.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(simSyncRuns)
      .values({ providerId, trigger: 'manual', status: 'queued', nextAttemptAt: now, createdat: now })
      .onConflictDoNothing()
      .returning({ id: simSyncRuns.id });
    if (created) {
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'sim_provider_sync',
        target: `sim-provider:${providerId}`,
        ip: actor.ip,
        detail: { run: created.id },
      });
      return created.id;
    }
    const [active] = await tx
      .select({ id: simSyncRuns.id })
      .from(simSyncRuns)
      .where(and(eq(simSyncRuns.providerId, providerId), inArray(simSyncRuns.status, [...ACTIVE])));
    if (!active) throw new AppError(10109);
    return active.id;
  });
  // Every instance's worker looks at once (the run is committed); losing this only costs a poll interval.
  await wakeWorkers(deps.channels, SYNC_KIND).catch(() => undefined);
  const run = await getSyncRun(deps.db, id);
  if (!run) throw new AppError(10107);
  return run;
}

/**
 * Queues a `schedule` run for every enabled remote provider whose last run started `sync_interval_min` ago or
 * more. Safe on any number of instances: the partial unique index lets only one unfinished run per provider in.
 */
export async function scheduleDueSyncs(deps: Deps): Promise<number> {
  const now = deps.now();
  const res = await deps.db.execute(sql`
    insert into ${simSyncRuns} (provider_id, trigger, status, next_attempt_at, createdat, updatedat)
    select p.id, 'schedule', 'queued', ${ts(now)}, ${ts(now)}, ${ts(now)}
    from ${simProviders} p
    where p.enabled and p.kind <> 'manual' and p.sync_interval_min > 0
      and not exists (
        select 1 from ${simSyncRuns} r
        where r.provider_id = p.id
          and (r.status in ('queued', 'running', 'retry_wait')
               or r.createdat > ${ts(now)} - make_interval(mins => p.sync_interval_min)))
    on conflict do nothing
    returning id`);
  return (res as unknown as { rows: unknown[] }).rows.length;
}

// --- claim and run ---------------------------------------------------------------------------------------------

export const SYNC_KIND = 'sim_sync';

/** Takes one due run (queued or retry time reached, or a running one whose lease expired); undefined when none. */
export async function claimRun(deps: Pick<Deps, 'db' | 'now'>): Promise<SimSyncRunRow | undefined> {
  const now = deps.now();
  const lease = new Date(now.getTime() + SYNC_LEASE_MS);
  const res = await deps.db.execute(sql`
    update ${simSyncRuns} set status = 'running', attempts = attempts + 1, locked_until = ${ts(lease)},
      started_at = coalesce(started_at, ${ts(now)}), updatedat = ${ts(now)}
    where id = (
      select id from ${simSyncRuns}
      where (status in ('queued', 'retry_wait') and next_attempt_at <= ${ts(now)})
         or (status = 'running' and locked_until < ${ts(now)})
      order by next_attempt_at, id
      limit 1
      for update skip locked)
    returning id`);
  const id = (res as unknown as { rows: { id: number }[] }).rows[0]?.id;
  if (id === undefined) return undefined;
  const [row] = await deps.db
    .select()
    .from(simSyncRuns)
    .where(eq(simSyncRuns.id, Number(id)));
  return row;
}

interface Progress {
  total: number;
  updated: number;
  notFound: number;
  flagged: number;
}

const describe = (err: unknown): string =>
  err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 500) : String(err).slice(0, 500);

/** Per-card failures that concern only that card; anything else stops the run. */
const cardLevel = (err: unknown): boolean =>
  err instanceof NotFoundError || (err instanceof ProviderError && !err.retryable);

async function applyInfo(db: DbOrTx, info: SimCardInfo, now: Date): Promise<void> {
  await db
    .update(simCards)
    .set({
      status: info.status,
      rawStatus: info.rawStatus,
      msisdn: info.msisdn
        ? sql`case when ${simCards.msisdn} = '' then ${info.msisdn} else ${simCards.msisdn} end`
        : undefined,
      imsi: info.imsi
        ? sql`case when ${simCards.imsi} = '' then ${info.imsi} else ${simCards.imsi} end`
        : undefined,
      activatedAt: info.activatedAt ?? undefined,
      operatorExpiresAt: info.expiresAt,
      lastSyncedAt: now,
      syncError: null,
    })
    .where(eq(simCards.iccid, info.iccid));
}

async function pullUsage(deps: Deps, adapter: SimAdapter, card: { id: number; iccid: string }, now: Date) {
  const month = monthOf(now);
  if (adapter.capabilities.monthlyUsage) {
    const usage = await adapter.getUsage(card.iccid, { month, daily: adapter.capabilities.dailyUsage });
    if (usage) {
      await deps.db.transaction(async (tx) => {
        await tx
          .insert(simUsageMonthly)
          .values({ cardId: card.id, month: usage.month, usedBytes: usage.usedBytes, source: 'sync' })
          .onConflictDoUpdate({
            target: [simUsageMonthly.cardId, simUsageMonthly.month],
            set: { usedBytes: usage.usedBytes, source: 'sync', updatedat: now },
          });
        for (const d of usage.daily ?? []) {
          await tx
            .insert(simUsageDaily)
            .values({ cardId: card.id, day: d.date, usedBytes: d.usedBytes, source: 'sync' })
            .onConflictDoUpdate({
              target: [simUsageDaily.cardId, simUsageDaily.day],
              set: { usedBytes: d.usedBytes, source: 'sync', updatedat: now },
            });
        }
      });
    }
  }
  if (adapter.capabilities.quota) {
    const quota = await adapter.getQuota(card.iccid);
    await deps.db
      .update(simCards)
      .set({
        quotaTotalBytes: quota?.totalBytes ?? null,
        quotaUsedBytes: quota?.usedBytes ?? null,
        quotaRemainingBytes: quota?.remainingBytes ?? null,
        ...(quota?.expiresAt ? { operatorExpiresAt: quota.expiresAt } : {}),
      })
      .where(eq(simCards.id, card.id));
  }
}

/** The run is no longer this worker's (its lease ran out and another took it, or the worker was abandoned). */
class LostRun extends Error {}

/** Only the claim that holds the run writes its state. */
const mine = (run: SimSyncRunRow) =>
  and(eq(simSyncRuns.id, run.id), eq(simSyncRuns.status, 'running'), eq(simSyncRuns.attempts, run.attempts));

/** Pulls every card of the provider, page by page; throws what should stop the run. */
async function pullProvider(
  deps: Deps,
  run: SimSyncRunRow,
  provider: SimProviderRow,
  progress: Progress,
  signal: AbortSignal | undefined,
) {
  const adapter = provider.kind === 'manual' ? undefined : adapterOf(deps, provider);
  let lastId = 0;
  for (;;) {
    if (signal?.aborted) throw new LostRun('worker abandoned');
    const now = deps.now();
    const page = await deps.db
      .select({ id: simCards.id, iccid: simCards.iccid, exhausted: simCards.exhausted })
      .from(simCards)
      .where(and(eq(simCards.providerId, provider.id), gt(simCards.id, lastId)))
      .orderBy(asc(simCards.id))
      .limit(PAGE);
    if (page.length === 0) break;
    lastId = page[page.length - 1]!.id;
    progress.total += page.length;
    if (adapter?.capabilities.remote) {
      const found = new Set<string>();
      if (adapter.capabilities.cards) {
        const result = await adapter.getCards(page.map((c) => c.iccid));
        for (const info of result.cards) {
          await applyInfo(deps.db, info, now);
          found.add(info.iccid);
        }
        if (result.notFound.length > 0) {
          progress.notFound += result.notFound.length;
          await deps.db
            .update(simCards)
            .set({ syncError: 'not known to the operator', lastSyncedAt: now })
            .where(inArray(simCards.iccid, result.notFound));
        }
      }
      for (const card of page) {
        if (adapter.capabilities.cards && !found.has(card.iccid)) continue;
        try {
          await pullUsage(deps, adapter, card, now);
          progress.updated += 1;
        } catch (err) {
          if (!cardLevel(err)) throw err;
          if (err instanceof NotFoundError) progress.notFound += 1;
          await deps.db
            .update(simCards)
            .set({ syncError: describe(err), lastSyncedAt: now })
            .where(eq(simCards.id, card.id));
        }
      }
    }
    const before = new Set(page.filter((c) => !c.exhausted).map((c) => c.id));
    const exhausted = await refreshExhausted(
      deps.db,
      page.map((c) => c.id),
      now,
    );
    progress.flagged += exhausted.filter((id) => before.has(id)).length;
    if (signal?.aborted) throw new LostRun('worker abandoned');
    const extended = await deps.db
      .update(simSyncRuns)
      .set({
        lockedUntil: new Date(deps.now().getTime() + SYNC_LEASE_MS),
        cardsTotal: progress.total,
        cardsUpdated: progress.updated,
        cardsNotFound: progress.notFound,
      })
      .where(mine(run))
      .returning({ id: simSyncRuns.id });
    if (extended.length === 0) throw new LostRun('another worker took the run over');
  }
  // Cards whose package expired since this provider's previous run are counted as flagged by this one.
  const [previous] = await deps.db
    .select({ at: simSyncRuns.startedAt })
    .from(simSyncRuns)
    .where(and(eq(simSyncRuns.providerId, provider.id), eq(simSyncRuns.status, 'succeeded')))
    .orderBy(desc(simSyncRuns.id))
    .limit(1);
  const now = deps.now();
  const expiredSince = and(
    eq(simCards.providerId, provider.id),
    lte(simCards.expiresAt, now),
    previous?.at ? gt(simCards.expiresAt, previous.at) : undefined,
  );
  const [expired] = await deps.db.select({ n: count() }).from(simCards).where(expiredSince);
  progress.flagged += expired?.n ?? 0;
}

/** Exact doubling: the console shows the next attempt's time, and operators read it against this table. */
const SYNC_BACKOFF: BackoffPolicy = { baseMs: SYNC_BACKOFF_MS, maxMs: SYNC_MAX_BACKOFF_MS, jitter: 'none' };

export function backoffMs(attempts: number): number {
  return jobBackoffMs(SYNC_BACKOFF, attempts);
}

/**
 * Runs one claimed run to its next state (succeeded, retry_wait or failed). Answers undefined when the run stopped
 * being ours on the way (lease lost, worker abandoned): then it writes no outcome.
 */
export async function executeRun(
  deps: Deps,
  run: SimSyncRunRow,
  signal?: AbortSignal,
): Promise<SimSyncRunRow['status'] | undefined> {
  const progress: Progress = { total: 0, updated: 0, notFound: 0, flagged: 0 };
  const provider = await findProvider(deps.db, run.providerId);
  let status: SimSyncRunRow['status'] = 'succeeded';
  let error: string | null = null;
  let nextAttemptAt = deps.now();
  try {
    // A deleted provider takes its runs with it (cascade); this only guards the moment in between.
    if (provider) await pullProvider(deps, run, provider, progress, signal);
    else {
      status = 'failed';
      error = 'the provider was deleted';
    }
  } catch (err) {
    if (err instanceof LostRun) return undefined;
    error = describe(err);
    const retryable = !(err instanceof SimProviderError) || err.retryable;
    if (err instanceof AuthError || !retryable || run.attempts >= SYNC_MAX_ATTEMPTS) {
      status = 'failed';
    } else {
      status = 'retry_wait';
      const wait = Math.max(
        backoffMs(run.attempts),
        err instanceof RateLimitError ? err.retryAfterSeconds * 1000 : 0,
      );
      nextAttemptAt = new Date(deps.now().getTime() + wait);
    }
    if (!(err instanceof SimProviderError))
      deps.log.warn({ err, run: run.id }, 'sim sync run failed unexpectedly');
  }
  // A crashed worker writes nothing (tests abandon one to play a crash).
  if (signal?.aborted) return undefined;
  const now = deps.now();
  const written = await deps.db
    .update(simSyncRuns)
    .set({
      status,
      error,
      nextAttemptAt,
      lockedUntil: null,
      finishedAt: status === 'retry_wait' ? null : now,
      cardsTotal: progress.total,
      cardsUpdated: progress.updated,
      cardsNotFound: progress.notFound,
      cardsFlagged: progress.flagged,
    })
    .where(mine(run))
    .returning({ id: simSyncRuns.id });
  if (written.length === 0) return undefined;
  // Usage, quota, status or expiry may have moved: reminders due now go out without waiting for their interval.
  await wakeSimReminders(deps).catch((err: unknown) =>
    deps.log.warn({ err }, 'sim sync: waking the reminders failed'),
  );
  return status;
}

/** Claims and runs due runs one after another (at most `limit`); answers how many ran. */
export async function runDueSyncs(deps: Deps, limit = 10): Promise<number> {
  let n = 0;
  while (n < limit) {
    const run = await claimRun(deps);
    if (!run) break;
    await executeRun(deps, run);
    n += 1;
  }
  return n;
}

/** The `sim_sync` job kind: due runs of sim_sync_runs; each claim round first queues the runs schedules made due. */
export function simSyncKind(deps: Deps): JobKind<SimSyncRunRow> {
  return {
    name: SYNC_KIND,
    prepare: async () => void (await scheduleDueSyncs(deps)),
    async claim(limit) {
      const claimed: SimSyncRunRow[] = [];
      while (claimed.length < limit) {
        const run = await claimRun(deps);
        if (!run) break;
        claimed.push(run);
      }
      return claimed;
    },
    run: async (run, ctx) => void (await executeRun(deps, run, ctx.signal)),
    async release(runs) {
      for (const run of runs) {
        await deps.db
          .update(simSyncRuns)
          .set({ status: 'queued', attempts: sql`${simSyncRuns.attempts} - 1`, lockedUntil: null })
          .where(mine(run));
      }
    },
  };
}

/**
 * The worker: every `tickMs` it schedules due runs and works through the due ones, one at a time (an operator's
 * API is not hammered by one instance); a requested run wakes it at once, on any instance. `tickMs` 0 starts nothing
 * (tests drive runDueSyncs themselves).
 */
export function startSimSyncWorker(deps: Deps, tickMs: number): { stop(): Promise<void> } {
  if (tickMs <= 0) return { stop: async () => undefined };
  const worker = new JobWorker(simSyncKind(deps), {
    log: deps.log,
    channels: deps.channels,
    concurrency: 1,
    pollMs: tickMs,
  });
  worker.start();
  return worker;
}
