/**
 * Scripts (docs/scripts.md): JavaScript that turns a product's raw uplink bytes into properties (`decode`) and a
 * command into raw downlink bytes (`encode`), run by the server in a QuickJS sandbox. A script belongs to a product
 * (its owner or an admin edits it) or is shared by an admin (any product may use it, only admins edit it). Each save
 * is a version; rolling back writes a new version equal to an old one. The product uses the script bound to it.
 */
import { z } from 'zod';
import { pageQuery } from './common';
import { PRODUCT_KEY_RULE } from './protocol';
import { text } from './text';

export const SCRIPT_SOURCE_MAX = 64 * 1024;
/** A test run's sample input, characters (hex: two per byte). */
export const SCRIPT_SAMPLE_MAX = 8192;
/** Consecutive failures after which a script is disabled and its owner told (the server's default). */
export const SCRIPT_FAILURES_TO_DISABLE = 20;

export const SCRIPT_STATES = ['enabled', 'disabled'] as const;
/** Why a script is disabled: by a person, or by the server after repeated failures. */
export const SCRIPT_DISABLED_REASONS = ['', 'manual', 'failures'] as const;

export const scriptIdParams = z.object({ id: z.coerce.number().int().min(1).max(2147483647) });
export const scriptVersionParams = scriptIdParams.extend({
  version: z.coerce.number().int().min(1).max(2147483647),
});

export const scriptListQuery = pageQuery.extend({
  keyword: text().trim().max(64).optional(),
  product_key: text().trim().max(64).optional(),
  state: z.enum(SCRIPT_STATES).optional(),
  /** `shared`: admins' shared scripts only; `product`: scripts of products only. */
  scope: z.enum(['shared', 'product']).optional(),
});
export type ScriptListQuery = z.infer<typeof scriptListQuery>;

const iso = text();

export const scriptErrorEntry = z.object({
  at: iso,
  message: text(),
  /** Line of the script the error points at; null when none is known. */
  line: z.number().int().nullable(),
  sn: text(),
});
export type ScriptErrorEntry = z.infer<typeof scriptErrorEntry>;

export const scriptItem = z.object({
  id: z.number().int(),
  name: text(),
  description: text(),
  /** Null for a shared script. */
  product_key: text().nullable(),
  product_name: text().nullable(),
  shared: z.boolean(),
  owner: text(),
  enabled: z.boolean(),
  disabled_reason: z.enum(SCRIPT_DISABLED_REASONS),
  /**
   * Whether a raw uplink the script decodes is also kept in the device's raw messages. A frame it cannot decode (an
   * error, a time-out, output the product refuses) or a frame of a disabled script is kept raw either way.
   */
  keep_raw: z.boolean(),
  version: z.number().int(),
  has_decode: z.boolean(),
  has_encode: z.boolean(),
  /** Products whose devices' raw uplinks go through this script. */
  bound_products: z.array(text()),
  calls: z.number().int(),
  errors: z.number().int(),
  consecutive_errors: z.number().int(),
  /** Mean time of a call, milliseconds (0 before the first). */
  avg_ms: z.number(),
  last_error: scriptErrorEntry.nullable(),
  createdat: iso,
  updatedat: iso,
});
export type ScriptItem = z.infer<typeof scriptItem>;

export const scriptDetail = scriptItem.extend({
  source: text(),
  /** The latest errors, newest first (at most 10). */
  recent_errors: z.array(scriptErrorEntry),
});
export type ScriptDetail = z.infer<typeof scriptDetail>;

export const scriptVersionItem = z.object({
  version: z.number().int(),
  source: text(),
  note: text(),
  author: text(),
  createdat: iso,
});
export type ScriptVersionItem = z.infer<typeof scriptVersionItem>;

const source = text()
  .max(SCRIPT_SOURCE_MAX)
  .refine((s) => s.trim().length > 0, 'required');

/** POST /api/scripts. Without `product_key` the script is shared (admins only). */
export const scriptBody = z.object({
  name: text().trim().min(1).max(64),
  description: text().trim().max(500).default(''),
  product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule').nullable().optional(),
  source,
  note: text().trim().max(200).default(''),
  keep_raw: z.boolean().default(false),
});
export type ScriptBody = z.infer<typeof scriptBody>;

/** PUT /api/scripts/:id: a changed source is a new version; the product stays. */
export const scriptUpdateBody = z.object({
  name: text().trim().min(1).max(64).optional(),
  description: text().trim().max(500).optional(),
  source: source.optional(),
  note: text().trim().max(200).default(''),
  keep_raw: z.boolean().optional(),
});
export type ScriptUpdateBody = z.infer<typeof scriptUpdateBody>;

export const scriptStateBody = z.object({ enabled: z.boolean() });

/** PUT /api/scripts/:id/binding: the product whose raw uplinks the script decodes from now on. */
export const scriptBindBody = z.object({ product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule') });

export const SCRIPT_FUNCTIONS = ['decode', 'encode'] as const;
export const SCRIPT_INPUT_TYPES = ['hex', 'text', 'json'] as const;

/**
 * POST /api/scripts/test-run: runs `source` (unsaved is fine) on a sample and stores nothing. `decode` takes the
 * input as bytes (hex, or the UTF-8 of text); `encode` takes a command: JSON, or text/hex as `{type, data}`.
 */
export const scriptTestBody = z.object({
  source,
  function: z.enum(SCRIPT_FUNCTIONS).default('decode'),
  input_type: z.enum(SCRIPT_INPUT_TYPES).default('hex'),
  input: text().max(SCRIPT_SAMPLE_MAX).default(''),
  product_key: text().max(64).default(''),
  sn: text().max(64).default(''),
});
export type ScriptTestBody = z.infer<typeof scriptTestBody>;

export const scriptTestResult = z.object({
  ok: z.boolean(),
  /** decode: `{properties, events}`; encode: `{hex, bytes}`; null on error. */
  output: z.unknown(),
  logs: z.array(text()),
  error: z
    .object({
      code: z.number().int(),
      kind: text(),
      message: text(),
      line: z.number().int().nullable(),
    })
    .nullable(),
  ms: z.number(),
});
export type ScriptTestResult = z.infer<typeof scriptTestResult>;

/** The functions a source defines, by a plain look at it (the sandbox decides at run time). */
export function scriptFunctions(src: string): { decode: boolean; encode: boolean } {
  return {
    decode: /\bfunction\s+decode\s*\(|\b(?:var|let|const)\s+decode\s*=/.test(src),
    encode: /\bfunction\s+encode\s*\(|\b(?:var|let|const)\s+encode\s*=/.test(src),
  };
}
