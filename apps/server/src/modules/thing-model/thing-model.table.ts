import { integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import type { EventLevel, ModelParam } from '@cellhub/contract/thing-model';
import { products } from '../products/products.table';

/** The events of a product's thing model (its properties are products' product_properties). */
export const productEvents = pgTable(
  'product_events',
  {
    productId: integer('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    name: text('name').notNull(),
    nameUs: text('name_us').notNull().default(''),
    level: text('level').$type<EventLevel>().notNull().default('info'),
    output: jsonb('output').$type<ModelParam[]>().notNull().default([]),
    position: integer('position').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.productId, t.key] })],
);

/** The services of a product's thing model: what can be called on its devices, with inputs and outputs. */
export const productServices = pgTable(
  'product_services',
  {
    productId: integer('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    name: text('name').notNull(),
    nameUs: text('name_us').notNull().default(''),
    input: jsonb('input').$type<ModelParam[]>().notNull().default([]),
    output: jsonb('output').$type<ModelParam[]>().notNull().default([]),
    position: integer('position').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.productId, t.key] })],
);
