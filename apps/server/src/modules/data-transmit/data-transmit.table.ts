import {
  bigint,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
} from 'drizzle-orm/pg-core';
import type { TransmitAddressMode, TransmitRole } from '@cellhub/contract/data-transmit';
import { createdat, tstz, updatedat } from '../../db/columns';
import { devices } from '../devices/devices.table';
import { users } from '../users/users.table';

/** Data transmission rules (docs/data-transmit.md): a virtual serial bus between devices of one owner. */
export const dataTransmitRules = pgTable(
  'data_transmit_rules',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** 1 enabled, 0 disabled (sends nothing). */
    status: smallint('status').notNull().default(1),
    groupName: text('group_name').notNull().default(''),
    addressMode: text('address_mode').$type<TransmitAddressMode>().notNull().default('all'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('data_transmit_rules_uid_idx').on(t.uid, t.id)],
);
export type DataTransmitRuleRow = typeof dataTransmitRules.$inferSelect;

/**
 * The devices of a rule with their role and, per device, the counters since it joined the rule (written by each
 * instance's transmit engine every second it had traffic, as increments).
 */
export const dataTransmitDevices = pgTable(
  'data_transmit_devices',
  {
    ruleId: integer('rule_id')
      .notNull()
      .references(() => dataTransmitRules.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    role: text('role').$type<TransmitRole>().notNull(),
    /** Modbus slave addresses behind an edge device (address mode "modbus"). */
    addresses: integer('addresses').array().$type<number[]>().notNull().default([]),
    framesUp: bigint('frames_up', { mode: 'number' }).notNull().default(0),
    bytesUp: bigint('bytes_up', { mode: 'number' }).notNull().default(0),
    framesDown: bigint('frames_down', { mode: 'number' }).notNull().default(0),
    bytesDown: bigint('bytes_down', { mode: 'number' }).notNull().default(0),
    drops: bigint('drops', { mode: 'number' }).notNull().default(0),
    lastError: integer('last_error'),
    lastErrorAt: tstz('last_error_at'),
    latencyMs: doublePrecision('latency_ms'),
    latencyAvgMs: doublePrecision('latency_avg_ms'),
    lastFrameAt: tstz('last_frame_at'),
  },
  (t) => [
    primaryKey({ columns: [t.ruleId, t.deviceId] }),
    index('data_transmit_devices_device_idx').on(t.deviceId),
  ],
);
export type DataTransmitDeviceRow = typeof dataTransmitDevices.$inferSelect;
