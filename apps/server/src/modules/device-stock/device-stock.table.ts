import { index, integer, pgTable, primaryKey, serial, text } from 'drizzle-orm/pg-core';
import { createdat } from '../../db/columns';
import { devices } from '../devices/devices.table';

/**
 * One fast-out-of-stock: who shipped how many stock devices to which customer, when, with a note. No foreign key on
 * the accounts and their names copied: the record must outlive a renamed or deleted account.
 */
export const deviceShipments = pgTable(
  'device_shipments',
  {
    id: serial('id').primaryKey(),
    customerUid: integer('customer_uid').notNull(),
    customerName: text('customer_name').notNull(),
    createdBy: integer('created_by'),
    createdByName: text('created_by_name').notNull().default(''),
    count: integer('count').notNull(),
    note: text('note').notNull().default(''),
    createdat: createdat(),
  },
  (t) => [index('device_shipments_customer_idx').on(t.customerUid, t.id)],
);
export type DeviceShipmentRow = typeof deviceShipments.$inferSelect;

/** The devices of a shipment (sn copied, so the record reads alike after the device is renamed). */
export const deviceShipmentItems = pgTable(
  'device_shipment_items',
  {
    shipmentId: integer('shipment_id')
      .notNull()
      .references(() => deviceShipments.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    sn: text('sn').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.shipmentId, t.deviceId] }),
    index('device_shipment_items_device_idx').on(t.deviceId),
  ],
);
