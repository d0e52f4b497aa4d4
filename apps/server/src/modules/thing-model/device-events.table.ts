import { bigserial, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { EventLevel, EventParamValue } from '@cellhub/contract/thing-model';
import { tstz } from '../../db/columns';
import { devices } from '../devices/devices.table';

/**
 * Occurrences of thing model events a device reported (`P/up/event`): its level as the model said when it came,
 * its parameters as checked against the model, device time and arrival time. Events are rare next to properties,
 * so rows are written one message at a time with a foreign key; the index serves a device's list by time.
 */
export const deviceEvents = pgTable(
  'device_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    level: text('level').$type<EventLevel>().notNull().default('info'),
    params: jsonb('params').$type<Record<string, EventParamValue>>().notNull().default({}),
    ts: tstz('ts').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('device_events_device_ts_idx').on(t.deviceId, t.ts)],
);
