import { index, integer, jsonb, pgTable, primaryKey, serial, text } from 'drizzle-orm/pg-core';
import type { FeaturePanel } from '@cellhub/contract/product-features';
import { createdat, updatedat } from '../../db/columns';
import { products } from '../products/products.table';

/** Capability flags admins define (GPS, RS485, ...), with the device-page panels each enables. */
export const productFeatures = pgTable('product_features', {
  id: serial('id').primaryKey(),
  key: text('key').notNull().unique('product_features_key_uq'),
  name: text('name').notNull(),
  nameUs: text('name_us').notNull().default(''),
  description: text('description').notNull().default(''),
  panels: jsonb('panels').$type<FeaturePanel[]>().notNull().default([]),
  createdat: createdat(),
  updatedat: updatedat(),
});
export type ProductFeatureRow = typeof productFeatures.$inferSelect;

/** Which products have which features. */
export const productFeatureLinks = pgTable(
  'product_feature_links',
  {
    featureId: integer('feature_id')
      .notNull()
      .references(() => productFeatures.id, { onDelete: 'cascade' }),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.featureId, t.productId] }),
    index('product_feature_links_product_idx').on(t.productId),
  ],
);
