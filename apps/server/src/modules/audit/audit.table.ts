import { bigserial, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdat } from '../../db/columns';

/** Who did what. No foreign key on uid: the trail must outlive the account. */
export const auditLogs = pgTable(
  'audit_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    uid: integer('uid'),
    action: text('action').notNull(),
    target: text('target').notNull().default(''),
    ip: text('ip').notNull().default(''),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    createdat: createdat(),
  },
  (t) => [index('audit_logs_uid_idx').on(t.uid, t.createdat), index('audit_logs_action_idx').on(t.action)],
);
