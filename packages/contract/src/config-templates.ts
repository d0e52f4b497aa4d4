/**
 * Batch configuration templates (seed /device/config-template): a partial device configuration (the groups and
 * fields the template sets) merged into the expected configuration of chosen devices. Each apply keeps one row
 * per device with the expected version it produced, so its sync progress can be followed.
 */
import { z } from 'zod';
import { text } from './text';
import { pageQuery } from './common';
import { type DeviceConfig, deviceConfig } from './device-config';
import { idParams, targetSns } from './user-commands';

type Json = unknown;
const isPlainObject = (v: Json): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * How a template lands on a device's expected configuration: objects merge key by key, arrays (MQTT topics,
 * sockets) slot by slot, and an empty object in a slot leaves that slot as it was. Everything else the template
 * sets replaces the device's value; what it does not set stays.
 */
export function mergeConfig(base: Json, patch: Json): Json {
  if (patch === undefined) return base;
  if (isPlainObject(patch)) {
    const out: Record<string, Json> = isPlainObject(base) ? { ...base } : {};
    for (const [k, v] of Object.entries(patch)) out[k] = mergeConfig(out[k], v);
    return out;
  }
  if (Array.isArray(patch)) {
    const out: Json[] = Array.isArray(base) ? [...(base as Json[])] : [];
    patch.forEach((v, i) => {
      out[i] = mergeConfig(out[i], v);
    });
    // Slots the template skips stay as they were; a skipped slot past the device's end stays empty.
    for (let i = 0; i < out.length; i++) if (out[i] === undefined) out[i] = {};
    return out;
  }
  return patch;
}

export const mergeDeviceConfig = (base: DeviceConfig, patch: DeviceConfig): DeviceConfig =>
  mergeConfig(base, patch) as DeviceConfig;

/** Top-level groups a template can set (PROTOCOL.md "Configuration"). */
export const CONFIG_GROUPS = ['global', 'mqtt', 'serial', 'socket', 'aliyun'] as const;

const templateConfig = deviceConfig.refine((c) => Object.keys(c).length > 0, 'template sets no field');

export const configTemplateBody = z.object({
  name: text().trim().min(1).max(64),
  description: text().trim().max(200).default(''),
  config: templateConfig,
});
export type ConfigTemplateBody = z.input<typeof configTemplateBody>;

export const configTemplateUpdateBody = z
  .object({
    name: text().trim().min(1).max(64),
    description: text().trim().max(200),
    config: templateConfig,
  })
  .partial();
export type ConfigTemplateUpdateBody = z.input<typeof configTemplateUpdateBody>;

export const configTemplateListQuery = pageQuery.extend({ keyword: text().trim().max(64).optional() });
export type ConfigTemplateListQuery = z.infer<typeof configTemplateListQuery>;

const iso = text();

export const configTemplateItem = z.object({
  id: z.number().int(),
  uid: z.number().int(),
  name: text(),
  description: text(),
  config: deviceConfig,
  /** How many times it was applied. */
  applies: z.number().int(),
  createdat: iso,
  updatedat: iso,
});
export type ConfigTemplateItem = z.infer<typeof configTemplateItem>;

export const configTemplateApplyBody = z.object({ sns: targetSns });
export type ConfigTemplateApplyBody = z.input<typeof configTemplateApplyBody>;

/**
 * One device of an apply: `pending` until the device reports a config_version at or past `version` (then
 * `synced`); `not_found` is not a device of the caller (10117, nothing changed).
 */
export const APPLY_RESULT_STATUSES = ['pending', 'synced', 'not_found'] as const;
export type ApplyResultStatus = (typeof APPLY_RESULT_STATUSES)[number];

export const configApplyResult = z.object({
  sn: text(),
  status: z.enum(APPLY_RESULT_STATUSES),
  /** The expect_config_version this apply produced; null when not applied. */
  version: z.number().int().nullable(),
  /** What the device reports now. */
  config_version: z.number().int().nullable(),
  online: z.union([z.literal(0), z.literal(1)]).nullable(),
  /** The configuration went down at once (the device was online). */
  sent: z.boolean(),
});
export type ConfigApplyResult = z.infer<typeof configApplyResult>;

export const configApplySummary = z.object({
  id: z.number().int(),
  template_id: z.number().int(),
  total: z.number().int(),
  synced: z.number().int(),
  createdat: iso,
});
export type ConfigApplySummary = z.infer<typeof configApplySummary>;

export const configApply = configApplySummary.extend({ results: z.array(configApplyResult) });
export type ConfigApply = z.infer<typeof configApply>;

export const applyParams = z.object({
  id: idParams.shape.id,
  applyId: z.coerce.number().int().positive().max(2_147_483_647),
});
export const applyListQuery = pageQuery;
