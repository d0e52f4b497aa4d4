/**
 * SIM cards, data packages, orders and balance (seed /card/*, /card-admin/*; issue 6). docs/sim.md describes the
 * model, the money rules, the sync job and the codes; this file is the shape of every call.
 *
 * Money: every amount is an integer number of fen (1 CNY = 100 fen) in a field ending in `_fen`; the console shows
 * it as yuan with two decimals (formatFen below). No amount is ever a float or a string.
 * Traffic: card figures are MB with up to 3 decimals (1 MB = 1024 * 1024 bytes); package `flow_mb` is whole MB.
 * Times: ISO 8601 strings (UTC); null when unknown.
 */
import { z } from 'zod';
import { text } from './text';
import { pageQuery } from './common';

// --- shared rules ----------------------------------------------------------------------------------------------

/** Seed: operator (China Mobile, Unicom, Telecom); `other` for operators outside China (1NCE ...). */
export const SIM_OPERATORS = ['china_mobile', 'china_unicom', 'china_telecom', 'other'] as const;
export type SimOperator = (typeof SIM_OPERATORS)[number];
export const simOperator = z.enum(SIM_OPERATORS);

/** Which API a provider account speaks: `manual` (data kept by hand and imports), China Mobile OneLink, 1NCE. */
export const SIM_PROVIDER_KINDS = ['manual', 'onelink', '1nce'] as const;
export type SimProviderKind = (typeof SIM_PROVIDER_KINDS)[number];
export const simProviderKind = z.enum(SIM_PROVIDER_KINDS);

/**
 * Card status, normalised over operators: `inactive` (stock, test, not yet in service), `active`, `suspended`
 * (stopped, can come back), `deactivated` (cancelled), `unknown` (the operator answered something unmapped;
 * `raw_status` keeps it).
 */
export const SIM_CARD_STATUSES = ['inactive', 'active', 'suspended', 'deactivated', 'unknown'] as const;
export type SimCardStatus = (typeof SIM_CARD_STATUSES)[number];
export const simCardStatus = z.enum(SIM_CARD_STATUSES);

/**
 * Flags on top of the status, set from the package and the usage: `expired` (expiry passed), `exhausted`
 * (no traffic left), `expiring` (expiry within 30 days), `swapped` (the device it sat in now reports another iccid,
 * or this iccid appeared in a device that had another one: SIM swap warning).
 */
export const SIM_CARD_FLAGS = ['expired', 'exhausted', 'expiring', 'swapped'] as const;
export type SimCardFlag = (typeof SIM_CARD_FLAGS)[number];

/** Integrated circuit card identifier: 19 or 20 digits (letters are not accepted). */
export const ICCID_RULE = /^\d{19,20}$/;

/** Luhn check over all digits (the last one is the check digit). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (d < 0 || d > 9) return false;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * Whether the Luhn check applies: a 20-digit ICCID outside China is the full E.118 number (19 digits and its Luhn
 * check digit), so it is checked. Not checked: 19-digit ICCIDs (operators such as 1NCE write them without the
 * check digit) and Chinese operators' 20-digit ICCIDs (prefix 8986), whose last digit is not a Luhn digit.
 */
export const iccidNeedsLuhn = (iccid: string): boolean => iccid.length === 20 && !iccid.startsWith('8986');

/** The reason an ICCID is refused, or null when it is fine: `iccid_rule` (form) or `iccid_luhn` (check digit). */
export function iccidProblem(iccid: string): 'iccid_rule' | 'iccid_luhn' | null {
  if (!ICCID_RULE.test(iccid)) return 'iccid_rule';
  if (iccidNeedsLuhn(iccid) && !luhnValid(iccid)) return 'iccid_luhn';
  return null;
}

export const iccid = text()
  .trim()
  .superRefine((v, ctx) => {
    const problem = iccidProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const msisdn = text()
  .trim()
  .regex(/^\+?\d{5,20}$/, 'msisdn_rule');
const imsi = text()
  .trim()
  .regex(/^\d{6,15}$/, 'imsi_rule');

/** 100 fen = 1 CNY. `formatFen(12345)` = "123.45". */
export function formatFen(fen: number): string {
  const sign = fen < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(fen));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Largest single amount (price, top-up): 1,000,000 CNY. */
export const MAX_AMOUNT_FEN = 100_000_000;
const fen = z.number().int().min(0).max(MAX_AMOUNT_FEN);
const id = z.coerce.number().int().min(1).max(2_147_483_647);
const idBody = z.number().int().min(1).max(2_147_483_647);
const iso = text();
const keyword = text().trim().max(64).optional();
/** Query flag `1`/`0`/`true`/`false`. */
const flag = z
  .enum(['0', '1', 'true', 'false'])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === '1' || v === 'true'));

