/**
 * Command groups (seed /product/command_group/*): admins predefine commands per product, grouped; each command is a
 * HEX or string template with `{{name}}` placeholders and typed parameter definitions. Whoever may control a device
 * sees its product's groups and sends one by filling the parameters; the server renders the template with the same
 * functions as the browser (below), so both refuse the same values with the same codes (90000 / 90001 / 70003).
 */
import { z } from 'zod';
import { pageQuery } from './common';
import { commandBody, snParams } from './devices';
import { commandType, HEX_RULE, type CommandType } from './protocol';
import { text } from './text';
import { checkCommandValue, USER_COMMAND_DATA_MAX } from './user-commands';

/** A placeholder's name: an identifier, as written between the braces of `{{name}}`. */
export const PARAM_NAME_RULE = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
export const COMMAND_PARAMS_MAX = 16;
/** Regular expressions (a string parameter's pattern, a command's expected reply) are at most this long. */
export const PATTERN_MAX = 200;
export const HEX_PARAM_BYTES_MAX = 512;
export const COMMAND_TIMEOUT_S_MAX = 300;
export const COMMAND_TIMEOUT_S_DEFAULT = 30;

const paramName = text().regex(PARAM_NAME_RULE, 'param_name_rule');
const paramLabel = text().trim().max(64).default('');
const bound = z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);

/**
 * A parameter: `int` (min/max; in a HEX command it is written big-endian in `bytes` bytes, two's complement when
 * negative), `number` (min/max; string commands only), `string` (max length and an optional pattern the whole value
 * must match; string commands only), `enum` (one of `options`; hex options in a HEX command), `hex` (up to `bytes`
 * bytes, padded on the left with zeros).
 */
export const commandParam = z.discriminatedUnion('type', [
  z.object({
    name: paramName,
    label: paramLabel,
    type: z.literal('int'),
    min: bound.optional(),
    max: bound.optional(),
    bytes: z.number().int().min(1).max(6).optional(),
  }),
  z.object({
    name: paramName,
    label: paramLabel,
    type: z.literal('number'),
    min: z.number().finite().optional(),
    max: z.number().finite().optional(),
  }),
  z.object({
    name: paramName,
    label: paramLabel,
    type: z.literal('string'),
    max_length: z.number().int().min(1).max(1024).default(64),
    pattern: text().max(PATTERN_MAX).default(''),
  }),
  z.object({
    name: paramName,
    label: paramLabel,
    type: z.literal('enum'),
    options: z.array(text().min(1).max(64)).min(1).max(50),
  }),
  z.object({
    name: paramName,
    label: paramLabel,
    type: z.literal('hex'),
    bytes: z.number().int().min(1).max(HEX_PARAM_BYTES_MAX),
  }),
]);
export type CommandParam = z.output<typeof commandParam>;
export type CommandParamInput = z.input<typeof commandParam>;
export const COMMAND_PARAM_TYPES = ['int', 'number', 'string', 'enum', 'hex'] as const;
export type CommandParamType = (typeof COMMAND_PARAM_TYPES)[number];

// --- the shared rules ---------------------------------------------------------------------------------------------

/** Why a definition or a value is refused: the seed's code, the field (`data`, `params.<name>`, ...) and a reason. */
export interface CommandProblem {
  code: 90000 | 90001 | 70003;
  field: string;
  reason: string;
}

/** The placeholders of a template, in order of first use (`{{ x }}` and other malformed ones included as written). */
export function placeholdersOf(data: string): string[] {
  const seen: string[] = [];
  for (const m of data.matchAll(PLACEHOLDER)) {
    const name = m[1] ?? '';
    if (!seen.includes(name)) seen.push(name);
  }
  return seen;
}

/**
 * Whether a regular expression is acceptable: at most PATTERN_MAX characters, compiles, and has no construct that
 * can take exponential time (a quantified group that holds a quantifier, `(a+)+`; a back-reference). Replies and
 * values are at most 4096 characters, so what passes runs in bounded time.
 */
