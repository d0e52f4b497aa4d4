import { and, asc, eq, inArray, lt, lte, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../db/client';
import { type BackoffPolicy, decideRetry } from './backoff';
import { type JobRow, jobs } from './jobs.table';
import type { JobContext, JobKind } from './worker';

/** What a handler of the `jobs` table gets besides its payload. */
export interface QueuedJobContext extends JobContext {
  job: JobRow;
  /**
   * Pushes the lease `leaseMs` further (long jobs call it between steps). False when the job is no longer ours:
   * the handler should stop without writing.
   */
  extendLease(): Promise<boolean>;
}

export interface QueuedJobDefinition<P> {
  /** The kind (`jobs.kind`, and the worker's name): lower-case letters, digits and `_`. */
  name: string;
  handler(payload: P, ctx: QueuedJobContext): Promise<void>;
  /** Tries before the failure record; when left out, each row's `max_attempts` (5 unless queued otherwise). */
  maxAttempts?: number;
  /** Default: 30 s doubling to an hour, equal jitter. */
  backoff?: BackoffPolicy;
  /** How long a claim holds without `extendLease()` (default 5 min). */
  leaseMs?: number;
  /** Whether a failure may be retried (default: every failure). */
  retryable?(err: unknown): boolean;
  /**
   * A recurring pass: its one row (key `recurring`) is queued again this long after each run ends, whatever the
   * outcome; a failure is retried with backoff first and kept in `last_error` until a run succeeds.
   */
  everyMs?: number;
  /** A recurring pass's first run, this long after its row is created (default: at once). */
  firstRunAfterMs?: number;
}

export interface QueueDeps {
  db: Db;
  log: FastifyBaseLogger;
  /** The clock leases and due times are read from (tests move it). */
  now(): Date;
}

export const RECURRING_KEY = 'recurring';
const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 30_000, maxMs: 3_600_000 };
const DEFAULT_LEASE_MS = 5 * 60_000;

/**
 * Queues a job of `kind` in the caller's transaction (so it exists exactly when the caller's change does). With a
 * `key`, queueing again is a no-op (`created: false`). Wake the workers after the commit (`wakeWorkers`).
 */
export async function enqueueJob(
  db: DbOrTx,
  kind: string,
  payload: unknown,
  options: { key?: string; runAt?: Date; maxAttempts?: number } = {},
): Promise<{ id: number | undefined; created: boolean }> {
  const [row] = await db
    .insert(jobs)
    .values({
      kind,
      key: options.key ?? null,
      payload: payload ?? {},
      // Whole milliseconds: the claim compares with the server's clock (a JS Date, ms precision), and a job
      // stamped with now()'s microseconds would not be due to a claim made in the same millisecond.
      runAt: options.runAt ?? sql`date_trunc('milliseconds', now())`,
      maxAttempts: options.maxAttempts,
    })
    .onConflictDoNothing()
    .returning({ id: jobs.id });
  return { id: row?.id, created: row !== undefined };
}

/** Makes a recurring kind's next pass due now (e.g. after new data arrived); false when it is running now. */
export async function runRecurringNow(db: DbOrTx, kind: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(jobs)
    .set({ runAt: now })
    .where(and(eq(jobs.kind, kind), eq(jobs.key, RECURRING_KEY), eq(jobs.status, 'queued')))
    .returning({ id: jobs.id });
  return rows.length > 0;
}

/**
 * The job kind of a `jobs`-table definition, for a JobWorker. A recurring definition's row is created by the first
 * claim round (`prepare`).
 */
