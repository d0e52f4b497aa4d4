import { boolean, integer, jsonb, pgTable, serial, text } from 'drizzle-orm/pg-core';
import type { SimOperator, SimProviderKind } from '@cellhub/contract/sim';
import { createdat, updatedat } from '../../db/columns';

/**
 * SIM provider accounts (an operator API, or `manual`). `config` holds the non-secret fields; the secret ones are in
 * `secrets`, a JSON object sealed with deps.box (context `sim-provider:<id>`), as platforms do.
 */
export const simProviders = pgTable('sim_providers', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  kind: text('kind').$type<SimProviderKind>().notNull(),
  operator: text('operator').$type<SimOperator>().notNull(),
  config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
  secrets: text('secrets').notNull().default(''),
  /** Minutes between scheduled syncs; 0 = on demand only. */
  syncIntervalMin: integer('sync_interval_min').notNull().default(60),
  enabled: boolean('enabled').notNull().default(true),
  remark: text('remark').notNull().default(''),
  createdat: createdat(),
  updatedat: updatedat(),
});
export type SimProviderRow = typeof simProviders.$inferSelect;
