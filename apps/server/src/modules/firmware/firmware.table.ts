import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  serial,
  smallint,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { ChecksumAlgorithm, FirmwareType } from '@cellhub/contract/firmware';
import { createdat, updatedat } from '../../db/columns';
import { users } from '../users/users.table';

/**
 * Firmware of a product (seed section 3 "Firmware"). `product_key` is not a foreign key: a firmware outlives a
 * renamed or deleted product (its name then shows empty) rather than blocking the product's deletion.
 */
export const firmwares = pgTable(
  'firmwares',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    productKey: text('product_key').notNull(),
    type: smallint('type').$type<FirmwareType>().notNull().default(0),
    objname: text('objname').notNull().default(''),
    description: text('description').notNull().default(''),
    public: boolean('public').notNull().default(false),
    uid: integer('uid').references(() => users.id, { onDelete: 'set null' }),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('firmwares_product_key_idx').on(t.productKey)],
);
export type FirmwareRow = typeof firmwares.$inferSelect;

/**
 * One binary of a firmware, stored at DATA_DIR/files/firmware/<file_id>. `product_key` repeats the firmware's so
 * the partial unique index can allow one `latest` version per product. The service deletes versions (and their
 * files) itself before a firmware; the foreign key refuses anything else.
 */
export const firmwareVersions = pgTable(
  'firmware_versions',
  {
    id: serial('id').primaryKey(),
    firmwareId: integer('firmware_id')
      .notNull()
      .references(() => firmwares.id, { onDelete: 'restrict' }),
    productKey: text('product_key').notNull(),
    version: text('version').notNull(),
    /** Where the binary was fetched from; '' for an upload. */
    url: text('url').notNull().default(''),
    filename: text('filename').notNull(),
    fileId: text('file_id').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    md5: text('md5').notNull(),
    sha256: text('sha256').notNull(),
    algorithm: text('algorithm').$type<ChecksumAlgorithm>().notNull().default('md5'),
    description: text('description').notNull().default(''),
    latest: boolean('latest').notNull().default(false),
    uid: integer('uid').references(() => users.id, { onDelete: 'set null' }),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    uniqueIndex('firmware_versions_version_uq').on(t.firmwareId, t.version),
    uniqueIndex('firmware_versions_latest_uq')
      .on(t.productKey)
      .where(sql`${t.latest}`),
    index('firmware_versions_product_key_idx').on(t.productKey),
  ],
);
export type FirmwareVersionRow = typeof firmwareVersions.$inferSelect;
