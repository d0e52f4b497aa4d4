/** Devices: /api/devices and the per-device resources (commands, config, properties, logs, raw). */
import { z } from 'zod';
import { text } from './text';
import { listEnvelope, pageQuery } from './common';
import { deviceConfig } from './device-config';
import { commandType, PRODUCT_KEY_RULE, PROPERTY_KEY_RULE, SN_RULE, propertyValue } from './protocol';
import { deviceShareMark } from './shares';

export const snParams = z.object({ sn: text().regex(SN_RULE, 'sn_rule') });

/** The seed's form takes several SNs, one per line; the API takes the lines as they are or an array. */
export const deviceCreateBody = z.object({
  product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule'),
  sn: z
    .union([z.array(text().max(64)), text().max(100_000)])
    .transform((v) =>
      (Array.isArray(v) ? v : v.split(/\r?\n/)).map((s) => s.trim()).filter((s) => s.length > 0),
    )
    .pipe(z.array(text()).min(1).max(1000)),
  name: text().trim().max(64).optional(),
  description: text().trim().max(200).optional(),
  /** Admins only: the owner. Without it an admin's devices are "in stock" (no owner). A user id fits int4. */
  uid: z.number().int().positive().max(2_147_483_647).nullable().optional(),
});
export type DeviceCreateBody = z.input<typeof deviceCreateBody>;

/**
 * Why a line of a create or an import was refused (10113), as keys the console words in the user's language:
 * the field (an import column, `sn` for a create) and the rule it broke, with the rule's numbers in `params`
 * (`max` for too_long, `row` for duplicate). `message` keeps the same in English for API callers.
 */
export const DEVICE_LINE_RULES = [
  'sn_rule',
  'imei_rule',
  'iccid_rule',
  'imsi_rule',
  'too_long',
  'bad_text',
  'duplicate',
  'invalid',
] as const;
export type DeviceLineRule = (typeof DEVICE_LINE_RULES)[number];
const lineReason = {
  field: text().optional(),
  rule: z.enum(DEVICE_LINE_RULES).optional(),
  params: z.record(text(), z.number()).optional(),
  message: text().optional(),
};

/** One line of a create: `created`, or the code that says why not (20402 exists, 20403 other product, 10113 sn). */
export const deviceCreateLine = z.object({
  sn: text(),
  code: z.number().int(),
  result: z.enum(['created', 'exists', 'wrong_product', 'invalid']),
  ...lineReason,
});
export type DeviceCreateLine = z.infer<typeof deviceCreateLine>;

export const deviceUpdateBody = z
  .object({
    name: text().trim().max(64),
    description: text().trim().max(200),
    address: text().trim().max(200),
    disabled: z.boolean(),
    /** Admins only. null puts the device back in stock. A user id fits int4 (2^31 answered 500). */
    uid: z.number().int().positive().max(2_147_483_647).nullable(),
  })
  .partial();
export type DeviceUpdateBody = z.input<typeof deviceUpdateBody>;

export const deviceListQuery = pageQuery.extend({
  /** Up to 1000 so an export pages through a large fleet in few requests. */
  per_page: z.coerce.number().int().min(1).max(1000).default(20),
  /** Case-insensitive substring of sn, name, imei or iccid (no control characters). */
  keyword: text()
    .trim()
    .max(64)
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'no control characters')
    .optional(),
  product_key: text().regex(PRODUCT_KEY_RULE).optional(),
  online: z.enum(['0', '1']).optional(),
});
export type DeviceListQuery = z.infer<typeof deviceListQuery>;

const iso = text();
export const deviceItem = z.object({
  id: z.number().int(),
  sn: text(),
  uid: z.number().int().nullable(),
  name: text(),
  product_key: text(),
  product_name: text(),
  imsi: text(),
  iccid: text(),
  imei: text(),
  ipaddress: text(),
  protocol: text(),
  phone: text(),
  address: text(),
  rssi: z.number().nullable(),
  csq: z.number().nullable(),
  status: z.number().int(),
  hw_version: text(),
  fw_version: text(),
  online: z.union([z.literal(0), z.literal(1)]),
  config_version: z.number().int(),
  expect_config_version: z.number().int(),
  config_version_different: z.boolean(),
  activatedat: iso.nullable(),
  lastcommunicationat: iso.nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  description: text(),
  uplink: text(),
  login_protocol: text(),
  bootloader_version: text(),
  cellular_mode: text(),
  signal_strength: z.number().nullable(),
  band: text(),
  pci: text(),
  cell_id: text(),
  disabled: z.boolean(),
  /** Messages dropped by the gateway (malformed, schema, ACL, rate limit); the device log says why. */
  rejected_count: z.number().int(),
  createdat: iso,
  updatedat: iso,
});
export type DeviceItem = z.infer<typeof deviceItem>;

