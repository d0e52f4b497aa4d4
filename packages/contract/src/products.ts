/** Products (device models): /api/products. A product owns its devices' topics prefix and a registration secret. */
import { z } from 'zod';
import { text } from './text';
import { pageQuery } from './common';
import { deviceConfig } from './device-config';
import { PLATFORM_TYPES } from './platforms';
import { PRODUCT_KEY_RULE, PROPERTY_KEY_RULE } from './protocol';

export const PRODUCT_NODETYPES = ['direct', 'gateway', 'sub_device'] as const;
export const PRODUCT_DATAFORMATS = ['json', 'raw'] as const;
export const PROPERTY_DATATYPES = ['number', 'string', 'bool'] as const;
export const PROPERTY_CHARTTYPES = ['line', 'bar', 'gauge', 'none'] as const;

export const productProperty = z.object({
  key: text().regex(PROPERTY_KEY_RULE, 'property_key_rule'),
  name: text().trim().min(1).max(64),
  name_us: text().trim().max(64).default(''),
  charttype: z.enum(PROPERTY_CHARTTYPES).default('line'),
  datatype: z.enum(PROPERTY_DATATYPES).default('number'),
  unit: text().trim().max(16).default(''),
  /** Expected report cycle in seconds (0 = irregular). */
  cycles: z.number().int().min(0).max(86_400).default(0),
});
export type ProductProperty = z.infer<typeof productProperty>;

const productFields = {
  name: text().trim().min(1).max(64),
  nodetype: z.enum(PRODUCT_NODETYPES).default('direct'),
  protocol: text().trim().min(1).max(32).default('mqtt'),
  dataformat: z.enum(PRODUCT_DATAFORMATS).default('json'),
  product_code: text().trim().max(64).default(''),
  description: text().trim().max(200).default(''),
  mqtt_interval: z.number().int().min(0).max(86_400).default(60),
  property_interval: z.number().int().min(0).max(86_400).default(60),
  config_post_size: z.number().int().min(0).max(1_048_576).default(0),
  /** Days of property history kept (docs/telemetry-scale.md "Retention"); null keeps it for ever. */
  retention_days: z.number().int().min(1).max(36_500).nullable().default(null),
};

/** Binding to a third-party cloud (platforms.ts); null unbinds. */
const platformBinding = {
  iot_platform_id: z.number().int().min(1).max(2_147_483_647).nullable(),
  /** Checked against the bound platform's type (PRODUCT_PLATFORM_CONFIG_SCHEMAS). */
  iot_platform_config: z.record(text(), z.unknown()),
  /** The default configuration of the product's devices (PROTOCOL.md "Configuration"). */
  device_config: deviceConfig,
};

export const productCreateBody = z.object({
  ...productFields,
  /** Generated when absent. */
  product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule').optional(),
  iot_platform_id: platformBinding.iot_platform_id.default(null),
  iot_platform_config: platformBinding.iot_platform_config.default({}),
  device_config: platformBinding.device_config.default({}),
  properties: z
    .array(productProperty)
    .max(200)
    .default([])
    .refine((list) => new Set(list.map((p) => p.key)).size === list.length, 'duplicate property key'),
});
export type ProductCreateBody = z.input<typeof productCreateBody>;

export const productUpdateBody = z
  .object({
    name: productFields.name,
    nodetype: z.enum(PRODUCT_NODETYPES),
    protocol: text().trim().min(1).max(32),
    dataformat: z.enum(PRODUCT_DATAFORMATS),
    product_code: text().trim().max(64),
    description: text().trim().max(200),
    mqtt_interval: z.number().int().min(0).max(86_400),
    property_interval: z.number().int().min(0).max(86_400),
    config_post_size: z.number().int().min(0).max(1_048_576),
    retention_days: z.number().int().min(1).max(36_500).nullable(),
    ...platformBinding,
    properties: z
      .array(productProperty)
      .max(200)
      .refine((list) => new Set(list.map((p) => p.key)).size === list.length, 'duplicate property key'),
  })
  .partial();
export type ProductUpdateBody = z.input<typeof productUpdateBody>;

export const productKeyParams = z.object({ product_key: text().regex(PRODUCT_KEY_RULE) });
export const productPropertyParams = productKeyParams.extend({
  key: text().regex(PROPERTY_KEY_RULE, 'property_key_rule'),
});
/** PUT /api/products/:product_key/properties/:key: the key may change too. */
export const productPropertyUpdateBody = productProperty;

export const productListQuery = pageQuery.extend({ keyword: text().trim().max(64).optional() });
export type ProductListQuery = z.infer<typeof productListQuery>;

export const productItem = z.object({
  id: z.number().int(),
  name: text(),
  product_key: text(),
  nodetype: z.enum(PRODUCT_NODETYPES),
  protocol: text(),
  dataformat: z.enum(PRODUCT_DATAFORMATS),
  product_code: text(),
  description: text(),
  mqtt_interval: z.number().int(),
  property_interval: z.number().int(),
  config_post_size: z.number().int(),
  /** Days of property history kept; null keeps it for ever. */
  retention_days: z.number().int().nullable(),
  iot_platform_id: z.number().int().nullable(),
  iot_platform_name: text(),
  iot_platform_type: z.enum(PLATFORM_TYPES).nullable(),
  uid: z.number().int().nullable(),
  device_count: z.number().int(),
  /** Devices whose reported configuration version differs from the expected one. */
  config_version_different: z.number().int(),
  createdat: text(),
  updatedat: text(),
});
export type ProductItem = z.infer<typeof productItem>;

/**
 * What the caller may do with a product: `manage` (its owner or an admin: edit, delete, see the secrets) or `view`
 * (a user with a device of the product: read its fields and properties; secrets, platform configuration and default
 * device configuration come back empty, and the device figures count only the caller's devices).
 */
export const PRODUCT_ACCESS = ['manage', 'view'] as const;
export type ProductAccess = (typeof PRODUCT_ACCESS)[number];

export const productDetail = productItem.extend({
  /** For dynamic registration (PROTOCOL.md); shown to the product's owner and admins, empty for `view`. */
  product_secret: text(),
  properties: z.array(productProperty),
  iot_platform_config: z.record(text(), z.unknown()),
  device_config: z.record(text(), z.unknown()),
  access: z.enum(PRODUCT_ACCESS),
});
export type ProductDetail = z.infer<typeof productDetail>;

/** `details` of the 10112 answer refusing to delete a product that still has devices. */
export const productDeleteRefusal = z.object({ device_count: z.number().int() });
export type ProductDeleteRefusal = z.infer<typeof productDeleteRefusal>;
