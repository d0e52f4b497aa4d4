/**
 * Device admin (seed /device-admin: stock, create, fast-out-stock) and the device timeline. Stock = devices without
 * an owner. Creating stock reuses the device create and import calls (`POST /api/devices`, `/api/devices/import`)
 * and adds a range; shipping hands stock devices to a customer account with one shipment record.
 * docs/device-stock.md describes the rules.
 */
import { z } from 'zod';
import { text } from './text';
import { pageQuery } from './common';
import { PRODUCT_KEY_RULE } from './protocol';
import { deviceCreateLine } from './devices';
import { SN_PREFIX_RULE, testedState } from './production';

const iso = text();
const id = z.coerce.number().int().positive().max(2_147_483_647);
const DAY_RULE = /^\d{4}-\d{2}-\d{2}$/;
const day = text().regex(DAY_RULE, 'date_rule');

// --- stock list -----------------------------------------------------------------------------------------------------

export const stockListQuery = pageQuery.extend({
  /** Substring of sn, name, IMEI or ICCID (the device list's search). */
  keyword: text().trim().max(64).optional(),
  product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule').optional(),
  /** Created on or after this day (UTC, YYYY-MM-DD). */
  created_from: day.optional(),
  /** Created on or before this day (UTC, YYYY-MM-DD). */
  created_to: day.optional(),
  /** Made by this production task. */
  task_id: id.optional(),
  /** In this productive group. */
  group_id: id.optional(),
  /** Factory test state (untested = no report yet). */
  tested: testedState.optional(),
});
export type StockListQuery = z.input<typeof stockListQuery>;

export const STOCK_EXPORT_MAX = 20_000;
export const stockExportQuery = stockListQuery.omit({ current: true, per_page: true });
export type StockExportQuery = z.input<typeof stockExportQuery>;

export const stockItem = z.object({
  id: z.number().int(),
  sn: text(),
  name: text(),
  product_key: text(),
  product_name: text(),
  imei: text(),
  iccid: text(),
  task_id: z.number().int().nullable(),
  task_name: text().nullable(),
  tested: testedState,
  createdat: iso,
});
export type StockItem = z.infer<typeof stockItem>;

// --- create a range -------------------------------------------------------------------------------------------------

export const STOCK_RANGE_MAX = 10_000;

/** prefix + the number zero-padded to `digits`, for every number from..to: `DTU` 1..3 digits 4 = DTU0001..DTU0003. */
export const stockRangeBody = z
  .object({
    product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule'),
    prefix: text().trim().regex(SN_PREFIX_RULE, 'sn_prefix_rule'),
    from: z.number().int().min(0).max(99_999_999),
    to: z.number().int().min(0).max(99_999_999),
    digits: z.number().int().min(1).max(8).default(4),
    name: text().trim().max(64).optional(),
    description: text().trim().max(200).optional(),
  })
  .refine((b) => b.to >= b.from, { path: ['to'], message: 'range_order' })
  .refine((b) => b.to - b.from < STOCK_RANGE_MAX, { path: ['to'], message: 'range_too_big' });
export type StockRangeBody = z.input<typeof stockRangeBody>;

/** The sns of a range, in order. */
export function rangeSns(b: { prefix: string; from: number; to: number; digits: number }): string[] {
  const out: string[] = [];
  for (let n = b.from; n <= b.to; n += 1) out.push(`${b.prefix}${String(n).padStart(b.digits, '0')}`);
  return out;
}

export const stockRangeResult = z.object({
  total: z.number().int(),
  created: z.number().int(),
  failed: z.number().int(),
  /** One line per sn, as `POST /api/devices` answers (created, 20402 exists, 20403 other product, 10113). */
  lines: z.array(deviceCreateLine),
});
export type StockRangeResult = z.infer<typeof stockRangeResult>;

// --- checks and shipping ---------------------------------------------------------------------------------------------

export const SHIP_MAX = 1000;

