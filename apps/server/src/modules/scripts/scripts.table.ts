import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
} from 'drizzle-orm/pg-core';
import type { ScriptErrorEntry } from '@cellhub/contract/scripts';
import { createdat, updatedat } from '../../db/columns';
import { products } from '../products/products.table';
import { users } from '../users/users.table';

/**
 * Decoding/encoding scripts (docs/scripts.md). `product_id` null: shared by an admin. `source` and `version` are the
 * current version's; every version is in script_versions. The counters are added to in batches by the ingest path.
 */
export const scripts = pgTable(
  'scripts',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    productId: integer('product_id').references(() => products.id, { onDelete: 'cascade' }),
    uid: integer('uid').references(() => users.id, { onDelete: 'set null' }),
    source: text('source').notNull(),
    version: integer('version').notNull().default(1),
    enabled: boolean('enabled').notNull().default(true),
    /** Whether a decoded raw uplink is also kept as a raw message (a frame it cannot decode is kept anyway). */
    keepRaw: boolean('keep_raw').notNull().default(false),
    disabledReason: text('disabled_reason', { enum: ['', 'manual', 'failures'] })
      .notNull()
      .default(''),
    calls: bigint('calls', { mode: 'number' }).notNull().default(0),
    errors: bigint('errors', { mode: 'number' }).notNull().default(0),
    consecutiveErrors: integer('consecutive_errors').notNull().default(0),
    totalMs: doublePrecision('total_ms').notNull().default(0),
    recentErrors: jsonb('recent_errors').$type<ScriptErrorEntry[]>().notNull().default([]),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('scripts_product_idx').on(t.productId, t.id), index('scripts_uid_idx').on(t.uid)],
);
export type ScriptRow = typeof scripts.$inferSelect;

/** Every saved source of a script; a rollback adds a version equal to an old one. */
export const scriptVersions = pgTable(
  'script_versions',
  {
    scriptId: integer('script_id')
      .notNull()
      .references(() => scripts.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    source: text('source').notNull(),
    note: text('note').notNull().default(''),
    uid: integer('uid').references(() => users.id, { onDelete: 'set null' }),
    createdat: createdat(),
  },
  (t) => [primaryKey({ columns: [t.scriptId, t.version] })],
);
export type ScriptVersionRow = typeof scriptVersions.$inferSelect;

/** Which script decodes a product's raw uplinks (and encodes its commands): one per product. */
export const scriptBindings = pgTable(
  'script_bindings',
  {
    productId: integer('product_id')
      .primaryKey()
      .references(() => products.id, { onDelete: 'cascade' }),
    scriptId: integer('script_id')
      .notNull()
      .references(() => scripts.id, { onDelete: 'cascade' }),
    createdat: createdat(),
  },
  (t) => [index('script_bindings_script_idx').on(t.scriptId)],
);
