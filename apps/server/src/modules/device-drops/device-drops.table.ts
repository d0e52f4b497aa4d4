import { bigint, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import type { DropReason } from '@cellhub/contract/device-drops';
import { tstz } from '../../db/columns';
import { devices } from '../devices/devices.table';

/** Messages the gateway dropped, per device and reason (the total is `devices.rejected_count`). */
export const deviceDrops = pgTable(
  'device_drops',
  {
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    reason: text('reason').$type<DropReason>().notNull(),
    count: bigint('count', { mode: 'number' }).notNull().default(0),
    lastat: tstz('lastat').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.reason] })],
);
