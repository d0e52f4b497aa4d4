import { sql } from 'drizzle-orm';
import { index, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { SimSyncStatus } from '@cellhub/contract/sim';
import { createdat, tstz, updatedat } from '../../db/columns';
import { simProviders } from './sim-providers.table';

/**
 * Durable sync runs, one per provider pull. At most one unfinished run per provider (partial unique index), so the
 * scheduler on every instance may insert with ON CONFLICT DO NOTHING; workers claim due runs with
 * FOR UPDATE SKIP LOCKED and hold them for a lease (`locked_until`), after which another instance may take over.
 */
export const simSyncRuns = pgTable(
  'sim_sync_runs',
  {
    id: serial('id').primaryKey(),
    providerId: integer('provider_id')
      .notNull()
      .references(() => simProviders.id, { onDelete: 'cascade' }),
    trigger: text('trigger').$type<'schedule' | 'manual'>().notNull(),
    status: text('status').$type<SimSyncStatus>().notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: tstz('next_attempt_at').notNull().defaultNow(),
    lockedUntil: tstz('locked_until'),
    startedAt: tstz('started_at'),
    finishedAt: tstz('finished_at'),
    cardsTotal: integer('cards_total').notNull().default(0),
    cardsUpdated: integer('cards_updated').notNull().default(0),
    cardsNotFound: integer('cards_not_found').notNull().default(0),
    cardsFlagged: integer('cards_flagged').notNull().default(0),
    error: text('error'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    uniqueIndex('sim_sync_runs_active_uq')
      .on(t.providerId)
      .where(sql`${t.status} in ('queued', 'running', 'retry_wait')`),
    index('sim_sync_runs_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} in ('queued', 'running', 'retry_wait')`),
    index('sim_sync_runs_provider_idx').on(t.providerId, t.id),
  ],
);
export type SimSyncRunRow = typeof simSyncRuns.$inferSelect;
