import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdat, tstz, updatedat } from '../db/columns';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/**
 * Jobs of the kinds that have no table of their own (jobs/queue.ts): one-off work queued with an optional key
 * (unique per kind: queueing twice leaves one row), and recurring passes (one row per kind, key `recurring`,
 * queued again after each run). Claimed with FOR UPDATE SKIP LOCKED under a lease (`locked_until`); the outcome
 * is written only while the row is still the claimer's (same `attempts`, still `running`).
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    key: text('key'),
    payload: jsonb('payload').$type<unknown>().notNull().default({}),
    status: text('status').$type<JobStatus>().notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(5),
    runAt: tstz('run_at').notNull().defaultNow(),
    /** While `running`: when the claim expires and another worker may take the job again. */
    lockedUntil: tstz('locked_until'),
    startedAt: tstz('started_at'),
    finishedAt: tstz('finished_at'),
    /** The last failure (kept on a recurring job until a run succeeds): the failure record. */
    lastError: text('last_error'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    uniqueIndex('jobs_kind_key_uq').on(t.kind, t.key),
    // The claim: only unfinished rows are indexed.
    index('jobs_due_idx')
      .on(t.kind, t.runAt)
      .where(sql`${t.status} in ('queued', 'running')`),
  ],
);
export type JobRow = typeof jobs.$inferSelect;