export function patternProblem(pattern: string): string | undefined {
  if (pattern.length > PATTERN_MAX) return 'pattern_too_long';
  try {
    new RegExp(pattern);
  } catch {
    return 'pattern_invalid';
  }
  if (/\\[1-9]|\\k</.test(pattern)) return 'pattern_unsafe';
  // Scan groups: a group that contains a quantifier and is itself quantified is refused.
  const stack: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') stack.push(false);
    else if (c === ')') {
      const quantifiedInside = stack.pop() ?? false;
      const next = pattern[i + 1];
      const quantified = next === '*' || next === '+' || next === '{' || next === '?';
      if (quantifiedInside && quantified && next !== '?') return 'pattern_unsafe';
      if ((quantifiedInside || quantified) && stack.length > 0) stack[stack.length - 1] = true;
    } else if ((c === '*' || c === '+' || c === '{') && stack.length > 0) stack[stack.length - 1] = true;
  }
  return undefined;
}

/** Whether `value` matches the whole of `pattern` (a string parameter's rule). */
const fullMatch = (pattern: string, value: string) => new RegExp(`^(?:${pattern})$`).test(value);

/** Whether a device's reply matches the command's expected pattern (anywhere in the reply); true when none is set. */
export function replyMatches(pattern: string, reply: string | null): boolean | undefined {
  if (!pattern) return undefined;
  if (reply === null) return false;
  try {
    return new RegExp(pattern).test(reply);
  } catch {
    return false;
  }
}

const INT_TEXT = /^[-+]?\d{1,16}$/;
const NUMBER_TEXT = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/** An int as `bytes` big-endian bytes (two's complement when negative), or undefined when it does not fit. */
export function intToHex(value: number, bytes: number): string | undefined {
  const bits = BigInt(bytes * 8);
  const v = BigInt(value);
  if (v >= 1n << bits || v < -(1n << (bits - 1n))) return undefined;
  const unsigned = v < 0n ? (1n << bits) + v : v;
  return unsigned
    .toString(16)
    .toUpperCase()
    .padStart(bytes * 2, '0');
}

/**
 * One parameter's value, checked and written as it goes into a `type` command: 90000 when missing, 90001 when only
 * blanks, 70003 when not valid for its definition (the reason says why).
 */
export function renderParam(
  def: CommandParam,
  raw: string | number | undefined,
  type: CommandType,
): { value: string } | { problem: CommandProblem } {
  const field = `params.${def.name}`;
  const bad = (reason: string, code: CommandProblem['code'] = 70003) => ({
    problem: { code, field, reason },
  });
  if (raw === undefined || raw === '') return bad('missing', 90000);
  const value = typeof raw === 'number' ? String(raw) : raw;
  if (value.trim() === '') return bad('blank', 90001);
  switch (def.type) {
    case 'int': {
      const s = value.trim();
      if (!INT_TEXT.test(s) || !Number.isSafeInteger(Number(s))) return bad('not_int');
      const n = Number(s);
      if ((def.min !== undefined && n < def.min) || (def.max !== undefined && n > def.max))
        return bad('out_of_range');
      if (type === 'hex') {
        const hex = intToHex(n, def.bytes ?? 1);
        return hex === undefined ? bad('out_of_range') : { value: hex };
      }
      return { value: String(n) };
    }
    case 'number': {
      const s = value.trim();
      const n = Number(s);
      if (!NUMBER_TEXT.test(s) || !Number.isFinite(n)) return bad('not_number');
      if ((def.min !== undefined && n < def.min) || (def.max !== undefined && n > def.max))
        return bad('out_of_range');
      return { value: s };
    }
    case 'string':
      if (value.length > def.max_length) return bad('too_long');
      if (def.pattern && !fullMatch(def.pattern, value)) return bad('pattern');
      return { value };
    case 'enum':
      return def.options.includes(value) ? { value } : bad('not_option');
    case 'hex': {
      const s = value.replace(/\s+/g, '');
      if (/^0x/i.test(s)) return bad('hex_prefix');
      if (!/^[0-9A-Fa-f]+$/.test(s)) return bad('hex_digits');
      if (s.length > def.bytes * 2) return bad('too_long');
      return { value: s.toUpperCase().padStart(def.bytes * 2, '0') };
    }
  }
}

/** What a command definition needs to be rendered. */
export interface CommandTemplate {
  type: CommandType;
  data: string;
  params: CommandParam[];
}

