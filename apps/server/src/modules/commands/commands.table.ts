import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { COMMAND_STATUSES, type CommandItem } from '@cellhub/contract/devices';
import { tstz } from '../../db/columns';
import { devices } from '../devices/devices.table';

/**
 * Commands for devices on P/down/cmd; the device's cmd_reply is matched by id. A command queued for an offline
 * device is `pending` (with `queuedat` and `expiresat`) until the device subscribes; then it is sent like any other.
 */
export const deviceCommands = pgTable(
  'device_commands',
  {
    id: text('id').primaryKey(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    uid: integer('uid'),
    type: text('type', { enum: ['hex', 'string'] }).notNull(),
    data: text('data').notNull(),
    status: text('status', { enum: COMMAND_STATUSES }).notNull().default('sent'),
    code: integer('code'),
    reply: text('reply'),
    /** When it went out; while it waits, when it was queued. */
    sentat: tstz('sentat').notNull(),
    repliedat: tstz('repliedat'),
    /** No reply by then: `timeout`. While pending, timeoutat - queuedat is the reply window it gets once sent. */
    timeoutat: tstz('timeoutat').notNull(),
    /** Queued for an offline device at; null when sent at once. */
    queuedat: tstz('queuedat'),
    /** A pending command still waiting at this time becomes `expired`. */
    expiresat: tstz('expiresat'),
    /** Creation order: queued commands of a device go out in this order (ids are random). */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    /** The predefined command it came from (modules/command-groups, migration 0021); null when typed. */
    commandRef: jsonb('command_ref').$type<NonNullable<CommandItem['command_ref']>>(),
  },
  (t) => [
    index('device_commands_device_idx').on(t.deviceId, t.sentat),
    index('device_commands_pending_idx').on(t.status, t.timeoutat),
    index('device_commands_queue_idx')
      .on(t.deviceId, t.seq)
      .where(sql`${t.status} = 'pending'`),
    index('device_commands_expiry_idx')
      .on(t.expiresat)
      .where(sql`${t.status} = 'pending'`),
  ],
);
export type DeviceCommandRow = typeof deviceCommands.$inferSelect;
