import { boolean, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { DeviceHostProtocol, PacketFormat, RegisterBy } from '@cellhub/contract/device-hosts';
import { createdat, updatedat } from '../../db/columns';

/**
 * Device hosts (issue 18): TCP/UDP servers for DTUs in socket mode. One port per host, whatever the protocol, so an
 * address shown to a device names one host. Counters and connections live in memory (device-host-manager.ts).
 */
export const deviceHosts = pgTable(
  'device_hosts',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    protocol: text('protocol').$type<DeviceHostProtocol>().notNull(),
    bind: text('bind').$type<'0.0.0.0' | '127.0.0.1'>().notNull().default('0.0.0.0'),
    port: integer('port').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    registerBy: text('register_by').$type<RegisterBy>().notNull().default('sn'),
    registerFormat: text('register_format').$type<PacketFormat>().notNull().default('text'),
    registerPattern: text('register_pattern').notNull(),
    heartbeatFormat: text('heartbeat_format').$type<PacketFormat>().notNull().default('text'),
    heartbeatData: text('heartbeat_data').notNull().default(''),
    heartbeatInterval: integer('heartbeat_interval').notNull().default(60),
    idleTimeout: integer('idle_timeout').notNull().default(180),
    remark: text('remark').notNull().default(''),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [uniqueIndex('device_hosts_port_idx').on(t.port)],
);
export type DeviceHostRow = typeof deviceHosts.$inferSelect;