export const idParams = z.object({ id });
export const iccidParams = z.object({ iccid: text().regex(ICCID_RULE, 'iccid_rule') });

// --- providers (admin): /api/card-admin/providers ---------------------------------------------------------------

/** Stored encrypted and never sent back: answers carry SIM_SECRET_MASK when set ('' otherwise). */
export const SIM_SECRET_MASK = '******';

/** The secret fields of each kind's config. An update sending the mask (or '') keeps the stored value. */
export const SIM_PROVIDER_SECRET_FIELDS: Record<SimProviderKind, readonly string[]> = {
  manual: [],
  onelink: ['password'],
  '1nce': ['password'],
};

const baseUrl = z.union([z.literal(''), z.url({ protocol: /^https?$/ }).max(256)]).default('');

/** No remote API: cards, status and usage are kept by hand and by imports. */
export const manualProviderConfig = z.object({});
/** China Mobile OneLink (API v5 EC): 应用编码 appid and API 接入密钥. */
export const onelinkProviderConfig = z.object({
  appid: text()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[0-9A-Za-z]+$/, 'appid_rule'),
  password: text().max(256).default(''),
  /** Empty: the real service. */
  base_url: baseUrl,
});
/** 1NCE management API: the API user's name and password (OAuth2 client credentials). */
export const oneNceProviderConfig = z.object({
  username: text().trim().min(1).max(128),
  password: text().max(256).default(''),
  base_url: baseUrl,
});

export const SIM_PROVIDER_CONFIG_SCHEMAS = {
  manual: manualProviderConfig,
  onelink: onelinkProviderConfig,
  '1nce': oneNceProviderConfig,
} as const;

const providerFields = {
  name: text().trim().min(1).max(64),
  operator: simOperator,
  /** Minutes between scheduled syncs (0: only on demand). Ignored for `manual`. */
  sync_interval_min: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 60)
    .default(60),
  enabled: z.boolean().default(true),
  remark: text().trim().max(200).default(''),
};

export const simProviderBody = z.discriminatedUnion('kind', [
  z.object({ ...providerFields, kind: z.literal('manual'), config: manualProviderConfig.default({}) }),
  z.object({ ...providerFields, kind: z.literal('onelink'), config: onelinkProviderConfig }),
  z.object({ ...providerFields, kind: z.literal('1nce'), config: oneNceProviderConfig }),
]);
export type SimProviderBody = z.input<typeof simProviderBody>;
export type SimProviderBodyParsed = z.infer<typeof simProviderBody>;

export const simProviderListQuery = pageQuery.extend({
  keyword,
  kind: simProviderKind.optional(),
  operator: simOperator.optional(),
});
export type SimProviderListQuery = z.input<typeof simProviderListQuery>;

export const SIM_SYNC_STATUSES = ['queued', 'running', 'retry_wait', 'succeeded', 'failed'] as const;
export type SimSyncStatus = (typeof SIM_SYNC_STATUSES)[number];

export const simProviderItem = z.object({
  id: z.number().int(),
  name: text(),
  kind: simProviderKind,
  operator: simOperator,
  /** Secret fields masked. */
  config: z.record(text(), z.unknown()),
  sync_interval_min: z.number().int(),
  enabled: z.boolean(),
  remark: text(),
  card_count: z.number().int(),
  /** The latest sync run, if any. */
  last_sync_at: iso.nullable(),
  last_sync_status: z.enum(SIM_SYNC_STATUSES).nullable(),
  last_sync_error: text().nullable(),
  createdat: iso,
  updatedat: iso,
});
export type SimProviderItem = z.infer<typeof simProviderItem>;

/** POST /api/card-admin/providers/:id/test: sign in with the stored credentials and make one cheap read. */
export const simProviderTestResult = z.object({
  ok: z.boolean(),
  /** auth | rate_limit | provider | not_found | null when ok. */
  error_kind: z.enum(['auth', 'rate_limit', 'provider', 'not_found']).nullable(),
  message: text(),
  latency_ms: z.number().int(),
});
export type SimProviderTestResult = z.infer<typeof simProviderTestResult>;