/** How a property is named and measured, as the device list shows its latest value. */
export const propertyLabel = z.object({ key: text(), name: text(), name_us: text(), unit: text() });
export type PropertyLabel = z.infer<typeof propertyLabel>;

/** A row of GET /api/devices: the device, its owner's username (null in stock) and its latest value per property. */
export const deviceListItem = deviceItem.extend({
  owner: text().nullable(),
  last_values: z.record(text(), propertyValue),
  /** Shared with the caller: the share's right, owner and expiry (docs/sharing.md); null for own devices. */
  share: deviceShareMark.optional(),
});
export type DeviceListItem = z.infer<typeof deviceListItem>;

/**
 * GET /api/devices answers the list envelope plus `total_exact`. Counting every match of a large fleet on each page
 * is what made the list slow, so the server counts at most `offset + DEVICE_LIST_COUNT_CAP` matches: below that
 * `total` is exact (`total_exact: true`); at the cap `total` is a lower bound (`total_exact: false`, "10,000+").
 */
export const deviceListEnvelope = listEnvelope(deviceListItem).extend({
  total_exact: z.boolean(),
  /**
   * The words for `last_values`: for each product on the page, its properties (in the product's order) with their
   * names and units, so the list shows "温度 21.5 °C" without asking for each product after the list answers.
   */
  property_defs: z.record(text(), z.array(propertyLabel)),
});
export type DeviceListEnvelope = z.infer<typeof deviceListEnvelope>;

// --- bind / unbind ------------------------------------------------------------------------------------------
/**
 * A user claims an in-stock device (no owner) with its sn and its secret, as printed on the label or given by the
 * seller: knowing a serial number alone is not proof of holding the device. Unknown sn and wrong secret answer
 * alike (10117); a device with an owner answers 11014.
 */
export const deviceBindBody = z.object({
  sn: text().trim().regex(SN_RULE, 'sn_rule'),
  secret: text().trim().min(1).max(128),
});
export type DeviceBindBody = z.input<typeof deviceBindBody>;

// --- import -------------------------------------------------------------------------------------------------
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
export const MAX_IMPORT_ROWS = 5000;
/** Columns an import file may have (first row = headers, `sn` required); other columns are ignored. */
export const DEVICE_IMPORT_COLUMNS = [
  'sn',
  'name',
  'imei',
  'iccid',
  'imsi',
  'phone',
  'address',
  'description',
] as const;
export type DeviceImportColumn = (typeof DEVICE_IMPORT_COLUMNS)[number];

/** One data row of an import file, checked cell by cell (empty cells are left out and change nothing). */
export const deviceImportRow = z.object({
  sn: text().regex(SN_RULE, 'sn_rule'),
  name: text().max(64).optional(),
  imei: text()
    .regex(/^\d{14,17}$/, 'imei_rule')
    .optional(),
  iccid: text()
    .regex(/^[0-9A-Fa-f]{18,22}$/, 'iccid_rule')
    .optional(),
  imsi: text()
    .regex(/^\d{6,15}$/, 'imsi_rule')
    .optional(),
  phone: text().max(32).optional(),
  address: text().max(200).optional(),
  description: text().max(200).optional(),
});

/** The English words of each rule, for `message` (the console has its own in both languages). */
export const DEVICE_LINE_RULE_TEXT: Record<DeviceLineRule, (params: Record<string, number>) => string> = {
  sn_rule: () => '1-64 letters, digits, _ . : - (starting with a letter or digit)',
  imei_rule: () => '14-17 digits',
  iccid_rule: () => '18-22 hex digits',
  imsi_rule: () => '6-15 digits',
  too_long: (p) => `at most ${p.max ?? '?'} characters`,
  bad_text: () => 'contains a NUL or a broken character',
  duplicate: (p) => `same as row ${p.row ?? '?'}`,
  invalid: () => 'invalid',
};

