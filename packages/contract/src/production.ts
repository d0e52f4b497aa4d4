/**
 * Production (seed /product/productive, /productive): production tasks that create devices in stock, their label
 * sheets and factory-test progress, and productive groups (batches of produced stock devices shipped together).
 * docs/production.md describes the rules.
 */
import { z } from 'zod';
import { text } from './text';
import { pageQuery } from './common';
import { PRODUCT_KEY_RULE, SN_RULE } from './protocol';

export const TASK_STATES = ['draft', 'producing', 'done', 'cancelled'] as const;
export const taskState = z.enum(TASK_STATES);
export type TaskState = z.infer<typeof taskState>;

export const TASK_QUANTITY_MAX = 10_000;
export const productionIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

/** A sn prefix: the characters a sn may hold (protocol SN_RULE), at most 32 of them. */
export const SN_PREFIX_RULE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,31}$/;

/**
 * How the task's sns are made: `rule` = prefix + yyMMdd of the planned date + the sequence zero-padded to `digits`
 * (from `start`), e.g. `DTU` + `261126` + `0001`; `list` = the sns given (one per line, e.g. read from a CSV/TXT
 * file), whose count is the task's quantity.
 */
export const snRule = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('rule'),
    prefix: text().trim().regex(SN_PREFIX_RULE, 'sn_prefix_rule'),
    digits: z.number().int().min(3).max(8).default(4),
    start: z.number().int().min(0).max(99_999_999).default(1),
  }),
  z.object({
    type: z.literal('list'),
    sns: z
      .union([z.array(text().max(64)), text().max(700_000)])
      .transform((v) =>
        (Array.isArray(v) ? v : v.split(/\r?\n/))
          .map((s) => s.trim().split(',')[0]!.trim().replace(/^"|"$/g, ''))
          .filter((s) => s.length > 0),
      )
      .pipe(
        z
          .array(text().regex(SN_RULE, 'sn_rule'))
          .min(1)
          .max(TASK_QUANTITY_MAX)
          .refine((l) => new Set(l).size === l.length, 'an sn is listed twice'),
      ),
  }),
]);
export type SnRule = z.output<typeof snRule>;
export type SnRuleInput = z.input<typeof snRule>;

const DATE_RULE = /^\d{4}-\d{2}-\d{2}$/;
const plannedDate = text()
  .regex(DATE_RULE, 'date_rule')
  .refine(
    (d) =>
      !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'no such date',
  );

/** The sns a rule makes for `quantity` devices planned on `date` (YYYY-MM-DD). */
export function snsOfRule(rule: SnRule, quantity: number, date: string): string[] {
  if (rule.type === 'list') return rule.sns;
  const yymmdd = date.slice(2, 4) + date.slice(5, 7) + date.slice(8, 10);
  return Array.from(
    { length: quantity },
    (_, i) => `${rule.prefix}${yymmdd}${String(rule.start + i).padStart(rule.digits, '0')}`,
  );
}

export const productionTaskBody = z
  .object({
    name: text().trim().min(1).max(64),
    product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule'),
    hw_group_id: z.number().int().positive().max(2_147_483_647),
    /** Ignored for a `list` rule (the list's length). */
    quantity: z.number().int().min(1).max(TASK_QUANTITY_MAX).optional(),
    sn_rule: snRule,
    /** A firmware version of the product to flash (firmware module); null: none. */
    firmware_version_id: z.number().int().positive().max(2_147_483_647).nullable().default(null),
    planned_date: plannedDate,
    note: text().trim().max(500).default(''),
  })
  .superRefine((b, ctx) => {
    if (b.sn_rule.type === 'rule') {
      if (b.quantity === undefined) ctx.addIssue({ code: 'custom', path: ['quantity'], message: 'required' });
      else if (String(b.sn_rule.start + b.quantity - 1).length > b.sn_rule.digits)
        ctx.addIssue({ code: 'custom', path: ['sn_rule', 'digits'], message: 'the sequence does not fit' });
    }
  });
export type ProductionTaskBody = z.input<typeof productionTaskBody>;

export const productionTaskListQuery = pageQuery.extend({
  keyword: text().trim().max(64).optional(),
  state: taskState.optional(),
  product_key: text().regex(PRODUCT_KEY_RULE).optional(),
});
export type ProductionTaskListQuery = z.infer<typeof productionTaskListQuery>;

/** Factory progress of a task's devices: shipped = the device has an owner. */
export const taskProgress = z.object({
  created: z.number().int(),
  tested_ok: z.number().int(),
  failed: z.number().int(),
  mismatch: z.number().int(),
  shipped: z.number().int(),
});
export type TaskProgress = z.infer<typeof taskProgress>;

