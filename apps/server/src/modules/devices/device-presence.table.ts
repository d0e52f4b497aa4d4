import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { tstz } from '../../db/columns';
import { devices } from './devices.table';

/**
 * The server instances (processes) of the deployment, each with a heartbeat. A device connection held by an
 * instance whose heartbeat stopped is gone with it (gateway/presence-keeper.ts).
 */
export const serverInstances = pgTable('server_instances', {
  /** Random per start. */
  id: text('id').primaryKey(),
  /**
   * `host:MQTT port` of an embedded broker ('' on an external broker): only one process listens there at a time,
   * so a new start at the same address proves the instance before it gone at once.
   */
  address: text('address').notNull().default(''),
  startedat: tstz('startedat').notNull(),
  heartbeatat: tstz('heartbeatat').notNull(),
  /** Set on a clean stop, or by the next start at the same address. */
  stoppedat: tstz('stoppedat'),
});

/** Who holds the connection of each online device. */
export const deviceConnections = pgTable(
  'device_connections',
  {
    deviceId: integer('device_id')
      .primaryKey()
      .references(() => devices.id, { onDelete: 'cascade' }),
    /** The instance whose embedded broker holds the connection; null: an external broker holds it. */
    instanceId: text('instance_id'),
    /** Seconds, as in the CONNECT (0: none). */
    keepalive: integer('keepalive').notNull().default(0),
    connectedat: tstz('connectedat').notNull(),
  },
  (t) => [
    index('device_connections_instance_idx')
      .on(t.instanceId)
      .where(sql`${t.instanceId} is not null`),
  ],
);
