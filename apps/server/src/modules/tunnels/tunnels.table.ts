import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import type { TunnelProtocol, TunnelReason, TunnelStatus } from '@cellhub/contract/tunnels';
import { createdat, tstz, updatedat } from '../../db/columns';
import { devices } from '../devices/devices.table';

/**
 * Remote tunnels (issue 19, docs/tunnels.md): one row per tunnel ever opened, kept as history. Live state (the
 * listener, connections, running byte counts) is in memory on the instance whose endpoint the device reached
 * (`endpoint`); the row gets the final counts when it closes. No foreign key on uid: the trail outlives the account.
 */
export const tunnels = pgTable(
  'tunnels',
  {
    id: serial('id').primaryKey(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    uid: integer('uid').notNull(),
    openedBy: text('opened_by').notNull(),
    name: text('name').notNull(),
    protocol: text('protocol').$type<TunnelProtocol>().notNull().default('tcp'),
    localIp: text('local_ip').notNull(),
    localPort: integer('local_port').notNull(),
    /** `host:port` of the tunnel endpoint of the instance that holds it. */
    endpoint: text('endpoint').notNull(),
    host: text('host').notNull(),
    /** The exposed port, once open. */
    port: integer('port'),
    allowedIp: text('allowed_ip').notNull(),
    status: text('status').$type<TunnelStatus>().notNull().default('opening'),
    reason: text('reason').$type<TunnelReason>(),
    bytesIn: bigint('bytes_in', { mode: 'number' }).notNull().default(0),
    bytesOut: bigint('bytes_out', { mode: 'number' }).notNull().default(0),
    connections: integer('connections').notNull().default(0),
    /** Seconds. */
    idleTimeout: integer('idle_timeout').notNull(),
    expiresAt: tstz('expires_at').notNull(),
    closedAt: tstz('closed_at'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    index('tunnels_device_idx').on(t.deviceId, t.id),
    index('tunnels_live_idx')
      .on(t.endpoint)
      .where(sql`${t.status} in ('opening', 'open')`),
  ],
);
export type TunnelRow = typeof tunnels.$inferSelect;