/** `field`, `rule`, `params` and the English `message` of a refused line. */
export function deviceLineReason(
  field: string,
  rule: DeviceLineRule,
  params?: Record<string, number>,
): { field: string; rule: DeviceLineRule; params?: Record<string, number>; message: string } {
  return {
    field,
    rule,
    ...(params ? { params } : {}),
    message: `${field}: ${DEVICE_LINE_RULE_TEXT[rule](params ?? {})}`,
  };
}
export type DeviceImportRow = z.infer<typeof deviceImportRow>;

const flag = z
  .enum(['0', '1', 'true', 'false'])
  .optional()
  .transform((v) => v === '1' || v === 'true');
/** POST /api/devices/import?product_key=..&update_only=1 with one multipart file (.csv or .xlsx). */
export const deviceImportQuery = z.object({
  product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule'),
  /** Only update existing devices of this product; rows of unknown SNs are reported (10117), none is created. */
  update_only: flag,
});
export type DeviceImportQuery = z.input<typeof deviceImportQuery>;

export const DEVICE_IMPORT_RESULTS = [
  'created',
  'updated',
  'exists',
  'wrong_product',
  'not_found',
  'invalid',
] as const;
/** One data row: `row` is its line in the file (headers are row 1). */
export const deviceImportLine = z.object({
  row: z.number().int(),
  sn: text(),
  code: z.number().int(),
  result: z.enum(DEVICE_IMPORT_RESULTS),
  ...lineReason,
});
export type DeviceImportLine = z.infer<typeof deviceImportLine>;
export const deviceImportResult = z.object({
  total: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int(),
  lines: z.array(deviceImportLine),
});
export type DeviceImportResult = z.infer<typeof deviceImportResult>;

// --- public page --------------------------------------------------------------------------------------------
/** GET /api/public/devices/:sn, for the label's QR code: only what anyone holding the device may see. */
export const publicDevice = z.object({
  sn: text(),
  name: text(),
  product_name: text(),
  online: z.union([z.literal(0), z.literal(1)]),
  lastcommunicationat: iso.nullable(),
});
export type PublicDevice = z.infer<typeof publicDevice>;

export const deviceDetail = deviceItem.extend({
  /** The MQTT password (PROTOCOL.md); shown to the device's owner and admins (empty for a share's holder). */
  secret: text(),
  /** Shared with the caller: the share's right, owner and expiry (docs/sharing.md); null for own devices. */
  share: deviceShareMark.optional(),
  iot_platform_param: z.record(text(), z.unknown()),
  /** Latest value of each property. */
  properties: z.array(z.object({ key: text(), ts: iso, value: propertyValue })),
});
export type DeviceDetail = z.infer<typeof deviceDetail>;

// --- commands -----------------------------------------------------------------------------------------------
/** A queued command waits this long for its device unless the sender says otherwise (seconds). */
export const COMMAND_TTL_DEFAULT_S = 86_400;
export const COMMAND_TTL_MIN_S = 60;
export const COMMAND_TTL_MAX_S = 7 * 86_400;
/** At most this many commands wait for one device at a time (a 101st is refused with 20405). */
export const COMMAND_QUEUE_MAX = 100;
/**
 * What a send does when the device is offline: `fail` refuses it with 20401 (the seed's behaviour, the default);
 * `queue` keeps it `pending` until the device next subscribes to its commands, for `ttl_seconds`.
 */
export const COMMAND_OFFLINE_MODES = ['fail', 'queue'] as const;
export type CommandOfflineMode = (typeof COMMAND_OFFLINE_MODES)[number];
export const commandBody = z
  .object({
    type: commandType,
    data: text().min(1).max(4096),
    offline: z.enum(COMMAND_OFFLINE_MODES).default('fail'),
    /** Only with `offline: "queue"`: how long the command may wait, 60 s to 7 days; 24 h when left out. */
    ttl_seconds: z.number().int().min(COMMAND_TTL_MIN_S).max(COMMAND_TTL_MAX_S).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.ttl_seconds !== undefined && b.offline !== 'queue') {
      ctx.addIssue({
        code: 'custom',
        path: ['ttl_seconds'],
        message: 'ttl_seconds applies only with offline "queue"',
      });
    }
  });
/** What callers send: `offline` and `ttl_seconds` may be left out. */
export type CommandBody = z.input<typeof commandBody>;
/**
 * `pending` waits for the device (queued), `sent` went out and waits for the reply, `replied`, `timeout` (no reply
 * within 30 s), `failed` (the broker did not take it), `expired` (still pending when its time-to-live ran out),
 * `cancelled` (withdrawn while pending).
 */
