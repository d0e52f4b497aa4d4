import {
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
} from 'drizzle-orm/pg-core';
import { createdat, tstz } from '../../db/columns';
import { devices } from '../devices/devices.table';

/**
 * Property history: one row per (device, key, device timestamp). One of num/txt/bool is set. No primary key and no
 * foreign key on purpose: rows are append-only and written in large batches, and a per-row key check would cost
 * ingest throughput; deleting a device deletes its history explicitly. The index serves history queries.
 *
 * In the database the table is partitioned by range of `ts` (migration 0035): weekly partitions
 * `device_properties_pYYYYMMDD` created ahead by the telemetry maintenance job, and `device_properties_default` for
 * anything outside them (docs/telemetry-scale.md). Drizzle does not model partitions; queries are unchanged.
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
  (t) => [
    index('device_properties_device_key_ts_idx').on(t.deviceId, t.key, t.ts),
    index('device_properties_ts_brin_idx').using('brin', t.ts),
  ],
);

/**
 * Hourly rollups of device_properties for charts older than a week (telemetry-maintenance.service.ts). Values as the
 * chart reads them (coalesce(num, bool::int)); `count` counts every value, `values` the numeric ones, so
 * avg = sum / values and several hours fold exactly. No foreign key, like the history it summarises.
 */
export const devicePropertyHourly = pgTable(
  'device_property_hourly',
  {
    deviceId: integer('device_id').notNull(),
    key: text('key').notNull(),
    hour: tstz('hour').notNull(),
    count: integer('count').notNull(),
    values: integer('values').notNull(),
    sum: doublePrecision('sum'),
    min: doublePrecision('min'),
    max: doublePrecision('max'),
  },
  (t) => [
    primaryKey({ name: 'device_property_hourly_pk', columns: [t.deviceId, t.key, t.hour] }),
    index('device_property_hourly_hour_idx').on(t.hour),
  ],
);

/** One row (id 1): every hour before `rolled_to` is in device_property_hourly. */
export const telemetryRollupState = pgTable('telemetry_rollup_state', {
  id: smallint('id').primaryKey().default(1),
  rolledTo: tstz('rolled_to'),
});

/**
 * Hours already rolled up that a late reading changed (migration 0036): marked by the property writer with the
 * reading, rolled up again from the raw rows and unmarked by the maintenance job (`reRollLate`).
 */
export const telemetryRollupDirty = pgTable(
  'telemetry_rollup_dirty',
  {
    deviceId: integer('device_id').notNull(),
    hour: tstz('hour').notNull(),
    markedAt: tstz('marked_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'telemetry_rollup_dirty_pk', columns: [t.deviceId, t.hour] })],
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
