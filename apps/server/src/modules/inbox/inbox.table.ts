import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { InboxCategory, InboxKind, InboxTargetType } from '@cellhub/contract/inbox';
import { createdat, tstz } from '../../db/columns';
import { users } from '../users/users.table';

/**
 * The message box: one row per message and user. `dedupe_key` makes producers that may run twice (the SIM reminder
 * pass on two instances, a retried job) write a message once per user.
 */
export const inboxMessages = pgTable(
  'inbox_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<InboxKind>().notNull(),
    category: text('category').$type<InboxCategory>().notNull(),
    params: jsonb('params').$type<Record<string, string | number>>().notNull().default({}),
    targetType: text('target_type').$type<InboxTargetType>(),
    targetKey: text('target_key'),
    dedupeKey: text('dedupe_key'),
    createdat: createdat(),
    readAt: tstz('read_at'),
  },
  (t) => [
    // The list pages newest first per user (and per tab); the badge counts the unread ones.
    index('inbox_messages_uid_idx').on(t.uid, t.category, t.id),
    index('inbox_messages_unread_idx')
      .on(t.uid, t.category)
      .where(sql`${t.readAt} is null`),
    uniqueIndex('inbox_messages_dedupe_uq').on(t.uid, t.dedupeKey),
  ],
);
export type InboxMessageRow = typeof inboxMessages.$inferSelect;
export type NewInboxMessage = typeof inboxMessages.$inferInsert;