/**
 * The command to send: the template with every placeholder replaced by its checked value. Problems name each bad
 * parameter; when they are all fine the result is checked as any command (its length, its hex form).
 */
export function renderCommand(
  cmd: CommandTemplate,
  values: Record<string, string | number | undefined>,
): { data: string; problems: CommandProblem[] } {
  const problems: CommandProblem[] = [];
  const rendered = new Map<string, string>();
  for (const def of cmd.params) {
    const r = renderParam(def, values[def.name], cmd.type);
    if ('problem' in r) problems.push(r.problem);
    else rendered.set(def.name, r.value);
  }
  if (problems.length > 0) return { data: '', problems };
  const data = cmd.data.replace(PLACEHOLDER, (whole, name: string) => rendered.get(name) ?? whole);
  const sendable = cmd.type === 'hex' ? data.replace(/\s+/g, '') : data;
  const problem = checkCommandValue(cmd.type, sendable);
  if (problem) problems.push({ code: problem.code, field: 'data', reason: problem.reason });
  return { data: sendable, problems };
}

/** A value each parameter accepts, to check that a template renders into a valid command. */
function sampleValue(def: CommandParam, type: CommandType): string {
  switch (def.type) {
    case 'int': {
      const n =
        def.min !== undefined && def.min > 0 ? def.min : def.max !== undefined && def.max < 0 ? def.max : 0;
      return type === 'hex' ? (intToHex(n, def.bytes ?? 1) ?? '00') : String(n);
    }
    case 'number':
      return String(def.min ?? 0);
    case 'string':
      return 'x';
    case 'enum':
      return def.options[0] ?? '';
    case 'hex':
      return '00'.repeat(def.bytes);
  }
}

/**
 * The definition's problems: the template as any command value (90000 / 90001 / 70003), every placeholder defined
 * and every parameter used once by name, each parameter sane for the command type (a HEX command takes only int with
 * bytes, hex, and enums of hex options), bounds in order, and every pattern safe.
 */
export function checkCommandDefinition(cmd: {
  type: CommandType;
  data?: string | undefined;
  params: CommandParam[];
  reply_pattern: string;
}): CommandProblem[] {
  const problems: CommandProblem[] = [];
  const push = (field: string, reason: string, code: CommandProblem['code'] = 70003) =>
    problems.push({ code, field, reason });
  const data = cmd.data;
  if (data === undefined || data === '') {
    push('data', 'missing', 90000);
    return problems;
  }
  if (data.trim() === '') {
    push('data', 'blank', 90001);
    return problems;
  }
  const names = new Set<string>();
  for (const def of cmd.params) {
    const field = `params.${def.name}`;
    if (names.has(def.name)) push(field, 'duplicate_param');
    names.add(def.name);
    if ((def.type === 'int' || def.type === 'number') && def.min !== undefined && def.max !== undefined) {
      if (def.min > def.max) push(field, 'min_above_max');
    }
    if (cmd.type === 'hex') {
      if (def.type === 'string' || def.type === 'number') push(field, 'type_not_for_hex');
      if (def.type === 'int') {
        if (def.bytes === undefined) push(field, 'bytes_required');
        else {
          const lo = def.min ?? 0;
          const hi = def.max ?? lo;
          if (intToHex(lo, def.bytes) === undefined || intToHex(hi, def.bytes) === undefined)
            push(field, 'range_exceeds_bytes');
        }
      }
      if (def.type === 'enum' && def.options.some((o) => !HEX_RULE.test(o))) push(field, 'options_not_hex');
    }
    if (def.type === 'enum' && new Set(def.options).size !== def.options.length)
      push(field, 'duplicate_option');
    if (def.type === 'string' && def.pattern) {
      const p = patternProblem(def.pattern);
      if (p) push(field, p);
    }
  }
  const used = placeholdersOf(data);
  for (const name of used) {
    if (!PARAM_NAME_RULE.test(name)) push('data', `bad_placeholder:${name}`);
    else if (!names.has(name)) push('data', `unknown_param:${name}`);
  }
  for (const name of names) if (!used.includes(name)) push(`params.${name}`, 'unused_param');
  if (cmd.reply_pattern) {
    const p = patternProblem(cmd.reply_pattern);
    if (p) push('reply_pattern', p);
  }
  if (problems.length > 0) return problems;
  const sample: Record<string, string> = {};
  for (const def of cmd.params) sample[def.name] = sampleValue(def, cmd.type);
  const r = renderCommand({ type: cmd.type, data, params: cmd.params }, sample);
  return r.problems.map((p) => (p.field === 'data' ? p : { ...p, reason: `sample_${p.reason}` }));
}

