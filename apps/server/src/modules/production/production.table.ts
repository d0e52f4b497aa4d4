import { date, index, integer, jsonb, pgTable, primaryKey, serial, text } from 'drizzle-orm/pg-core';
import type { TaskState } from '@cellhub/contract/production';
import { createdat, tstz, updatedat } from '../../db/columns';
import { devices } from '../devices/devices.table';
import { firmwareVersions } from '../firmware/firmware.table';
import { hwGroups } from '../hardware/hardware.table';
import { products } from '../products/products.table';
import { users } from '../users/users.table';

/** How a task's sns are made (contract SnRule): the rule's fields, or the imported list. */
export type StoredSnRule =
  { type: 'rule'; prefix: string; digits: number; start: number } | { type: 'list'; sns: string[] };

/** Production tasks: draft -> producing (devices created) -> done, or cancelled before done. */
export const productionTasks = pgTable(
  'production_tasks',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    productKey: text('product_key')
      .notNull()
      .references(() => products.productKey, { onUpdate: 'cascade' }),
    hwGroupId: integer('hw_group_id')
      .notNull()
      .references(() => hwGroups.id, { onDelete: 'restrict' }),
    quantity: integer('quantity').notNull(),
    snRule: jsonb('sn_rule').$type<StoredSnRule>().notNull(),
    firmwareVersionId: integer('firmware_version_id').references(() => firmwareVersions.id, {
      onDelete: 'set null',
    }),
    plannedDate: date('planned_date', { mode: 'string' }).notNull(),
    note: text('note').notNull().default(''),
    state: text('state').$type<TaskState>().notNull().default('draft'),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    startedat: tstz('startedat'),
    finishedat: tstz('finishedat'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('production_tasks_state_idx').on(t.state, t.id)],
);
export type ProductionTaskRow = typeof productionTasks.$inferSelect;

/** The devices a started task created (a device is made by at most one task). */
export const productionTaskDevices = pgTable(
  'production_task_devices',
  {
    deviceId: integer('device_id')
      .primaryKey()
      .references(() => devices.id, { onDelete: 'cascade' }),
    taskId: integer('task_id')
      .notNull()
      .references(() => productionTasks.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
  },
  (t) => [index('production_task_devices_task_idx').on(t.taskId, t.position)],
);

/** Productive groups: batches of produced stock devices, shipped together. */
export const productiveGroups = pgTable('productive_groups', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  createdat: createdat(),
  updatedat: updatedat(),
});

export const productiveGroupDevices = pgTable(
  'productive_group_devices',
  {
    groupId: integer('group_id')
      .notNull()
      .references(() => productiveGroups.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    createdat: createdat(),
  },
  (t) => [
    primaryKey({ columns: [t.groupId, t.deviceId] }),
    index('productive_group_devices_device_idx').on(t.deviceId),
  ],
);
