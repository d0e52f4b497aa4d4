import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { HwTestItem, HwValueType } from '@cellhub/contract/hardware';
import { createdat, tstz, updatedat } from '../../db/columns';
import { devices } from '../devices/devices.table';

/**
 * The hardware catalogue: one row per (type, value). The value is unique per type ignoring case (the index is on
 * lower(value); the service trims), so "EC200U" and "ec200u" cannot both exist.
 */
export const hwValues = pgTable(
  'hw_values',
  {
    id: serial('id').primaryKey(),
    type: text('type').$type<HwValueType>().notNull(),
    value: text('value').notNull(),
    description: text('description').notNull().default(''),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [uniqueIndex('hw_values_type_value_idx').on(t.type, sql`lower(${t.value})`)],
);
export type HwValueRow = typeof hwValues.$inferSelect;

/** A named hardware configuration (bill of values). */
export const hwGroups = pgTable('hw_groups', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  createdat: createdat(),
  updatedat: updatedat(),
});
export type HwGroupRow = typeof hwGroups.$inferSelect;

/**
 * The values of a group, one per type (the primary key says so). A value in use cannot be deleted (restrict): the
 * service answers 10112 first and says which groups use it.
 */
export const hwGroupValues = pgTable(
  'hw_group_values',
  {
    groupId: integer('group_id')
      .notNull()
      .references(() => hwGroups.id, { onDelete: 'cascade' }),
    type: text('type').$type<HwValueType>().notNull(),
    valueId: integer('value_id')
      .notNull()
      .references(() => hwValues.id, { onDelete: 'restrict' }),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.type] }), index('hw_group_values_value_idx').on(t.valueId)],
);

/**
 * What a device reported about itself on `up/info` (`hw` and `test`, docs/device-protocol.md): the latest values,
 * when it first and last reported, and the fields that differ from its production task's hardware group.
 * `task_id` is copied from the task link when the report is recorded.
 */
export const deviceHardware = pgTable(
  'device_hardware',
  {
    deviceId: integer('device_id')
      .primaryKey()
      .references(() => devices.id, { onDelete: 'cascade' }),
    taskId: integer('task_id'),
    moduleModel: text('module_model').notNull().default(''),
    moduleFw: text('module_fw').notNull().default(''),
    mcuId: text('mcu_id').notNull().default(''),
    mac: text('mac').notNull().default(''),
    boardRevision: text('board_revision').notNull().default(''),
    testOk: boolean('test_ok'),
    testItems: jsonb('test_items').$type<HwTestItem[]>().notNull().default([]),
    mismatch: jsonb('mismatch').$type<string[]>().notNull().default([]),
    firstAt: tstz('first_at').notNull().defaultNow(),
    lastAt: tstz('last_at').notNull().defaultNow(),
  },
  (t) => [index('device_hardware_task_idx').on(t.taskId)],
);
export type DeviceHardwareRow = typeof deviceHardware.$inferSelect;