export const productionTaskItem = z.object({
  id: z.number().int(),
  name: text(),
  product_key: text(),
  product_name: text(),
  hw_group_id: z.number().int(),
  hw_group_name: text(),
  /** The group as the label's "hardware version". */
  hw_version: text(),
  quantity: z.number().int(),
  sn_rule: z.object({
    type: z.enum(['rule', 'list']),
    prefix: text().optional(),
    digits: z.number().int().optional(),
    start: z.number().int().optional(),
  }),
  /** The first and last sn the task makes. */
  first_sn: text(),
  last_sn: text(),
  firmware_version_id: z.number().int().nullable(),
  firmware_version: text().nullable(),
  planned_date: text(),
  note: text(),
  state: taskState,
  progress: taskProgress,
  startedat: text().nullable(),
  finishedat: text().nullable(),
  createdat: text(),
  updatedat: text(),
});
export type ProductionTaskItem = z.infer<typeof productionTaskItem>;

export const taskDeviceQuery = pageQuery.extend({ keyword: text().trim().max(64).optional() });

/** Per device of a task, and the records list (`/productive/info`). */
export const TESTED_STATES = ['untested', 'ok', 'failed'] as const;
export const testedState = z.enum(TESTED_STATES);
export type TestedState = z.infer<typeof testedState>;

export const productionDeviceItem = z.object({
  sn: text(),
  product_key: text(),
  task_id: z.number().int(),
  task_name: text(),
  tested: testedState,
  mismatch: z.array(text()),
  /** Null while in stock. */
  uid: z.number().int().nullable(),
  online: z.number().int(),
  createdat: text(),
  tested_at: text().nullable(),
});
export type ProductionDeviceItem = z.infer<typeof productionDeviceItem>;

export const productionInfoQuery = pageQuery.extend({
  keyword: text().trim().max(64).optional(),
  task_id: z.coerce.number().int().positive().max(2_147_483_647).optional(),
  tested: testedState.optional(),
  mismatch: z.enum(['0', '1']).optional(),
  shipped: z.enum(['0', '1']).optional(),
});
export type ProductionInfoQuery = z.infer<typeof productionInfoQuery>;

/** Everything a label sheet prints, for every device of the task (at most TASK_QUANTITY_MAX). */
export const taskLabels = z.object({
  task_id: z.number().int(),
  task_name: text(),
  product_name: text(),
  hw_version: text(),
  sns: z.array(text()),
});
export type TaskLabels = z.infer<typeof taskLabels>;

// --- productive groups ---------------------------------------------------------------------------------------------

export const productiveGroupBody = z.object({
  name: text().trim().min(1).max(64),
  description: text().trim().max(200).default(''),
});
export const productiveGroupUpdateBody = z
  .object({ name: text().trim().min(1).max(64), description: text().trim().max(200) })
  .partial();
export const productiveGroupListQuery = pageQuery.extend({ keyword: text().trim().max(64).optional() });

/** Add devices to a group: every device of a task, and/or sns by hand (array or one per line). */
export const productiveGroupAddBody = z
  .object({
    task_id: z.number().int().positive().max(2_147_483_647).optional(),
    sns: z
      .union([z.array(text().max(64)), text().max(700_000)])
      .transform((v) =>
        (Array.isArray(v) ? v : v.split(/\r?\n/)).map((s) => s.trim()).filter((s) => s.length > 0),
      )
      .pipe(z.array(text()).max(TASK_QUANTITY_MAX))
      .optional(),
  })
  .refine((b) => b.task_id !== undefined || (b.sns?.length ?? 0) > 0, 'give a task_id or sns');
export const productiveGroupRemoveBody = z.object({
  sns: z.array(text().max(64)).min(1).max(TASK_QUANTITY_MAX),
});

export const productiveGroupItem = z.object({
  id: z.number().int(),
  name: text(),
  description: text(),
  devices: z.number().int(),
  createdat: text(),
  updatedat: text(),
});
export type ProductiveGroupItem = z.infer<typeof productiveGroupItem>;

/** One line of an add: `added`, or why not (10117 unknown, 11014 not in stock: it has an owner; `already` in the group). */
export const productiveGroupAddLine = z.object({
  sn: text(),
  code: z.number().int(),
  result: z.enum(['added', 'already', 'not_found', 'not_in_stock']),
});
export type ProductiveGroupAddLine = z.infer<typeof productiveGroupAddLine>;

export const productiveGroupDeviceQuery = pageQuery.extend({ keyword: text().trim().max(64).optional() });

/** A device of a productive group: still in stock unless `uid` is set (shipped since it was added). */
export const productiveGroupDevice = z.object({
  sn: text(),
  product_key: text(),
  uid: z.number().int().nullable(),
  task_id: z.number().int().nullable(),
  task_name: text().nullable(),
  addedat: text(),
});
export type ProductiveGroupDevice = z.infer<typeof productiveGroupDevice>;
