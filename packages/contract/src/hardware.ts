/**
 * Hardware info (seed /hw): a typed catalogue of hardware values (module model, MCU, board revision...), hardware
 * groups (a named bill of those values, at most one per type) that production tasks build, and per device what the
 * device itself reported on `up/info` at its factory test (docs/production.md, docs/device-protocol.md).
 */
import { z } from 'zod';
import { text } from './text';
import { pageQuery } from './common';

export const HW_VALUE_TYPES = [
  'module_model',
  'mcu',
  'board_revision',
  'antenna',
  'enclosure',
  'other',
] as const;
export const hwValueType = z.enum(HW_VALUE_TYPES);
export type HwValueType = z.infer<typeof hwValueType>;

export const hwIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

/**
 * A catalogue entry. The value is unique per type ignoring case and surrounding spaces ("EC200U" and "ec200u " are
 * the same module): a second one is refused with 70002.
 */
export const hwValueBody = z.object({
  type: hwValueType,
  value: text().trim().min(1).max(64),
  description: text().trim().max(200).default(''),
});
export type HwValueBody = z.input<typeof hwValueBody>;

export const hwValueUpdateBody = z
  .object({
    type: hwValueType,
    value: text().trim().min(1).max(64),
    description: text().trim().max(200),
  })
  .partial();
export type HwValueUpdateBody = z.input<typeof hwValueUpdateBody>;

export const hwValueListQuery = pageQuery.extend({
  type: hwValueType.optional(),
  /** Matches the value or the description. */
  keyword: text().trim().max(64).optional(),
});
export type HwValueListQuery = z.infer<typeof hwValueListQuery>;

export const hwValueItem = z.object({
  id: z.number().int(),
  type: hwValueType,
  value: text(),
  description: text(),
  /** Hardware groups that use it (a used value cannot be deleted: 10112). */
  groups: z.number().int(),
  createdat: text(),
  updatedat: text(),
});
export type HwValueItem = z.infer<typeof hwValueItem>;

const valueIds = z
  .array(z.number().int().positive().max(2_147_483_647))
  .max(HW_VALUE_TYPES.length)
  .refine((ids) => new Set(ids).size === ids.length, 'a value is listed twice');

/** A named hardware configuration: at most one value per type (checked by the server against the values). */
export const hwGroupBody = z.object({
  name: text().trim().min(1).max(64),
  description: text().trim().max(200).default(''),
  value_ids: valueIds.default([]),
});
export type HwGroupBody = z.input<typeof hwGroupBody>;

export const hwGroupUpdateBody = z
  .object({
    name: text().trim().min(1).max(64),
    description: text().trim().max(200),
    value_ids: valueIds,
  })
  .partial();
export type HwGroupUpdateBody = z.input<typeof hwGroupUpdateBody>;

export const hwGroupListQuery = pageQuery.extend({ keyword: text().trim().max(64).optional() });
export type HwGroupListQuery = z.infer<typeof hwGroupListQuery>;

export const hwGroupValue = z.object({ id: z.number().int(), type: hwValueType, value: text() });
export type HwGroupValue = z.infer<typeof hwGroupValue>;

export const hwGroupItem = z.object({
  id: z.number().int(),
  name: text(),
  description: text(),
  /** In the order of HW_VALUE_TYPES. */
  values: z.array(hwGroupValue),
  /** Production tasks that build it (a group in use cannot be deleted: 10112). */
  tasks: z.number().int(),
  createdat: text(),
  updatedat: text(),
});
export type HwGroupItem = z.infer<typeof hwGroupItem>;

/** A group's values as one short label ("EC200U / STM32F103 / v1.2"), shown as the device's hardware version. */
export const hwGroupLabel = (g: { name: string; values: { value: string }[] }): string =>
  g.values.length ? `${g.name} (${g.values.map((v) => v.value).join(' / ')})` : g.name;

// --- what devices reported (up/info `hw` and `test`) ---------------------------------------------------------------

/** The hardware fields a device may report in `up/info.hw`, each a string of at most 64 characters. */
export const HW_REPORT_FIELDS = ['module_model', 'module_fw', 'mcu_id', 'mac', 'board_revision'] as const;
export type HwReportField = (typeof HW_REPORT_FIELDS)[number];
/** The fields compared with the task's hardware group, and the value type each is compared with. */
export const HW_CHECKED_FIELDS: Partial<Record<HwReportField, HwValueType>> = {
  module_model: 'module_model',
  board_revision: 'board_revision',
};
export const HW_TEST_ITEMS_MAX = 32;

export const hwTestItem = z.object({ name: text(), ok: z.boolean(), detail: text().optional() });
export type HwTestItem = z.infer<typeof hwTestItem>;

export const hwInfoQuery = pageQuery.extend({
  /** Matches the sn or the IMEI. */
  keyword: text().trim().max(64).optional(),
  task_id: z.coerce.number().int().positive().max(2_147_483_647).optional(),
});
export type HwInfoQuery = z.infer<typeof hwInfoQuery>;
export const hwInfoExportQuery = hwInfoQuery.omit({ current: true, per_page: true });
export const HW_INFO_EXPORT_MAX = 20_000;

export const hwInfoItem = z.object({
  sn: text(),
  product_key: text(),
  imei: text(),
  module_model: text(),
  module_fw: text(),
  mcu_id: text(),
  mac: text(),
  board_revision: text(),
  /** Null: no test result reported yet. */
  test_ok: z.boolean().nullable(),
  test_items: z.array(hwTestItem),
  /** Fields whose reported value differs from the task's hardware group. */
  mismatch: z.array(text()),
  task_id: z.number().int().nullable(),
  first_at: text(),
  last_at: text(),
});
export type HwInfoItem = z.infer<typeof hwInfoItem>;
export const HW_INFO_EXPORT_COLUMNS = [
  'sn',
  'product_key',
  'imei',
  'module_model',
  'module_fw',
  'mcu_id',
  'mac',
  'board_revision',
  'test_ok',
  'mismatch',
  'task_id',
  'first_at',
  'last_at',
] as const;
