import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  smallint,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdat, tstz, updatedat } from '../../db/columns';
import { products } from '../products/products.table';
import { users } from '../users/users.table';

/**
 * What the device list's keyword matches: sn, name, imei and iccid joined by a control character (keywords cannot
 * contain one, so a match never spans two fields). The trigram index is built on exactly this expression.
 */
export const deviceSearchText = (t: {
  sn: AnyPgColumn;
  name: AnyPgColumn;
  imei: AnyPgColumn;
  iccid: AnyPgColumn;
}) => sql`(${t.sn} || chr(31) || ${t.name} || chr(31) || ${t.imei} || chr(31) || ${t.iccid})`;

/**
 * Devices (seed section 3). `secret` is sealed with deps.box (context `device:<sn>`); the gateway keeps decrypted
 * auth data in a small LRU cache. uid null = "in stock" (created by an admin, not yet given to a user).
 */
export const devices = pgTable(
  'devices',
  {
    id: serial('id').primaryKey(),
    sn: text('sn').notNull(),
    uid: integer('uid').references(() => users.id, { onDelete: 'set null' }),
    productKey: text('product_key')
      .notNull()
      .references(() => products.productKey, { onUpdate: 'cascade' }),
    secret: text('secret').notNull(),
    name: text('name').notNull().default(''),
    imsi: text('imsi').notNull().default(''),
    iccid: text('iccid').notNull().default(''),
    imei: text('imei').notNull().default(''),
    ipaddress: text('ipaddress').notNull().default(''),
    protocol: text('protocol').notNull().default(''),
    phone: text('phone').notNull().default(''),
    address: text('address').notNull().default(''),
    rssi: doublePrecision('rssi'),
    csq: doublePrecision('csq'),
    status: smallint('status').notNull().default(0),
    hwVersion: text('hw_version').notNull().default(''),
    fwVersion: text('fw_version').notNull().default(''),
    online: smallint('online').notNull().default(0),
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    expectConfig: jsonb('expect_config').$type<Record<string, unknown>>().notNull().default({}),
    configVersion: integer('config_version').notNull().default(0),
    expectConfigVersion: integer('expect_config_version').notNull().default(0),
    configVersionDifferent: boolean('config_version_different').notNull().default(false),
    activatedat: tstz('activatedat'),
    lastcommunicationat: tstz('lastcommunicationat'),
    latitude: doublePrecision('latitude'),
    longitude: doublePrecision('longitude'),
    description: text('description').notNull().default(''),
    uplink: text('uplink').notNull().default(''),
    loginProtocol: text('login_protocol').notNull().default(''),
    bootloaderVersion: text('bootloader_version').notNull().default(''),
    cellularMode: text('cellular_mode').notNull().default(''),
    signalStrength: doublePrecision('signal_strength'),
    band: text('band').notNull().default(''),
    pci: text('pci').notNull().default(''),
    cellId: text('cell_id').notNull().default(''),
    iotPlatformParam: jsonb('iot_platform_param').$type<Record<string, unknown>>().notNull().default({}),
    disabled: boolean('disabled').notNull().default(false),
    /** Set when dynamic registration handed out the secret; it is handed out once. */
    registeredat: tstz('registeredat'),
    /** Messages the gateway dropped (malformed, schema, ACL, rate limit). */
    rejectedCount: integer('rejected_count').notNull().default(0),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  // The device list (listDevices) pages newest first within the owner and filters: each (filter..., id) index
  // serves both the page (read backwards) and the capped count (index-only). `online` trails the product indexes
  // (drizzle has no INCLUDE) so product + status is still index-only. See bench/RESULTS.md "Device list".
  (t) => [
    uniqueIndex('devices_sn_uq').on(t.sn),
    index('devices_uid_idx').on(t.uid, t.id),
    index('devices_uid_product_idx').on(t.uid, t.productKey, t.id, t.online),
    index('devices_uid_online_idx').on(t.uid, t.online, t.id),
    index('devices_product_key_idx').on(t.productKey, t.id, t.online),
    index('devices_online_idx').on(t.online, t.id),
    // Substring search over sn, name, imei and iccid: one trigram index of one expression (deviceSearchText).
    index('devices_search_trgm_idx').using('gin', sql`${deviceSearchText(t)} gin_trgm_ops`),
    // SIM cards find the device holding them by iccid (card lists, reminders, OTA checks); most devices report one.
    index('devices_iccid_idx')
      .on(t.iccid)
      .where(sql`${t.iccid} <> ''`),
  ],
);
export type DeviceRow = typeof devices.$inferSelect;