export const COMMAND_STATUSES = [
  'pending',
  'sent',
  'replied',
  'timeout',
  'failed',
  'expired',
  'cancelled',
] as const;
export type CommandStatus = (typeof COMMAND_STATUSES)[number];
export const commandItem = z.object({
  id: text(),
  sn: text(),
  type: commandType,
  data: text(),
  status: z.enum(COMMAND_STATUSES),
  code: z.number().int().nullable(),
  reply: text().nullable(),
  uid: z.number().int().nullable(),
  /** When it went to the device; for a command that has not gone (pending, expired, cancelled), when it was queued. */
  sentat: iso,
  repliedat: iso.nullable(),
  /** Milliseconds from sent to replied. */
  latency_ms: z.number().int().nullable(),
  /** When it was queued for an offline device; null when it was sent at once. */
  queuedat: iso.nullable(),
  /** When a queued command stops waiting (`expired`); null when it was sent at once. */
  expiresat: iso.nullable(),
  /** The predefined command (command group) it was sent from, names as they were then; null when typed. */
  command_ref: z
    .object({ group_id: z.number().int(), command_id: z.number().int(), group: text(), name: text() })
    .nullable()
    .optional(),
});
export type CommandItem = z.infer<typeof commandItem>;
export const commandListQuery = pageQuery;
/** Command ids are 16 hex digits; shorter ones are accepted (and found in no history). */
export const commandParams = snParams.extend({ id: text().regex(/^[0-9a-f]{1,32}$/, 'command_id_rule') });

// --- config -------------------------------------------------------------------------------------------------
export const configPutBody = z.object({ config: deviceConfig });
export type ConfigPutBody = z.infer<typeof configPutBody>;
export const deviceConfigState = z.object({
  /** What the device last reported. */
  config: deviceConfig,
  /** What the platform wants it to run. */
  expect_config: deviceConfig,
  config_version: z.number().int(),
  expect_config_version: z.number().int(),
  config_version_different: z.boolean(),
  /** True when the expected config went down to the device now (it is online). */
  sent: z.boolean().optional(),
});
export type DeviceConfigState = z.infer<typeof deviceConfigState>;

// --- telemetry ----------------------------------------------------------------------------------------------
/** Without `key`: the latest value of every property. With `key`: its history, newest first, within from/to. */
export const propertiesQuery = z.object({
  key: text().regex(PROPERTY_KEY_RULE).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  current: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(5000).default(500),
});
export type PropertiesQuery = z.infer<typeof propertiesQuery>;
export const propertyPoint = z.object({ key: text(), ts: iso, value: propertyValue });
export type PropertyPoint = z.infer<typeof propertyPoint>;

// --- device log ---------------------------------------------------------------------------------------------
export const DEVICE_LOG_EVENTS = [
  'connect',
  'disconnect',
  'rejected',
  'command',
  'command_reply',
  'command_queued',
  'command_expired',
  'command_cancelled',
  'config_set',
  'config_sent',
  'config_report',
  'registered',
  'ota',
  'created',
  'updated',
] as const;
export type DeviceLogEvent = (typeof DEVICE_LOG_EVENTS)[number];
export const deviceLogQuery = pageQuery.extend({ event: z.enum(DEVICE_LOG_EVENTS).optional() });
export type DeviceLogQuery = z.infer<typeof deviceLogQuery>;
export const deviceLogItem = z.object({
  id: z.number().int(),
  event: z.enum(DEVICE_LOG_EVENTS),
  detail: z.record(text(), z.unknown()),
  createdat: iso,
});
export type DeviceLogItem = z.infer<typeof deviceLogItem>;

// --- raw bytes ----------------------------------------------------------------------------------------------
export const RAW_ENCODINGS = ['hex', 'base64', 'utf8'] as const;
export const rawSendBody = z.object({
  data: text().min(1).max(131_072),
  encoding: z.enum(RAW_ENCODINGS).default('hex'),
});
export type RawSendBody = z.input<typeof rawSendBody>;
export const rawMessageItem = z.object({
  id: z.number().int(),
  direction: z.enum(['up', 'down']),
  /** Base64 of the bytes (at most MAX_RAW_BYTES are kept). */
  data: text(),
  size: z.number().int(),
  truncated: z.boolean(),
  createdat: iso,
});
export type RawMessageItem = z.infer<typeof rawMessageItem>;
