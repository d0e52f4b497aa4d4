import { index, integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { createdat, updatedat } from '../../db/columns';
import { devices } from '../devices/devices.table';

/**
 * Gateway rules (docs/gateway-rules.md): one per gateway device. Who may see or change a rule follows from its
 * gateway device (the authorisation layer's device rights), so the rule keeps no owner of its own.
 */
export const gatewayRules = pgTable('gateway_rules', {
  id: serial('id').primaryKey(),
  gatewayDeviceId: integer('gateway_device_id')
    .notNull()
    .unique('gateway_rules_gateway_uq')
    .references(() => devices.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  createdat: createdat(),
  updatedat: updatedat(),
});
export type GatewayRuleRow = typeof gatewayRules.$inferSelect;

/** The sub-devices of a rule; the primary key keeps a sub-device on one gateway at a time. */
export const gatewaySubDevices = pgTable(
  'gateway_sub_devices',
  {
    deviceId: integer('device_id')
      .primaryKey()
      .references(() => devices.id, { onDelete: 'cascade' }),
    ruleId: integer('rule_id')
      .notNull()
      .references(() => gatewayRules.id, { onDelete: 'cascade' }),
    address: text('address').notNull().default(''),
    name: text('name').notNull().default(''),
    createdat: createdat(),
  },
  (t) => [index('gateway_sub_devices_rule_idx').on(t.ruleId)],
);
export type GatewaySubDeviceRow = typeof gatewaySubDevices.$inferSelect;
