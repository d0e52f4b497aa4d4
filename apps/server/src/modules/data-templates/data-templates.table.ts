import { index, integer, pgTable, serial, smallint, text, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  BYTE_ORDERS,
  COLLECT_MODES,
  DATA_FORMATS,
  REGISTER_TYPES,
  REPORT_METHODS,
  SERIAL_PORTS,
  TEMPLATE_TYPES,
  VARIABLE_ACCESS,
} from '@cellhub/contract/data-templates';
import { createdat, updatedat } from '../../db/columns';
import { devices } from '../devices/devices.table';
import { products } from '../products/products.table';
import { users } from '../users/users.table';

/**
 * Modbus data templates (seed section 3 "Data template"): a user's description of the Modbus slaves behind a DTU and
 * the variables read from them. `collect_mode` says who polls: `dtu` (the DTU polls; the template is pushed in the
 * device configuration) or `platform` (the server polls through the DTU in transparent mode).
 */
export const dataTemplates = pgTable(
  'data_templates',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type', { enum: TEMPLATE_TYPES }).notNull().default('modbus_rtu'),
    remark: text('remark').notNull().default(''),
    collectMode: text('collect_mode', { enum: COLLECT_MODES }).notNull().default('dtu'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('data_templates_uid_idx').on(t.uid, t.id)],
);
export type DataTemplateRow = typeof dataTemplates.$inferSelect;

/** A Modbus slave of a template: its address on the bus (1-247) and the DTU serial port it hangs on. */
export const dataTemplateSlaves = pgTable(
  'data_template_slaves',
  {
    id: serial('id').primaryKey(),
    templateId: integer('template_id')
      .notNull()
      .references(() => dataTemplates.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    address: smallint('address').notNull(),
    serialPort: text('serial_port', { enum: SERIAL_PORTS }).notNull().default('rs485'),
    position: integer('position').notNull().default(0),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('data_template_slaves_template_idx').on(t.templateId, t.position, t.id)],
);
export type DataTemplateSlaveRow = typeof dataTemplateSlaves.$inferSelect;

/**
 * A variable read from (or written to) a slave. `tag` is the property key the values are stored under; it is unique
 * in the template (`template_id` is kept beside `slave_id` for that index). `register_address` is 1-65535 as the seed
 * writes it (80003); formulas use the variable `x` (checked by @cellhub/contract/modbus/formula).
 */
export const dataTemplateVariables = pgTable(
  'data_template_variables',
  {
    id: serial('id').primaryKey(),
    templateId: integer('template_id')
      .notNull()
      .references(() => dataTemplates.id, { onDelete: 'cascade' }),
    slaveId: integer('slave_id')
      .notNull()
      .references(() => dataTemplateSlaves.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tag: text('tag').notNull(),
    unit: text('unit').notNull().default(''),
    registerType: text('register_type', { enum: REGISTER_TYPES }).notNull(),
    registerAddress: integer('register_address').notNull(),
    dataFormat: text('data_format', { enum: DATA_FORMATS }).notNull(),
    byteOrder: text('byte_order', { enum: BYTE_ORDERS }).notNull().default('AB'),
    decimals: smallint('decimals').notNull().default(0),
    access: text('access', { enum: VARIABLE_ACCESS }).notNull().default('r'),
    captureFormula: text('capture_formula').notNull().default(''),
    controlFormula: text('control_formula').notNull().default(''),
    reportMethod: text('report_method', { enum: REPORT_METHODS }).notNull().default('cycle'),
    samplingCycleS: integer('sampling_cycle_s').notNull().default(60),
    functionCode: smallint('function_code').notNull(),
    position: integer('position').notNull().default(0),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    uniqueIndex('data_template_variables_tag_uq').on(t.templateId, t.tag),
    index('data_template_variables_slave_idx').on(t.slaveId, t.position, t.id),
  ],
);
export type DataTemplateVariableRow = typeof dataTemplateVariables.$inferSelect;

/**
 * The template applied to a device (at most one). A template that is applied cannot be deleted (80009; the foreign
 * key restricts as a second guard).
 */
export const deviceDataTemplates = pgTable(
  'device_data_templates',
  {
    deviceId: integer('device_id')
      .primaryKey()
      .references(() => devices.id, { onDelete: 'cascade' }),
    templateId: integer('template_id')
      .notNull()
      .references(() => dataTemplates.id, { onDelete: 'restrict' }),
    appliedBy: integer('applied_by').references(() => users.id, { onDelete: 'set null' }),
    createdat: createdat(),
  },
  (t) => [index('device_data_templates_template_idx').on(t.templateId)],
);
export type DeviceDataTemplateRow = typeof deviceDataTemplates.$inferSelect;

/** A product's default template: its devices without a template of their own use it. */
export const productDataTemplates = pgTable(
  'product_data_templates',
  {
    productId: integer('product_id')
      .primaryKey()
      .references(() => products.id, { onDelete: 'cascade' }),
    templateId: integer('template_id')
      .notNull()
      .references(() => dataTemplates.id, { onDelete: 'restrict' }),
    appliedBy: integer('applied_by').references(() => users.id, { onDelete: 'set null' }),
    createdat: createdat(),
  },
  (t) => [index('product_data_templates_template_idx').on(t.templateId)],
);
export type ProductDataTemplateRow = typeof productDataTemplates.$inferSelect;