// --- sync runs ------------------------------------------------------------------------------------------------

export const simSyncRun = z.object({
  id: z.number().int(),
  provider_id: z.number().int(),
  provider_name: text(),
  /** `schedule` or `manual` (POST .../sync). */
  trigger: z.enum(['schedule', 'manual']),
  status: z.enum(SIM_SYNC_STATUSES),
  attempts: z.number().int(),
  /** When a `retry_wait` run is tried again. */
  next_attempt_at: iso.nullable(),
  started_at: iso.nullable(),
  finished_at: iso.nullable(),
  cards_total: z.number().int(),
  cards_updated: z.number().int(),
  /** Cards the operator does not know. */
  cards_not_found: z.number().int(),
  /** Cards newly flagged expired or exhausted by this run. */
  cards_flagged: z.number().int(),
  /** The last error (class and message), e.g. "RateLimitError: operator rate limit reached". */
  error: text().nullable(),
  createdat: iso,
});
export type SimSyncRun = z.infer<typeof simSyncRun>;

export const simSyncRunQuery = pageQuery.extend({
  provider_id: id.optional(),
  status: z.enum(SIM_SYNC_STATUSES).optional(),
});
export type SimSyncRunQuery = z.input<typeof simSyncRunQuery>;

// --- packages: /api/packages ----------------------------------------------------------------------------------

export const VALIDITY_UNITS = ['day', 'month', 'year'] as const;
export type ValidityUnit = (typeof VALIDITY_UNITS)[number];

/**
 * `monthly`: `flow_mb` every calendar month while valid (resets on the 1st, UTC); `pool`: `flow_mb` once for the
 * whole validity. A renewal of a pool package adds its flow to what is left.
 */
export const PACKAGE_TYPES = ['monthly', 'pool'] as const;
export type PackageType = (typeof PACKAGE_TYPES)[number];

export const PACKAGE_CODE_RULE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;

const packageFields = {
  name: text().trim().min(1).max(64),
  code: text().trim().regex(PACKAGE_CODE_RULE, 'package_code_rule'),
  operator: simOperator,
  type: z.enum(PACKAGE_TYPES),
  validity_unit: z.enum(VALIDITY_UNITS),
  validity_count: z.number().int().min(1).max(3650),
  flow_mb: z.number().int().min(1).max(100_000_000),
  /** Price in fen (CNY cents). */
  price_fen: fen,
  remark: text().trim().max(200).default(''),
  /** Users see and buy only packages on sale. */
  on_sale: z.boolean().default(true),
};

export const packageCreateBody = z.object(packageFields);
export type PackageCreateBody = z.input<typeof packageCreateBody>;

/**
 * Partial update. A package in use (a card has it, or an order bought it) refuses changes to
 * PACKAGE_LOCKED_FIELDS with 60001 (`details.fields`); name, remark and on_sale may always change.
 */
export const packageUpdateBody = z.object(packageFields).partial();
export type PackageUpdateBody = z.input<typeof packageUpdateBody>;
export const PACKAGE_LOCKED_FIELDS = [
  'code',
  'operator',
  'type',
  'validity_unit',
  'validity_count',
  'flow_mb',
  'price_fen',
] as const;

export const packageListQuery = pageQuery.extend({
  keyword,
  operator: simOperator.optional(),
  type: z.enum(PACKAGE_TYPES).optional(),
  /** Admins only; users always get on-sale packages. */
  on_sale: flag,
});
export type PackageListQuery = z.input<typeof packageListQuery>;

export const packageItem = z.object({
  id: z.number().int(),
  name: text(),
  code: text(),
  operator: simOperator,
  type: z.enum(PACKAGE_TYPES),
  validity_unit: z.enum(VALIDITY_UNITS),
  validity_count: z.number().int(),
  flow_mb: z.number().int(),
  price_fen: z.number().int(),
  remark: text(),
  on_sale: z.boolean(),
  /** Admins only (0 for users): cards on it and orders that bought it; > 0 locks price, flow and validity. */
  card_count: z.number().int(),
  order_count: z.number().int(),
  createdat: iso,
  updatedat: iso,
});
export type PackageItem = z.infer<typeof packageItem>;

