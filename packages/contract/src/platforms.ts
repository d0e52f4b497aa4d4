/**
 * Third-party IoT clouds (seed section 3 "Platform"): /api/platforms, admin only. A product bound to a platform gets,
 * for each of its devices, the MQTT connection parameters of that cloud (`iot_platform_param`), pushed to the device
 * in its configuration (PROTOCOL.md "Third-party cloud parameters").
 *
 * Secret fields of a platform_config are stored encrypted and never sent back: answers carry SECRET_MASK when one is
 * set ('' otherwise), and an update that sends SECRET_MASK (or leaves the field out) keeps the stored value.
 */
import { z } from 'zod';
import { text } from './text';
import { pageQuery } from './common';

export const PLATFORM_TYPES = ['aliyun', 'tencent', 'azure', 'netkit', 'mqtt'] as const;
export type PlatformType = (typeof PLATFORM_TYPES)[number];

export const SECRET_MASK = '******';

/** The secret field of each type's platform_config. */
export const PLATFORM_SECRET_FIELDS: Record<PlatformType, readonly string[]> = {
  aliyun: ['access_key_secret'],
  tencent: ['secret_key'],
  azure: ['policy_key'],
  netkit: ['app_secret'],
  mqtt: ['password'],
};

const HOST_RULE = /^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/;
const host = text().trim().max(253).regex(HOST_RULE, 'host_rule');
const optionalHost = z.union([z.literal(''), host]).default('');
const port = (fallback: number) => z.number().int().min(1).max(65535).default(fallback);
const secret = text().max(512).default('');
const ttlDays = z.number().int().min(1).max(3650).default(365);
const base64Key = /^[A-Za-z0-9+/]+={0,2}$/;

/** Alibaba Cloud IoT Platform: endpoint `<product_key>.iot-as-mqtt.<region_id>.aliyuncs.com` unless `host` is set. */
export const aliyunPlatformConfig = z.object({
  region_id: text()
    .trim()
    .regex(/^[a-z]{2}-[a-z0-9-]{2,30}$/, 'region_rule'),
  /** Instance endpoint (enterprise instances); empty = the public endpoint of the region. */
  host: optionalHost,
  port: port(1883),
  /** 2 = TLS, 3 = plain TCP (Alibaba Cloud's securemode). */
  securemode: z.union([z.literal(2), z.literal(3)]).default(3),
  signmethod: z.enum(['hmacsha256', 'hmacsha1']).default('hmacsha256'),
  access_key_id: text().trim().max(128).default(''),
  access_key_secret: secret,
});

/** Tencent Cloud IoT Hub / IoT Explorer: endpoint `<product_id>.iotcloud.tencentdevices.com` unless `host` is set. */
export const tencentPlatformConfig = z.object({
  region: text()
    .trim()
    .regex(/^[a-z]{2}-[a-z]{2,20}$/, 'region_rule')
    .default('ap-guangzhou'),
  host: optionalHost,
  port: port(1883),
  signmethod: z.enum(['hmacsha256', 'hmacsha1']).default('hmacsha256'),
  /** Validity of the generated password; the device gets a fresh one with every configuration push. */
  token_ttl_days: ttlDays,
  secret_id: text().trim().max(128).default(''),
  secret_key: secret,
});

/** Azure IoT Hub: devices sign in with a SAS token over MQTT on 8883 (TLS). */
export const azurePlatformConfig = z.object({
  hub_host: host.refine((h) => h.includes('.'), 'host_rule'),
  port: port(8883),
  api_version: text()
    .trim()
    .regex(/^\d{4}-\d{2}-\d{2}(-preview)?$/, 'api_version_rule')
    .default('2021-04-12'),
  token_ttl_days: ttlDays,
  /** A hub policy with DeviceConnect (e.g. `device`): signs tokens for devices without their own key. */
  policy_name: text().trim().max(64).default(''),
  policy_key: z.union([z.literal(''), text().max(512).regex(base64Key, 'base64_rule')]).default(''),
});

/** NetKit: an MQTT endpoint with an application key; devices sign in with the app key and their token. */
export const netkitPlatformConfig = z.object({
  host,
  port: port(1883),
  tls: z.boolean().default(false),
  app_key: text().trim().min(1).max(128),
  app_secret: secret,
});

/** Any standard MQTT broker. */
export const mqttPlatformConfig = z.object({
  host,
  port: port(1883),
  tls: z.boolean().default(false),
  username: text().max(128).default(''),
  password: secret,
  /** Devices connect as `<client_id_prefix><sn>`. */
  client_id_prefix: text().max(32).default(''),
});

export const PLATFORM_CONFIG_SCHEMAS = {
  aliyun: aliyunPlatformConfig,
  tencent: tencentPlatformConfig,
  azure: azurePlatformConfig,
  netkit: netkitPlatformConfig,
  mqtt: mqttPlatformConfig,
} as const;

