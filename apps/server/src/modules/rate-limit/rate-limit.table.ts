import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tstz } from '../../db/columns';

/** Fixed-window counters shared by every server instance (sign-in failures, SMS codes). */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').notNull(),
    windowStart: tstz('window_start').notNull(),
    count: integer('count').notNull().default(0),
    expiresAt: tstz('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);