// --- cards ----------------------------------------------------------------------------------------------------

const cardFields = {
  iccid,
  phone: z.union([z.literal(''), msisdn]).default(''),
  imsi: z.union([z.literal(''), imsi]).default(''),
  operator: simOperator,
  provider_id: idBody,
  /** The package the card is on (its validity starts now when given at creation). */
  package_id: idBody.nullable().default(null),
  /** Assign the card to a user (they see it even when no device of theirs reports it). */
  uid: idBody.nullable().default(null),
  remark: text().trim().max(200).default(''),
};

/** POST /api/card-admin/cards. */
export const simCardCreateBody = z.object(cardFields);
export type SimCardCreateBody = z.input<typeof simCardCreateBody>;

/**
 * PUT /api/card-admin/cards/:iccid (partial). `status`, `activation_time` and `expiry` are for manual providers
 * (remote providers' sync overwrites status). Changing `package_id` here does not charge anyone and does not
 * restart the validity; orders do that.
 */
export const simCardUpdateBody = z
  .object({
    // Without the creation defaults: a field left out keeps its value (a default would blank it).
    phone: cardFields.phone.unwrap(),
    imsi: cardFields.imsi.unwrap(),
    operator: simOperator,
    provider_id: idBody,
    package_id: idBody.nullable(),
    uid: idBody.nullable(),
    remark: cardFields.remark.unwrap(),
    status: simCardStatus,
    activation_time: z.iso.datetime({ offset: true }).nullable(),
    expiry: z.iso.datetime({ offset: true }).nullable(),
  })
  .partial();
export type SimCardUpdateBody = z.input<typeof simCardUpdateBody>;

/**
 * POST /api/card-admin/cards/:iccid/status: bring a card into service or stop it. Remote providers are asked
 * through their API (60008 when the operator fails or refuses, `details: {error_kind, message}`); manual cards just
 * change their recorded status.
 */
export const simCardStatusBody = z.object({ action: z.enum(['activate', 'suspend']) });
export type SimCardStatusBody = z.input<typeof simCardStatusBody>;

/** Filters of the user list (GET /api/cards) and the admin list (GET /api/card-admin/cards). */
export const simCardListQuery = pageQuery.extend({
  /** Part of iccid, phone (msisdn) or imsi, or of the sn of the device the card sits in. */
  keyword,
  status: simCardStatus.optional(),
  operator: simOperator.optional(),
  flag: z.enum(SIM_CARD_FLAGS).optional(),
  /** Expiry within this many days from now (expired cards excluded). */
  expiring_days: z.coerce.number().int().min(1).max(3650).optional(),
  /** Admin list only. */
  provider_id: id.optional(),
  package_id: id.optional(),
  /** Admin list only: cards assigned to this user. */
  uid: id.optional(),
});
export type SimCardListQuery = z.input<typeof simCardListQuery>;

/** GET /api/cards/export and GET /api/card-admin/cards/export: the same filters, a CSV file (UTF-8 with BOM). */
export const simCardExportQuery = simCardListQuery.omit({ current: true, per_page: true });
export const SIM_CARD_EXPORT_MAX = 20_000;
export const SIM_CARD_EXPORT_COLUMNS = [
  'iccid',
  'phone',
  'imsi',
  'operator',
  'status',
  'package_name',
  'remaining_traffic',
  'month_total',
  'month_used',
  'activation_time',
  'expiry',
  'device_sn',
] as const;

/** A row of the card lists (seed: phone, iccid, status, remaining traffic, month total, month used, activation time, expiry). */
export const simCardItem = z.object({
  iccid: text(),
  phone: text(),
  imsi: text(),
  operator: simOperator,
  status: simCardStatus,
  /** The operator's own status value (null for manual cards). */
  raw_status: text().nullable(),
  flags: z.array(z.enum(SIM_CARD_FLAGS)),
  /** MB left of the current allowance (month for `monthly` packages, whole pool for `pool`); null without a package. */
  remaining_traffic: z.number().nullable(),
  /** MB allowed this month (`monthly`) or in the pool (`pool`); null without a package. */
  month_total: z.number().nullable(),
  /** MB used in the current calendar month. */
  month_used: z.number(),
  activation_time: iso.nullable(),
  expiry: iso.nullable(),
  package_id: z.number().int().nullable(),
  package_name: text().nullable(),
  package_type: z.enum(PACKAGE_TYPES).nullable(),
  provider_id: z.number().int(),
  /** Admins only (null for users). */
  provider_name: text().nullable(),
  /** The device reporting this iccid now, if it is one the caller may see. */
  device_sn: text().nullable(),
  /** Assigned user (admins see it; users see their own uid or null). */
  uid: z.number().int().nullable(),
  username: text().nullable(),
  remark: text(),
  last_synced_at: iso.nullable(),
  createdat: iso,
  updatedat: iso,
});
export type SimCardItem = z.infer<typeof simCardItem>;

