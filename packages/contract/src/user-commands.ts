/**
 * User commands (seed /device/user-command/*): commands a user saves once (name, HEX or string data) and sends to
 * one or many of their devices. Each send is a run; the run keeps one result per device.
 */
import { z } from 'zod';
import { text } from './text';
import { pageQuery } from './common';
import { commandType, HEX_RULE, SN_RULE, type CommandType } from './protocol';

export const USER_COMMAND_DATA_MAX = 4096;
/** One run reaches at most this many devices; larger fleets are an OTA-style job, not a form. */
export const USER_COMMAND_MAX_TARGETS = 500;

export interface CommandDataProblem {
  /** 90000 no value entered, 90001 only blanks, 70003 not valid for the type. */
  code: 90000 | 90001 | 70003;
  /** Why, in English, for `details`. */
  reason: 'missing' | 'blank' | 'hex_prefix' | 'hex_odd_length' | 'hex_digits' | 'too_long';
}

/**
 * Seed section 5: hex data has an even length and no 0x prefix. Shared by the console's form and the server, so
 * both refuse the same values with the same code.
 */
export function checkCommandValue(
  type: CommandType,
  data: string | undefined,
): CommandDataProblem | undefined {
  if (data === undefined || data === '') return { code: 90000, reason: 'missing' };
  if (data.trim() === '') return { code: 90001, reason: 'blank' };
  if (data.length > USER_COMMAND_DATA_MAX) return { code: 70003, reason: 'too_long' };
  if (type === 'hex' && !HEX_RULE.test(data)) {
    if (/^0x/i.test(data)) return { code: 70003, reason: 'hex_prefix' };
    if (data.length % 2 === 1 && /^[0-9A-Fa-f]+$/.test(data))
      return { code: 70003, reason: 'hex_odd_length' };
    return { code: 70003, reason: 'hex_digits' };
  }
  return undefined;
}

export const idParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

/** `data` is checked by checkCommandValue in the service so the seed's codes (90000/90001/70003) reach the user. */
export const userCommandBody = z.object({
  name: text().trim().min(1).max(64),
  type: commandType,
  data: text()
    .max(USER_COMMAND_DATA_MAX * 2)
    .optional(),
  description: text().trim().max(200).default(''),
});
export type UserCommandBody = z.input<typeof userCommandBody>;

export const userCommandUpdateBody = userCommandBody.partial().extend({
  description: text().trim().max(200).optional(),
});
export type UserCommandUpdateBody = z.input<typeof userCommandUpdateBody>;

export const userCommandListQuery = pageQuery.extend({ keyword: text().trim().max(64).optional() });
export type UserCommandListQuery = z.infer<typeof userCommandListQuery>;

const iso = text();

export const userCommandItem = z.object({
  id: z.number().int(),
  uid: z.number().int(),
  name: text(),
  type: commandType,
  data: text(),
  description: text(),
  /** How many times it was sent (runs). */
  runs: z.number().int(),
  createdat: iso,
  updatedat: iso,
});
export type UserCommandItem = z.infer<typeof userCommandItem>;

/** Serial numbers of the caller's devices, one per array item or one per line. */
export const targetSns = z
  .union([z.array(text().max(64)), text().max(40_000)])
  .transform((v) =>
    (Array.isArray(v) ? v : v.split(/\r?\n/)).map((s) => s.trim()).filter((s) => s.length > 0),
  )
  .pipe(
    z
      .array(text().regex(SN_RULE, 'sn_rule'))
      .min(1)
      .max(USER_COMMAND_MAX_TARGETS)
      .transform((list) => [...new Set(list)]),
  );

export const userCommandSendBody = z.object({ sns: targetSns });
export type UserCommandSendBody = z.input<typeof userCommandSendBody>;

/**
 * One device of a run: `sent` waits for the reply, `replied` has it (code and data from the device), `timeout`
 * had none in time, `offline` was refused before sending (20401), `failed` the broker did not take it,
 * `not_found` is not a device of the caller (10117). `pending`, `expired` and `cancelled` are the device command's
 * states when it was queued for an offline device (docs/api-conventions.md).
 */
export const RUN_RESULT_STATUSES = [
  'sent',
  'replied',
  'timeout',
  'offline',
  'failed',
  'not_found',
  'pending',
  'expired',
  'cancelled',
] as const;
export type RunResultStatus = (typeof RUN_RESULT_STATUSES)[number];

export const userCommandResult = z.object({
  sn: text(),
  /** The device command's id (matches device.command events); null when nothing was sent. */
  command_id: text().nullable(),
  status: z.enum(RUN_RESULT_STATUSES),
  /** 0 sent; 20401 offline; 10117 not found; the device's reply code once replied; null once it timed out. */
  code: z.number().int().nullable(),
  reply: text().nullable(),
  repliedat: iso.nullable(),
  latency_ms: z.number().int().nullable(),
});
export type UserCommandResult = z.infer<typeof userCommandResult>;

export const userCommandRunSummary = z.object({
  id: z.number().int(),
  user_command_id: z.number().int(),
  /** What was sent (the command may have been edited since). */
  type: commandType,
  data: text(),
  total: z.number().int(),
  createdat: iso,
});
export type UserCommandRunSummary = z.infer<typeof userCommandRunSummary>;

export const userCommandRun = userCommandRunSummary.extend({ results: z.array(userCommandResult) });
export type UserCommandRun = z.infer<typeof userCommandRun>;

export const runParams = z.object({
  id: idParams.shape.id,
  runId: z.coerce.number().int().positive().max(2_147_483_647),
});
export const runListQuery = pageQuery;
