import {
  bigserial,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { AccessKeyVerifyChannel } from '@cellhub/contract/access-keys';
import type { AccessScope } from '@cellhub/contract/access';
import { createdat, tstz, updatedat } from '../../db/columns';
import { users } from '../users/users.table';

/**
 * A user's access key for the signed open API (docs/open-api.md). `secret` is sealed with the secret box (context
 * `access-key:<access_key>`), not hashed: the server needs the plaintext to recompute each request's HMAC.
 * A key signs nothing until `verified` (a code sent to the owner's phone or email, access_key_codes).
 */
export const accessKeys = pgTable(
  'access_keys',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    accessKey: text('access_key').notNull(),
    secret: text('secret').notNull(),
    name: text('name').notNull(),
    scopes: text('scopes').array().$type<AccessScope[]>().notNull(),
    ipAllow: text('ip_allow').array().$type<string[]>().notNull(),
    expiresAt: tstz('expires_at'),
    enabled: boolean('enabled').notNull().default(true),
    verified: boolean('verified').notNull().default(false),
    lastUsedAt: tstz('last_used_at'),
    lastUsedIp: text('last_used_ip'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    uniqueIndex('access_keys_access_key_uq').on(t.accessKey),
    index('access_keys_uid_idx').on(t.uid, t.id),
  ],
);
export type AccessKeyRow = typeof accessKeys.$inferSelect;

/**
 * Nonces seen within the timestamp window. The primary key makes a reuse fail on insert, on whichever instance it
 * arrives; rows older than the window are pruned (access-keys.plugin.ts).
 */
export const accessKeyNonces = pgTable(
  'access_key_nonces',
  {
    accessKeyId: integer('access_key_id')
      .notNull()
      .references(() => accessKeys.id, { onDelete: 'cascade' }),
    nonce: text('nonce').notNull(),
    seenAt: tstz('seen_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.accessKeyId, t.nonce] }),
    index('access_key_nonces_seen_idx').on(t.seenAt),
  ],
);

/** Every signed request that named an existing key: `code` 0 when let through, else the error code it got. */
export const accessKeyUses = pgTable(
  'access_key_uses',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accessKeyId: integer('access_key_id')
      .notNull()
      .references(() => accessKeys.id, { onDelete: 'cascade' }),
    at: tstz('at').notNull().defaultNow(),
    method: text('method').notNull(),
    route: text('route').notNull(),
    ip: text('ip').notNull(),
    code: integer('code').notNull(),
    status: integer('status').notNull(),
  },
  (t) => [
    index('access_key_uses_key_at_idx').on(t.accessKeyId, t.at),
    index('access_key_uses_at_idx').on(t.at),
  ],
);

/** Verification codes of a key, as a keyed hash bound to the key, channel and address. */
export const accessKeyCodes = pgTable(
  'access_key_codes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accessKeyId: integer('access_key_id')
      .notNull()
      .references(() => accessKeys.id, { onDelete: 'cascade' }),
    channel: text('channel').$type<AccessKeyVerifyChannel>().notNull(),
    target: text('target').notNull(),
    codeHash: text('code_hash').notNull(),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: tstz('expires_at').notNull(),
    consumedAt: tstz('consumed_at'),
    createdat: createdat(),
  },
  (t) => [index('access_key_codes_key_idx').on(t.accessKeyId, t.id)],
);