/** A SIM swap seen by the gateway: device `sn` reported `new_iccid` where it had `old_iccid`. */
export const simSwapEvent = z.object({
  sn: text(),
  old_iccid: text(),
  new_iccid: text(),
  at: iso,
});
export type SimSwapEvent = z.infer<typeof simSwapEvent>;

/** GET /api/cards/:iccid (owner: a device of theirs reports it or it is assigned to them; admins any). */
export const simCardDetail = simCardItem.extend({
  /** The device this card sits in (by iccid), when the caller may see it. */
  device: z
    .object({
      sn: text(),
      name: text(),
      product_key: text(),
      online: z.number().int(),
      lastcommunicationat: iso.nullable(),
    })
    .nullable(),
  /** SIM swaps that involve this iccid, newest first (at most 20); non-empty = show the warning. */
  swaps: z.array(simSwapEvent),
  /** Expiry as the operator reports it (remote providers), which may differ from the package expiry. */
  operator_expiry: iso.nullable(),
  /** Total and used MB of the current allowance as the operator reports them, when it offers a quota. */
  operator_quota: z
    .object({ total: z.number().nullable(), used: z.number().nullable(), remaining: z.number().nullable() })
    .nullable(),
  sync_error: text().nullable(),
});
export type SimCardDetail = z.infer<typeof simCardDetail>;

/** GET /api/cards/:iccid/usage: `day` (default: the last 30 days) or `month` (default: the last 12 months). */
export const simUsageQuery = z.object({
  granularity: z.enum(['day', 'month']).default('day'),
  /** YYYY-MM-DD for days, YYYY-MM for months; inclusive. */
  from: text()
    .regex(/^\d{4}-\d{2}(-\d{2})?$/, 'date_rule')
    .optional(),
  to: text()
    .regex(/^\d{4}-\d{2}(-\d{2})?$/, 'date_rule')
    .optional(),
});
export type SimUsageQuery = z.input<typeof simUsageQuery>;

export const simUsagePoint = z.object({
  /** YYYY-MM-DD or YYYY-MM. */
  period: text(),
  /** MB used. */
  used: z.number(),
});
export const simUsageSeries = z.object({
  granularity: z.enum(['day', 'month']),
  /** Oldest first; periods without figures are absent. */
  points: z.array(simUsagePoint),
});
export type SimUsageSeries = z.infer<typeof simUsageSeries>;

// --- batch creation and the stock creation log ------------------------------------------------------------------

export const MAX_SIM_IMPORT_BYTES = 5 * 1024 * 1024;
export const MAX_SIM_IMPORT_ROWS = 10_000;
/**
 * Columns of a batch file (.csv or .xlsx, first row = headers; `iccid` and `provider` required). `provider` is the
 * provider's id or exact name; `package` the package's code (or id); `phone` may also be headed `msisdn`.
 * `operator` is one of SIM_OPERATORS or 移动/联通/电信; empty = the provider's operator.
 */
export const SIM_IMPORT_COLUMNS = ['iccid', 'phone', 'imsi', 'operator', 'provider', 'package'] as const;

/** Why a row was not created. */
export const SIM_IMPORT_REASONS = [
  'iccid_rule',
  'iccid_luhn',
  'duplicate',
  'duplicate_in_file',
  'unknown_provider',
  'unknown_package',
  'invalid',
] as const;
export type SimImportReason = (typeof SIM_IMPORT_REASONS)[number];

export const simImportFailure = z.object({
  /** Line in the file (headers are row 1). */
  row: z.number().int(),
  iccid: text(),
  reason: z.enum(SIM_IMPORT_REASONS),
  message: text(),
});
export type SimImportFailure = z.infer<typeof simImportFailure>;

