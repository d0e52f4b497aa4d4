import { index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { tstz } from '../../db/columns';
import { devices } from '../devices/devices.table';

/** Commands sent down on P/down/cmd; the device's cmd_reply is matched by id. */
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
    status: text('status', { enum: ['sent', 'replied', 'timeout', 'failed'] })
      .notNull()
      .default('sent'),
    code: integer('code'),
    reply: text('reply'),
    sentat: tstz('sentat').notNull(),
    repliedat: tstz('repliedat'),
    timeoutat: tstz('timeoutat').notNull(),
  },
  (t) => [
    index('device_commands_device_idx').on(t.deviceId, t.sentat),
    index('device_commands_pending_idx').on(t.status, t.timeoutat),
  ],
);
export type DeviceCommandRow = typeof deviceCommands.$inferSelect;
