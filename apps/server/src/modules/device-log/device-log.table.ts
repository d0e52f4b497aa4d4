import { bigserial, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import type { DeviceLogEvent } from '@cellhub/contract/devices';
import { createdat } from '../../db/columns';
import { devices } from '../devices/devices.table';

/** What happened to a device: connects, disconnects with reason, rejected messages, commands, config changes. */
export const deviceLogs = pgTable(
  'device_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    event: text('event').$type<DeviceLogEvent>().notNull(),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    createdat: createdat(),
  },
  (t) => [index('device_logs_device_idx').on(t.deviceId, t.id)],
);