/** A stock creation log row (GET /api/card-admin/card-logs): who, when, how many, which failed and why. */
export const simCardLogItem = z.object({
  id: z.number().int(),
  uid: z.number().int().nullable(),
  username: text().nullable(),
  /** `batch` (file) or `single` (one card by form). */
  source: z.enum(['batch', 'single']),
  filename: text(),
  total: z.number().int(),
  created: z.number().int(),
  failed: z.number().int(),
  createdat: iso,
});
export type SimCardLogItem = z.infer<typeof simCardLogItem>;
export const simCardLogDetail = simCardLogItem.extend({
  failures: z.array(simImportFailure),
  /** ICCIDs created (at most 10,000). */
  iccids: z.array(text()),
});
export type SimCardLogDetail = z.infer<typeof simCardLogDetail>;
export const simCardLogQuery = pageQuery;

/** POST /api/card-admin/cards/batch (multipart, one file): the log row it wrote. */
export const simCardBatchResult = simCardLogDetail;
export type SimCardBatchResult = z.infer<typeof simCardBatchResult>;

/**
 * POST /api/card-admin/usage/import (multipart .csv/.xlsx, headers `iccid`, `date` (YYYY-MM-DD), `used_mb`): daily
 * usage for manual cards; a row replaces that card's figure for that day.
 */
export const simUsageImportResult = z.object({
  total: z.number().int(),
  imported: z.number().int(),
  failures: z.array(z.object({ row: z.number().int(), iccid: text(), message: text() })),
});
export type SimUsageImportResult = z.infer<typeof simUsageImportResult>;

// --- orders: /api/orders ----------------------------------------------------------------------------------------

/**
 * `pending` (created, not paid) -> `paid` (from the balance, or completed by an admin) -> `refunded`;
 * `pending` -> `cancelled`.
 */