const snList = z
  .union([z.array(text().max(64)), text().max(70_000)])
  .transform((v) =>
    (Array.isArray(v) ? v : v.split(/\r?\n/)).map((s) => s.trim()).filter((s) => s.length > 0),
  )
  .pipe(z.array(text()).max(SHIP_MAX));

export const stockCheckBody = z.object({ sns: snList.pipe(z.array(text()).min(1)) });
export type StockCheckBody = z.input<typeof stockCheckBody>;

/** in_stock: may ship; owned: someone has it (11014); not_found: no such device (10117); invalid: not an sn (10113). */
export const STOCK_STATES = ['in_stock', 'owned', 'not_found', 'invalid'] as const;
export const stockState = z.enum(STOCK_STATES);
export type StockState = z.infer<typeof stockState>;

export const stockCheckLine = z.object({
  sn: text(),
  state: stockState,
  code: z.number().int(),
  product_name: text(),
});
export type StockCheckLine = z.infer<typeof stockCheckLine>;

export const shipmentBody = z
  .object({
    /** The customer account: its username or its phone number. */
    customer: text().trim().min(1).max(64),
    sns: snList.default([]),
    /** Ship the in-stock devices of this productive group (with `sns`, if any). */
    group_id: z.number().int().positive().max(2_147_483_647).optional(),
    note: text().trim().max(200).default(''),
  })
  .refine((b) => b.sns.length > 0 || b.group_id !== undefined, { path: ['sns'], message: 'required' });
export type ShipmentBody = z.input<typeof shipmentBody>;

export const SHIP_RESULTS = ['shipped', 'owned', 'not_found', 'invalid', 'duplicate'] as const;
export const shipLine = z.object({
  sn: text(),
  /** 0 shipped; 11014 owned by someone; 10117 no such device; 10113 not an sn or listed twice. */
  code: z.number().int(),
  result: z.enum(SHIP_RESULTS),
});
export type ShipLine = z.infer<typeof shipLine>;

export const shipmentItem = z.object({
  id: z.number().int(),
  customer_uid: z.number().int(),
  customer: text(),
  created_by: text(),
  count: z.number().int(),
  note: text(),
  createdat: iso,
});
export type ShipmentItem = z.infer<typeof shipmentItem>;

export const shipmentDetail = shipmentItem.extend({
  devices: z.array(z.object({ sn: text(), product_name: text() })),
});
export type ShipmentDetail = z.infer<typeof shipmentDetail>;

export const shipmentResult = z.object({
  /** Null when no line could ship (nothing is recorded then). */
  shipment: shipmentItem.nullable(),
  shipped: z.number().int(),
  failed: z.number().int(),
  lines: z.array(shipLine),
});
export type ShipmentResult = z.infer<typeof shipmentResult>;

export const shipmentListQuery = pageQuery.extend({
  /** Substring of the customer's username. */
  keyword: text().trim().max(64).optional(),
});
export type ShipmentListQuery = z.input<typeof shipmentListQuery>;
export const shipmentIdParams = z.object({ id });

// --- timeline ---------------------------------------------------------------------------------------------------------

export const TIMELINE_EVENTS = [
  'produced',
  'tested',
  'shipped',
  'bound',
  'first_connect',
  'sim_activated',
  'unbound',
] as const;
export const timelineEvent = z.object({
  event: z.enum(TIMELINE_EVENTS),
  at: iso,
  /**
   * What the step names: produced `task` (production task name, if any); tested `ok`; shipped `customer`;
   * bound / unbound `user` (admins only; a bound step of a shipment names its customer, with `shipment: true`);
   * sim_activated `iccid`.
   */
  detail: z.record(text(), z.union([text(), z.boolean(), z.number()])),
});
export type TimelineEvent = z.infer<typeof timelineEvent>;
export const deviceTimeline = z.object({ sn: text(), events: z.array(timelineEvent) });
export type DeviceTimeline = z.infer<typeof deviceTimeline>;
