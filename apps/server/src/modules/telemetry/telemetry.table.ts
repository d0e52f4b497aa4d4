import {
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
} from 'drizzle-orm/pg-core';
import { createdat, tstz } from '../../db/columns';
import { devices } from '../devices/devices.table';

/**
 * Property history: one row per (device, key, device timestamp). One of num/txt/bool is set. No primary key and no
 * foreign key on purpose: rows are append-only and written in large batches, and a per-row key check would cost
 * ingest throughput; deleting a device deletes its history explicitly. The index serves history queries.
 */
export const deviceProperties = pgTable(
  'device_properties',
  {
    deviceId: integer('device_id').notNull(),
    key: text('key').notNull(),
    ts: tstz('ts').notNull(),
    num: doublePrecision('num'),
    txt: text('txt'),
    bool: boolean('bool'),
  },
  (t) => [index('device_properties_device_key_ts_idx').on(t.deviceId, t.key, t.ts)],
);

/** Latest value per (device, key), upserted per batch so lists and detail pages never scan history. */
export const devicePropertyLatest = pgTable(
  'device_property_latest',
  {
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    ts: tstz('ts').notNull(),
    num: doublePrecision('num'),
    txt: text('txt'),
    bool: boolean('bool'),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.key] })],
);

/** Raw bytes up and down (serial data transmission), kept up to MAX_RAW_BYTES per message. */
export const rawMessages = pgTable(
  'raw_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    direction: text('direction', { enum: ['up', 'down'] }).notNull(),
    data: text('data').notNull(),
    size: integer('size').notNull(),
    truncated: boolean('truncated').notNull().default(false),
    createdat: createdat(),
  },
  (t) => [index('raw_messages_device_idx').on(t.deviceId, t.id)],
);