export const ORDER_STATUSES = ['pending', 'paid', 'cancelled', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * Per card: `new` (the card had no package), `renew` (the same package again: validity extended from the current
 * expiry, a pool's flow added), `change` (another package: starts now, replacing the old one). The order's kind is
 * `renew` when every card renews, `change` when any card changes, else `new`.
 */
export const ORDER_KINDS = ['new', 'renew', 'change'] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];

/** `balance` (paid by the buyer's balance) or `manual` (an admin completed it: paid outside Cellhub). */
export const PAYMENT_METHODS = ['balance', 'manual'] as const;

export const MAX_ORDER_CARDS = 500;

/**
 * POST /api/orders: a pending order for one package on one or more cards the caller may see. An `Idempotency-Key`
 * header (1-64 visible characters) makes a repeat of the same call answer the same order instead of a new one.
 * `pay: true` pays it at once (same rules as POST /api/orders/:id/pay).
 */
export const orderCreateBody = z.object({
  package_id: idBody,
  iccids: z
    .array(text().trim().regex(ICCID_RULE, 'iccid_rule'))
    .min(1)
    .max(MAX_ORDER_CARDS)
    .refine((l) => new Set(l).size === l.length, 'duplicate iccid'),
  pay: z.boolean().default(false),
});
export type OrderCreateBody = z.input<typeof orderCreateBody>;

export const IDEMPOTENCY_KEY_RULE = /^[\x21-\x7e]{1,64}$/;

export const orderListQuery = pageQuery.extend({
  /** Order number or an iccid in the order. */
  keyword,
  status: z.enum(ORDER_STATUSES).optional(),
  kind: z.enum(ORDER_KINDS).optional(),
  /** Admins only: one buyer's orders. */
  uid: id.optional(),
  package_id: id.optional(),
  /** Created at or after / before (ISO 8601). */
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});
export type OrderListQuery = z.input<typeof orderListQuery>;

export const orderCardItem = z.object({
  iccid: text(),
  kind: z.enum(ORDER_KINDS),
  /** The card before and after payment (null while pending). */
  expiry_before: iso.nullable(),
  expiry_after: iso.nullable(),
  /** Whether a refund took the extension back (null until refunded). */
  reverted: z.boolean().nullable(),
});
export type OrderCardItem = z.infer<typeof orderCardItem>;

export const orderItem = z.object({
  id: z.number().int(),
  /** Human order number, e.g. SO20250314-000123. */
  order_no: text(),
  uid: z.number().int(),
  username: text().nullable(),
  kind: z.enum(ORDER_KINDS),
  status: z.enum(ORDER_STATUSES),
  package_id: z.number().int(),
  /** Snapshot at order time. */
  package_name: text(),
  package_code: text(),
  card_count: z.number().int(),
  unit_price_fen: z.number().int(),
  amount_fen: z.number().int(),
  payment_method: z.enum(PAYMENT_METHODS).nullable(),
  paid_at: iso.nullable(),
  refunded_at: iso.nullable(),
  cancelled_at: iso.nullable(),
  /** Admin note of a manual completion or a refund. */
  note: text(),
  createdat: iso,
  updatedat: iso,
});
export type OrderItem = z.infer<typeof orderItem>;

export const orderDetail = orderItem.extend({ cards: z.array(orderCardItem) });
export type OrderDetail = z.infer<typeof orderDetail>;

/** POST /api/orders/:id/refund and /complete (admin): the note is audited and shown in the ledger. */
export const orderAdminActionBody = z.object({ note: text().trim().max(200).default('') });
export type OrderAdminActionBody = z.input<typeof orderAdminActionBody>;

/** GET /api/cards/:iccid/orders: the package history of a card (paid, refunded and pending orders). */
export const simCardOrderItem = orderItem.extend({ card: orderCardItem });
export type SimCardOrderItem = z.infer<typeof simCardOrderItem>;

// --- balance: /api/balance ------------------------------------------------------------------------------------

export const balanceInfo = z.object({
  uid: z.number().int(),
  balance_fen: z.number().int(),
  updatedat: iso.nullable(),
});
export type BalanceInfo = z.infer<typeof balanceInfo>;

/** GET /api/balance (own; admins may pass ?uid=). */
export const balanceQuery = z.object({ uid: id.optional() });

export const LEDGER_KINDS = ['topup', 'order', 'refund'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

export const ledgerQuery = pageQuery.extend({
  /** Admins only: another user's ledger. */
  uid: id.optional(),
  kind: z.enum(LEDGER_KINDS).optional(),
});
export type LedgerQuery = z.input<typeof ledgerQuery>;

/** Every change of a balance, newest first: the signed amount and the balance right after it. */
export const ledgerItem = z.object({
  id: z.number().int(),
  uid: z.number().int(),
  kind: z.enum(LEDGER_KINDS),
  /** Positive for top-ups and refunds, negative for orders. */
  amount_fen: z.number().int(),
  balance_after_fen: z.number().int(),
  order_id: z.number().int().nullable(),
  order_no: text().nullable(),
  note: text(),
  /** Who made the change (the admin for top-ups and refunds, the buyer for orders). */
  operator_uid: z.number().int().nullable(),
  createdat: iso,
});
export type LedgerItem = z.infer<typeof ledgerItem>;

/** POST /api/balance/topups (admin). */
export const topupBody = z.object({
  uid: idBody,
  amount_fen: fen.min(1),
  note: text().trim().max(200).default(''),
});
export type TopupBody = z.input<typeof topupBody>;

/** GET /api/balance/accounts (admin): users with their balance. */
export const balanceAccountQuery = pageQuery.extend({ keyword });
export const balanceAccountItem = z.object({
  uid: z.number().int(),
  username: text(),
  balance_fen: z.number().int(),
  updatedat: iso.nullable(),
});
export type BalanceAccountItem = z.infer<typeof balanceAccountItem>;

// --- OTA hook -------------------------------------------------------------------------------------------------

/** simDownloadCheck answer per device: whether its SIM can take a download of that many bytes. */
export const SIM_DOWNLOAD_REASONS = ['expired', 'no_traffic', 'not_enough_traffic', 'suspended'] as const;
export type SimDownloadReason = (typeof SIM_DOWNLOAD_REASONS)[number];

// --- Workplace ------------------------------------------------------------------------------------------------

/** The SIM part of GET /api/dashboard/overview (the caller's cards, balance and orders; admins: all). */
export const dashboardSim = z.object({
  /** The caller's own balance. */
  balance_fen: z.number().int(),
  orders_pending: z.number().int(),
  /** Orders of kind `renew` that are paid (admins: everyone's). */
  orders_renewal: z.number().int(),
  cards_total: z.number().int(),
  cards_by_operator: z.array(z.object({ operator: simOperator, total: z.number().int() })),
  cards_expiring_30d: z.number().int(),
});
export type DashboardSim = z.infer<typeof dashboardSim>;
