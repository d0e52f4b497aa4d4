import { date, index, integer, pgTable, primaryKey } from 'drizzle-orm/pg-core';

/**
 * Messages per device and day (the database's `current_date`), for the Workplace charts. A row with 0 messages
 * means the device connected that day. No foreign key on purpose: the figures describe traffic that happened, so
 * they outlive a deleted device, and the per-batch upsert stays free of key checks.
 */
export const deviceDailyStats = pgTable(
  'device_daily_stats',
  {
    deviceId: integer('device_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    messages: integer('messages').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.day] }), index('device_daily_stats_day_idx').on(t.day)],
);
