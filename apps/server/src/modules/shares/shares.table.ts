import { sql } from 'drizzle-orm';
import { index, integer, pgTable, primaryKey, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { ShareRight } from '@cellhub/contract/shares';
import { createdat, tstz, updatedat } from '../../db/columns';
import { devices } from '../devices/devices.table';
import { users } from '../users/users.table';

/**
 * A device lent to another account (docs/sharing.md). One row per device and grantee: sharing again updates right
 * and expiry. `owner_uid` is the device's owner when it was shared; a database trigger (0017_shares.sql) deletes a
 * device's shares when its owner changes (unbind, transfer, import to another user), and deleting the device
 * deletes them by the foreign key. The live rows are those with `expires_at` null or in the future.
 */
export const deviceShares = pgTable(
  'device_shares',
  {
    id: serial('id').primaryKey(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    ownerUid: integer('owner_uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    granteeUid: integer('grantee_uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    right: text('right').$type<ShareRight>().notNull(),
    expiresAt: tstz('expires_at'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    uniqueIndex('device_shares_device_grantee_uq').on(t.deviceId, t.granteeUid),
    index('device_shares_grantee_idx').on(t.granteeUid),
    index('device_shares_owner_idx').on(t.ownerUid),
  ],
);
export type DeviceShareRow = typeof deviceShares.$inferSelect;

/**
 * A share link: a token (only its SHA-256 is stored) that signed-in users accept to get the link's devices shared
 * with them. `uses` counts acceptances; an update guarded by `uses < max_uses` takes one use atomically.
 */
export const shareLinks = pgTable(
  'share_links',
  {
    id: serial('id').primaryKey(),
    ownerUid: integer('owner_uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    right: text('right').$type<ShareRight>().notNull(),
    expiresAt: tstz('expires_at'),
    maxUses: integer('max_uses'),
    uses: integer('uses').notNull().default(0),
    revokedAt: tstz('revoked_at'),
    createdat: createdat(),
  },
  (t) => [
    uniqueIndex('share_links_token_hash_uq').on(t.tokenHash),
    index('share_links_owner_idx')
      .on(t.ownerUid, t.id)
      .where(sql`${t.revokedAt} is null`),
  ],
);
export type ShareLinkRow = typeof shareLinks.$inferSelect;

/** The devices of a link; a device deleted meanwhile leaves its link. */
export const shareLinkDevices = pgTable(
  'share_link_devices',
  {
    linkId: integer('link_id')
      .notNull()
      .references(() => shareLinks.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.linkId, t.deviceId] }),
    index('share_link_devices_device_idx').on(t.deviceId),
  ],
);
