/**
 * Product features (seed /product/feature/*): capability flags admins define (GPS, RS485, dual SIM, Modbus master,
 * ...) and assign to products, with the device-page panels each one enables. The rule (docs/product-tooling.md):
 * a product with no feature shows every panel; once it has features, a gated panel shows only when one of its
 * features enables it. Today the gated panel is the command groups card (and its API).
 */
import { z } from 'zod';
import { pageQuery } from './common';
import { PRODUCT_KEY_RULE } from './protocol';
import { text } from './text';

export const FEATURE_KEY_RULE = /^[a-z][a-z0-9_]{0,31}$/;
/** Device-page panels a feature can enable. */
export const FEATURE_PANELS = ['command_groups'] as const;
export type FeaturePanel = (typeof FEATURE_PANELS)[number];

export const productFeatureBody = z.object({
  key: text().regex(FEATURE_KEY_RULE, 'feature_key_rule'),
  name: text().trim().min(1).max(64),
  name_us: text().trim().max(64).default(''),
  description: text().trim().max(200).default(''),
  panels: z
    .array(z.enum(FEATURE_PANELS))
    .max(FEATURE_PANELS.length)
    .default([])
    .transform((l) => [...new Set(l)]),
  /** The products that have it (replaces the list). */
  product_keys: z
    .array(text().regex(PRODUCT_KEY_RULE, 'product_key_rule'))
    .max(500)
    .default([])
    .transform((l) => [...new Set(l)]),
});
export type ProductFeatureBody = z.input<typeof productFeatureBody>;

export const productFeatureListQuery = pageQuery.extend({
  keyword: text().trim().max(64).optional(),
  product_key: text().trim().max(64).optional(),
});
export type ProductFeatureListQuery = z.infer<typeof productFeatureListQuery>;

export const featureIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

export const productFeatureItem = z.object({
  id: z.number().int(),
  key: text(),
  name: text(),
  name_us: text(),
  description: text(),
  panels: z.array(z.enum(FEATURE_PANELS)),
  products: z.array(z.object({ product_key: text(), name: text() })),
  createdat: text(),
  updatedat: text(),
});
export type ProductFeatureItem = z.infer<typeof productFeatureItem>;