export function queuedJobKind<P>(deps: QueueDeps, def: QueuedJobDefinition<P>): JobKind<JobRow> {
  const leaseMs = def.leaseMs ?? DEFAULT_LEASE_MS;
  const backoff = def.backoff ?? DEFAULT_BACKOFF;
  const mine = (job: JobRow) =>
    and(eq(jobs.id, job.id), eq(jobs.status, 'running'), eq(jobs.attempts, job.attempts));
  let recurringReady = false;
  const maxAttemptsOf = (job: JobRow) => def.maxAttempts ?? job.maxAttempts;

  /** Writes the outcome if the job is still ours; false when another worker took it over. */
  async function settle(job: JobRow, values: Partial<typeof jobs.$inferInsert>): Promise<boolean> {
    const rows = await deps.db
      .update(jobs)
      .set({ lockedUntil: null, ...values })
      .where(mine(job))
      .returning({ id: jobs.id });
    return rows.length > 0;
  }

  return {
    name: def.name,

    async prepare() {
      if (!def.everyMs || recurringReady) return;
      const runAt = new Date(deps.now().getTime() + (def.firstRunAfterMs ?? 0));
      await enqueueJob(deps.db, def.name, {}, { key: RECURRING_KEY, runAt });
      recurringReady = true;
    },

    async claim(limit) {
      const now = deps.now();
      return deps.db.transaction(async (tx) => {
        const due = await tx
          .select()
          .from(jobs)
          .where(
            and(
              eq(jobs.kind, def.name),
              or(
                and(eq(jobs.status, 'queued'), lte(jobs.runAt, now)),
                and(eq(jobs.status, 'running'), lt(jobs.lockedUntil, now)),
              ),
            ),
          )
          .orderBy(asc(jobs.runAt), asc(jobs.id))
          .limit(limit)
          .for('update', { skipLocked: true });
        if (due.length === 0) return [];
        // A job whose last allowed try was cut off (its lease ran out) gets its failure record instead of a try.
        const interrupted = due.filter((j) => j.status === 'running' && j.attempts >= maxAttemptsOf(j));
        for (const j of interrupted) {
          const error = `interrupted during the last try (${j.lastError ?? 'lease ran out'})`;
          await tx
            .update(jobs)
            .set(
              def.everyMs
                ? {
                    status: 'queued',
                    attempts: 0,
                    lockedUntil: null,
                    lastError: error,
                    runAt: new Date(now.getTime() + def.everyMs),
                  }
                : { status: 'failed', lockedUntil: null, lastError: error, finishedAt: now },
            )
            .where(eq(jobs.id, j.id));
        }
        const ids = due.filter((j) => !interrupted.includes(j)).map((j) => j.id);
        if (ids.length === 0) return [];
        return tx
          .update(jobs)
          .set({
            status: 'running',
            attempts: sql`${jobs.attempts} + 1`,
            lockedUntil: new Date(now.getTime() + leaseMs),
            startedAt: now,
          })
          .where(inArray(jobs.id, ids))
          .returning();
      });
    },

    async release(claimed) {
      for (const job of claimed) {
        await deps.db
          .update(jobs)
          .set({ status: 'queued', attempts: sql`${jobs.attempts} - 1`, lockedUntil: null })
          .where(mine(job));
      }
    },

    async run(job, ctx) {
      const extendLease = async () =>
        !ctx.signal.aborted &&
        (await deps.db
          .update(jobs)
          .set({ lockedUntil: new Date(deps.now().getTime() + leaseMs) })
          .where(mine(job))
          .returning({ id: jobs.id })
          .then((rows) => rows.length > 0));
      let failure: { err: unknown } | undefined;
      try {
        await def.handler(job.payload as P, { ...ctx, job, extendLease });
      } catch (err) {
        failure = { err };
      }
      // A crashed worker writes nothing (in a real crash it could not).
      if (ctx.signal.aborted) return;
      const now = deps.now();
      if (!failure) {
        await settle(
          job,
          def.everyMs
            ? { status: 'queued', attempts: 0, lastError: null, runAt: new Date(now.getTime() + def.everyMs) }
            : { status: 'succeeded', lastError: null, finishedAt: now },
        );
        return;
      }
      const err = failure.err;
      const reason = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 1000);
      const decision = decideRetry(
        backoff,
        { attempts: job.attempts, maxAttempts: maxAttemptsOf(job) },
        def.retryable ? def.retryable(err) : true,
      );
      if (decision.retry) {
        await settle(job, {
          status: 'queued',
          lastError: reason,
          runAt: new Date(now.getTime() + decision.delayMs),
        });
        return;
      }
      deps.log.warn({ err, job: job.id, kind: def.name, attempts: job.attempts }, 'job failed for good');
      await settle(
        job,
        def.everyMs
          ? { status: 'queued', attempts: 0, lastError: reason, runAt: new Date(now.getTime() + def.everyMs) }
          : { status: 'failed', lastError: reason, finishedAt: now },
      );
    },
  };
}
