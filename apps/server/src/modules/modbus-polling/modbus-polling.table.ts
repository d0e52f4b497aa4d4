import { bigint, doublePrecision, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tstz, updatedat } from '../../db/columns';
import { devices } from '../devices/devices.table';

/**
 * What platform polling (issue 16) knows about each variable of a device: how its reads went (counters since the
 * template was applied), the last value and the last error. Written by the polling engine in batches (at most
 * every flush interval), read by the variable status route. The values themselves are device properties.
 */
export const modbusVariableStatus = pgTable(
  'modbus_variable_status',
  {
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    /** The variable's tag (the property key). */
    tag: text('tag').notNull(),
    reads: bigint('reads', { mode: 'number' }).notNull().default(0),
    timeouts: bigint('timeouts', { mode: 'number' }).notNull().default(0),
    exceptions: bigint('exceptions', { mode: 'number' }).notNull().default(0),
    crcErrors: bigint('crc_errors', { mode: 'number' }).notNull().default(0),
    /** Answers that were whole but wrong (address, function code, length, echo), and formula results that are not finite. */
    invalid: bigint('invalid', { mode: 'number' }).notNull().default(0),
    lastValue: doublePrecision('last_value'),
    lastReadAt: tstz('last_read_at'),
    lastError: text('last_error').notNull().default(''),
    lastErrorAt: tstz('last_error_at'),
    updatedat: updatedat(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.tag] })],
);
export type ModbusVariableStatusRow = typeof modbusVariableStatus.$inferSelect;