const name = text().trim().min(1).max(64);

export const platformBody = z.discriminatedUnion('platform_type', [
  z.object({ name, platform_type: z.literal('aliyun'), platform_config: aliyunPlatformConfig }),
  z.object({ name, platform_type: z.literal('tencent'), platform_config: tencentPlatformConfig }),
  z.object({ name, platform_type: z.literal('azure'), platform_config: azurePlatformConfig }),
  z.object({ name, platform_type: z.literal('netkit'), platform_config: netkitPlatformConfig }),
  z.object({ name, platform_type: z.literal('mqtt'), platform_config: mqttPlatformConfig }),
]);
export type PlatformBody = z.input<typeof platformBody>;
export type PlatformBodyParsed = z.infer<typeof platformBody>;

export const platformIdParams = z.object({ id: z.coerce.number().int().min(1).max(2_147_483_647) });

export const platformListQuery = pageQuery.extend({
  keyword: text().trim().max(64).optional(),
  platform_type: z.enum(PLATFORM_TYPES).optional(),
});
export type PlatformListQuery = z.infer<typeof platformListQuery>;

export const platformItem = z.object({
  id: z.number().int(),
  name: text(),
  platform_type: z.enum(PLATFORM_TYPES),
  /** Secret fields masked. */
  platform_config: z.record(text(), z.unknown()),
  product_count: z.number().int(),
  createdat: text(),
  updatedat: text(),
});
export type PlatformItem = z.infer<typeof platformItem>;

/** What any signed-in user sees of a platform: enough to bind a product to it. */
export const platformOption = z.object({
  id: z.number().int(),
  name: text(),
  platform_type: z.enum(PLATFORM_TYPES),
});
export type PlatformOption = z.infer<typeof platformOption>;

// --- product binding ---------------------------------------------------------------------------------------------

const cloudId = text()
  .trim()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'cloud_id_rule');

/** A product's `iot_platform_config`, per type of the platform it is bound to. */
export const PRODUCT_PLATFORM_CONFIG_SCHEMAS = {
  /** The ProductKey of the product in Alibaba Cloud. */
  aliyun: z.object({ product_key: cloudId }),
  /** The ProductId in Tencent Cloud. */
  tencent: z.object({ product_id: cloudId }),
  azure: z.object({}),
  netkit: z.object({ product_id: z.union([z.literal(''), cloudId]).default('') }),
  mqtt: z.object({}),
} as const;

/**
 * Per-device identity in the cloud: aliyun DeviceSecret, tencent device PSK (base64), azure device primary key
 * (base64), netkit device token, mqtt password. `device_name` defaults to the sn.
 */
export const platformCredentialLine = z.object({
  sn: text().min(1).max(64),
  device_name: text().trim().max(64).optional(),
  device_secret: text().min(1).max(512),
});
export const platformCredentialsBody = z.object({ items: z.array(platformCredentialLine).min(1).max(1000) });
export type PlatformCredentialsBody = z.infer<typeof platformCredentialsBody>;

export const platformCredentialResult = z.object({
  sn: text(),
  /** 0 stored; 10117 no such device of this product; 10113 invalid secret for this cloud. */
  code: z.number().int(),
  message: text().optional(),
});

export const platformCredentialItem = z.object({
  sn: text(),
  device_name: text(),
  /** The secret is never sent back. */
  has_secret: z.boolean(),
  /** Whether iot_platform_param could be computed (a bound product and the credentials that cloud needs). */
  has_param: z.boolean(),
  updatedat: text().nullable(),
});
export type PlatformCredentialItem = z.infer<typeof platformCredentialItem>;

export const platformCredentialQuery = pageQuery;

// --- what the device gets ------------------------------------------------------------------------------------------

/** `iot_platform_param` of a device: how it connects to the cloud its product is bound to. */
export const iotPlatformParam = z.object({
  platform_type: z.enum(PLATFORM_TYPES),
  platform_id: z.number().int(),
  host: text(),
  port: z.number().int(),
  tls: z.boolean(),
  client_id: text(),
  username: text(),
  password: text(),
  /** The identity in the cloud (aliyun ProductKey / tencent ProductId) and the device name there. */
  product_key: text().optional(),
  device_name: text().optional(),
  /** When the password stops working (tencent, azure); null when it does not expire. */
  expires_at: text().nullable(),
  generated_at: text(),
  /** Keyed hash of what the parameters were computed from; not sent to the device. */
  fingerprint: text().optional(),
});
export type IotPlatformParam = z.infer<typeof iotPlatformParam>;

export const platformSyncResult = z.object({
  /** Devices whose parameters changed (their expected configuration version was raised). */
  updated: z.number().int(),
  /** Devices that lack the per-device credentials their cloud needs. */
  missing_credentials: z.number().int(),
});
export type PlatformSyncResult = z.infer<typeof platformSyncResult>;
