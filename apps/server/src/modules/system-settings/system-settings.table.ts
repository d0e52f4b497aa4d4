import { boolean, pgTable, text } from 'drizzle-orm/pg-core';
import { updatedat } from '../../db/columns';

/** Key/value settings. When `secret`, `value` holds a sealed (AES-256-GCM) string, never the plaintext. */
export const systemSettings = pgTable('system_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  secret: boolean('secret').notNull().default(false),
  updatedat: updatedat(),
});