// --- the API ------------------------------------------------------------------------------------------------------

export const groupIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });
export const groupCommandParams = groupIdParams.extend({
  cmdId: z.coerce.number().int().positive().max(2_147_483_647),
});
export const deviceGroupCommandParams = snParams.extend({
  cmdId: z.coerce.number().int().positive().max(2_147_483_647),
});

export const commandGroupBody = z.object({
  product_key: text().trim().min(1).max(64),
  name: text().trim().min(1).max(64),
  description: text().trim().max(200).default(''),
});
export type CommandGroupBody = z.input<typeof commandGroupBody>;
/** The product of a group does not change: its commands were written for that product's devices. */
export const commandGroupUpdateBody = commandGroupBody.omit({ product_key: true }).partial();
export type CommandGroupUpdateBody = z.input<typeof commandGroupUpdateBody>;

export const commandGroupListQuery = pageQuery.extend({
  product_key: text().trim().max(64).optional(),
  keyword: text().trim().max(64).optional(),
});
export type CommandGroupListQuery = z.infer<typeof commandGroupListQuery>;

const iso = text();

export const commandGroupItem = z.object({
  id: z.number().int(),
  product_key: text(),
  product_name: text(),
  name: text(),
  description: text(),
  command_count: z.number().int(),
  createdat: iso,
  updatedat: iso,
});
export type CommandGroupItem = z.infer<typeof commandGroupItem>;

/** `data` is checked by checkCommandDefinition in the service so the seed's codes reach the user. */
export const groupCommandBody = z.object({
  name: text().trim().min(1).max(64),
  type: commandType,
  data: text()
    .max(USER_COMMAND_DATA_MAX * 2)
    .optional(),
  params: z.array(commandParam).max(COMMAND_PARAMS_MAX).default([]),
  /** A regular expression the reply should contain; empty: any reply. */
  reply_pattern: text()
    .max(PATTERN_MAX * 2)
    .default(''),
  /** Seconds the device has to reply before the command is marked `timeout`. */
  timeout_s: z.number().int().min(1).max(COMMAND_TIMEOUT_S_MAX).default(COMMAND_TIMEOUT_S_DEFAULT),
  description: text().trim().max(200).default(''),
});
export type GroupCommandBody = z.input<typeof groupCommandBody>;

export const groupCommandItem = z.object({
  id: z.number().int(),
  group_id: z.number().int(),
  name: text(),
  type: commandType,
  data: text(),
  params: z.array(commandParam),
  reply_pattern: text(),
  timeout_s: z.number().int(),
  description: text(),
  createdat: iso,
  updatedat: iso,
});
export type GroupCommandItem = z.infer<typeof groupCommandItem>;

export const commandGroupDetail = commandGroupItem.extend({ commands: z.array(groupCommandItem) });
export type CommandGroupDetail = z.infer<typeof commandGroupDetail>;

/** The groups a device's user sees (its product's), with their commands. */
export const deviceCommandGroup = z.object({
  id: z.number().int(),
  name: text(),
  description: text(),
  commands: z.array(groupCommandItem),
});
export type DeviceCommandGroup = z.infer<typeof deviceCommandGroup>;

/** Values by parameter name; numbers may come as numbers or text. Offline handling as for any command. */
export const groupCommandSendBody = z
  .object({
    params: z
      .record(text().max(32), z.union([text().max(USER_COMMAND_DATA_MAX), z.number()]))
      .refine((r) => Object.keys(r).length <= COMMAND_PARAMS_MAX, 'too many params')
      .default({}),
  })
  .extend({
    offline: commandBody.shape.offline,
    ttl_seconds: commandBody.shape.ttl_seconds,
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
export type GroupCommandSendBody = z.input<typeof groupCommandSendBody>;
