import { index, integer, jsonb, pgTable, primaryKey, serial, text } from 'drizzle-orm/pg-core';
import type { ProductProperty } from '@cellhub/contract/products';
import { createdat, updatedat } from '../../db/columns';
import { users } from '../users/users.table';

/** Device models (seed section 3 "Product"). `product_secret` is sealed with deps.box (context: product key). */
export const products = pgTable(
  'products',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    productKey: text('product_key').notNull().unique('products_product_key_uq'),
    productSecret: text('product_secret').notNull(),
    uid: integer('uid').references(() => users.id, { onDelete: 'set null' }),
    nodetype: text('nodetype', { enum: ['direct', 'gateway', 'sub_device'] })
      .notNull()
      .default('direct'),
    protocol: text('protocol').notNull().default('mqtt'),
    dataformat: text('dataformat', { enum: ['json', 'raw'] })
      .notNull()
      .default('json'),
    productCode: text('product_code').notNull().default(''),
    description: text('description').notNull().default(''),
    iotPlatformId: integer('iot_platform_id'),
    iotPlatformConfig: jsonb('iot_platform_config').$type<Record<string, unknown>>().notNull().default({}),
    deviceConfig: jsonb('device_config').$type<Record<string, unknown>>().notNull().default({}),
    configPostSize: integer('config_post_size').notNull().default(0),
    mqttInterval: integer('mqtt_interval').notNull().default(60),
    propertyInterval: integer('property_interval').notNull().default(60),
    /** Days of property history kept (docs/telemetry-scale.md "Retention"); null keeps it for ever. */
    retentionDays: integer('retention_days'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('products_uid_idx').on(t.uid)],
);
export type ProductRow = typeof products.$inferSelect;

/** The properties a product's devices report (its thing model). Empty means "accept any key". */
export const productProperties = pgTable(
  'product_properties',
  {
    productId: integer('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    name: text('name').notNull(),
    nameUs: text('name_us').notNull().default(''),
    charttype: text('charttype').$type<ProductProperty['charttype']>().notNull().default('line'),
    datatype: text('datatype').$type<ProductProperty['datatype']>().notNull().default('number'),
    unit: text('unit').notNull().default(''),
    cycles: integer('cycles').notNull().default(0),
    position: integer('position').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.productId, t.key] })],
);
export type ProductPropertyRow = typeof productProperties.$inferSelect;
