import { index, integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { createdat, tstz } from '../../db/columns';
import { users } from '../users/users.table';

/** Signed-in sessions. Only the SHA-256 of the bearer token is stored. */
export const sessions = pgTable(
  'sessions',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: tstz('expires_at').notNull(),
    revokedAt: tstz('revoked_at'),
    ip: text('ip').notNull().default(''),
    userAgent: text('user_agent').notNull().default(''),
    createdat: createdat(),
  },
  (t) => [index('sessions_uid_idx').on(t.uid)],
);

/** One-time SMS codes; the code itself is stored as a keyed hash. */
export const smsCodes = pgTable(
  'sms_codes',
  {
    id: serial('id').primaryKey(),
    phone: text('phone').notNull(),
    purpose: text('purpose', { enum: ['login', 'register', 'change_phone'] }).notNull(),
    codeHash: text('code_hash').notNull(),
    expiresAt: tstz('expires_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    consumedAt: tstz('consumed_at'),
    createdat: createdat(),
  },
  (t) => [index('sms_codes_phone_idx').on(t.phone, t.purpose, t.createdat)],
);

/** WeChat QR tickets: created by the console, settled by the OAuth callback, consumed by the poll. */
export const wechatTickets = pgTable('wechat_tickets', {
  ticket: text('ticket').primaryKey(),
  purpose: text('purpose', { enum: ['login', 'bind'] }).notNull(),
  /** For `bind`: the account to bind. */
  uid: integer('uid').references(() => users.id, { onDelete: 'cascade' }),
  status: text('status', { enum: ['pending', 'done', 'failed'] })
    .notNull()
    .default('pending'),
  /** For a settled `login`: the account the openid belongs to. */
  resultUid: integer('result_uid').references(() => users.id, { onDelete: 'cascade' }),
  error: text('error'),
  expiresAt: tstz('expires_at').notNull(),
  consumedAt: tstz('consumed_at'),
  createdat: createdat(),
});
