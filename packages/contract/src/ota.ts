/**
 * OTA upgrade tasks (seed /ota/task, /ota/task/{id}, /ota/task/create): one firmware version rolled out to a set of
 * devices of one product, in waves, with a failure threshold that pauses the rollout. Each target device has one
 * upgrade log row (seed section 3) with the seed's status 0-6 plus the engine's own phase. docs/ota.md describes the
 * engine, the routes and the codes.
 */
import { z } from 'zod';
import { text } from './text';
import { pageQuery } from './common';
import { PRODUCT_KEY_RULE, SN_RULE } from './protocol';

// --- states and actions ---------------------------------------------------------------------------------------

/** Seed section 4. */
export const OTA_TASK_STATUSES = ['inactive', 'running', 'done', 'paused', 'cancelled'] as const;
export type OtaTaskStatus = (typeof OTA_TASK_STATUSES)[number];
export const otaTaskStatus = z.enum(OTA_TASK_STATUSES);

/** Seed section 4: start (with confirmation; also resumes a paused task), pause, cancel, delete. */
export const OTA_TASK_ACTIONS = ['start', 'pause', 'cancel', 'delete'] as const;
export type OtaTaskAction = (typeof OTA_TASK_ACTIONS)[number];

/**
 * Which action each state allows; any other answers 71001 (`details: { status, action }`). Shared by the server
 * (which enforces it) and the console (which enables the buttons from it).
 */
export const OTA_ALLOWED_ACTIONS: Record<OtaTaskStatus, readonly OtaTaskAction[]> = {
  inactive: ['start', 'cancel', 'delete'],
  running: ['pause', 'cancel'],
  paused: ['start', 'cancel'],
  done: ['delete'],
  cancelled: ['delete'],
};
export const otaActionAllowed = (status: OtaTaskStatus, action: OtaTaskAction): boolean =>
  OTA_ALLOWED_ACTIONS[status].includes(action);

/** Why a task is paused: by a person, or by the engine because failures reached the threshold. */
export const OTA_PAUSE_REASONS = ['manual', 'failure_threshold'] as const;
export type OtaPauseReason = (typeof OTA_PAUSE_REASONS)[number];

/**
 * Per-device upgrade status of seed section 4, as the device reports it on `P/up/ota`: 0 waiting, 1 download
 * succeeded, 2 download failed, 3 update failed, 4 update succeeded, 5 device accepted the upgrade command,
 * 6 device refused. A device that reports the target `fw_version` on `P/up/info` also reaches 4.
 */
export const OTA_DEVICE_STATUSES = [0, 1, 2, 3, 4, 5, 6] as const;
export type OtaDeviceStatus = (typeof OTA_DEVICE_STATUSES)[number];
export const otaDeviceStatus = z.number().int().min(0).max(6);

/**
 * Where the engine is with a device (separate from the device-reported status):
 * - `pending`: waiting for its wave or a free slot (max concurrent);
 * - `offline`: its turn came while it was offline; it gets the upgrade when it connects (within the window);
 * - `dispatched`: `P/down/ota` was sent; waiting for the device until the per-device timeout;
 * - `retry_wait`: an attempt failed (2, 3 or timeout); sent again at `next_attempt_at`;
 * - ends: `succeeded` (status 4), `failed` (6 refused, or 2/3/timeout with no retry left), `skipped` (not sent:
 *   already on the version, SIM check, window ended; `result` says why), `cancelled` (task cancelled first).
 */
export const OTA_DEVICE_PHASES = [
  'pending',
  'offline',
  'dispatched',
  'retry_wait',
  'succeeded',
  'failed',
  'skipped',
  'cancelled',
] as const;
export type OtaDevicePhase = (typeof OTA_DEVICE_PHASES)[number];
export const OTA_FINAL_PHASES: readonly OtaDevicePhase[] = ['succeeded', 'failed', 'skipped', 'cancelled'];

// --- create ---------------------------------------------------------------------------------------------------

/** Most devices one task may target. */
export const OTA_MAX_TARGETS = 100_000;
/** Most serial numbers in an uploaded or hand-picked list. */
export const OTA_MAX_LIST_SNS = 50_000;

/** Serial numbers as an array or as text with one per line (commas, semicolons and blanks also separate). */
const snList = z
  .union([z.array(text().max(64)).max(OTA_MAX_LIST_SNS), text().max(4_000_000)])
  .transform((v) =>
    (Array.isArray(v) ? v : v.split(/[\s,;]+/)).map((s) => s.trim()).filter((s) => s.length > 0),
  )
  .pipe(
    z
      .array(text().regex(SN_RULE, 'sn_rule'))
      .min(1)
      .max(OTA_MAX_LIST_SNS)
      .transform((list) => [...new Set(list)]),
  );

/**
 * Which devices of the product the task targets. Only the caller's devices (admins: any device of the product).
 * Targets are resolved to upgrade log rows when the task is created; devices added to the product later are not
 * part of it.
 * - `all`: every device of the product;
 * - `filter`: devices of the product matching every given condition;
 * - `list`: an uploaded list of serial numbers (the console reads the .txt/.csv file and sends its lines);
 * - `pick`: serial numbers picked by hand.
 * `list` and `pick` are refused with 10117 when a serial number is not such a device (`details.not_found`).
 */
export const otaTargets = z.discriminatedUnion('type', [
  z.object({ type: z.literal('all') }),
  z.object({
    type: z.literal('filter'),
    /** Part of the sn or the name. */
    keyword: text().trim().max(64).optional(),
    online: z.union([z.literal(0), z.literal(1)]).optional(),
    /** Devices now reporting exactly this firmware version. */
    fw_version: text().trim().max(128).optional(),
  }),
  z.object({ type: z.literal('list'), sns: snList }),
  z.object({ type: z.literal('pick'), sns: snList }),
]);
export type OtaTargets = z.input<typeof otaTargets>;
export type OtaTargetsParsed = z.infer<typeof otaTargets>;

/**
 * Rollout policy. Waves: the first wave is released at start; the next one `wave_pause_s` after every device of
 * the previous wave has ended or is waiting offline. Failure threshold (null: never pause): `count` pauses when
 * that many devices have failed; `percent` pauses when failed / (succeeded + failed) reaches it, once at least
 * 10 devices (or all, if fewer) have ended. Retries: a failed download (2), a failed update (3) or a timeout is
 * sent again after `retry_backoff_s * 2^(attempt-1)` seconds (at most one hour), up to `retries` more times; a
 * refusal (6) is final.
 */
export const otaPolicy = z
  .object({
    wave_type: z.enum(['count', 'percent']).default('percent'),
    /** Devices per wave (`count`) or percent of the task's devices per wave (`percent`, 1-100). */
    wave_size: z.number().int().min(1).max(OTA_MAX_TARGETS).default(100),
    /** Seconds between the end of one wave and the release of the next. */
    wave_pause_s: z
      .number()
      .int()
      .min(0)
      .max(7 * 86_400)
      .default(0),
    /** Devices upgrading (dispatched, not yet ended) at once. */
    max_concurrent: z.number().int().min(1).max(OTA_MAX_TARGETS).default(1000),
    failure_threshold_type: z.enum(['percent', 'count']).default('percent'),
    /** Percent (1-100) or a count; null: failures never pause the task. */
    failure_threshold: z.number().int().min(1).max(OTA_MAX_TARGETS).nullable().default(20),
    /** Further attempts after a failed one (0: none). */
    retries: z.number().int().min(0).max(10).default(2),
    /** First retry delay in seconds; each further retry doubles it (capped at 3600). */
    retry_backoff_s: z.number().int().min(1).max(3600).default(60),
    /** From dispatch to status 4 (or a failure) at most this long, else the attempt fails (timeout). */
    timeout_s: z
      .number()
      .int()
      .min(10)
      .max(7 * 86_400)
      .default(1800),
    /** Devices already reporting the target version are skipped (log row with the reason). */
    skip_same_version: z.boolean().default(true),
  })
  .superRefine((p, ctx) => {
    if (p.wave_type === 'percent' && p.wave_size > 100)
      ctx.addIssue({ code: 'custom', path: ['wave_size'], message: 'percent_max_100' });
    if (p.failure_threshold_type === 'percent' && p.failure_threshold !== null && p.failure_threshold > 100)
      ctx.addIssue({ code: 'custom', path: ['failure_threshold'], message: 'percent_max_100' });
  });
export type OtaPolicy = z.infer<typeof otaPolicy>;
export type OtaPolicyInput = z.input<typeof otaPolicy>;

const isoInput = z.iso.datetime({ offset: true });

export const otaTaskCreateBody = z
  .object({
    name: text().trim().min(1).max(64),
    description: text().trim().max(200).default(''),
    product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule'),
    /** A firmware version of this product the caller may use (public, or of a product they own; admins any). */
    version_id: z.number().int().positive().max(2_147_483_647),
    targets: otaTargets,
    policy: otaPolicy.default(() => otaPolicy.parse({})),
    /** Start automatically at this time (ISO 8601); null: start by hand. */
    plan_time: isoInput.nullable().default(null),
    /**
     * No device gets the upgrade after this time: devices not sent by then are skipped ("window ended") and the
     * task ends. null: no end.
     */
    window_end: isoInput.nullable().default(null),
  })
  .superRefine((b, ctx) => {
    if (b.plan_time && b.window_end && Date.parse(b.window_end) <= Date.parse(b.plan_time))
      ctx.addIssue({ code: 'custom', path: ['window_end'], message: 'window_end_before_plan_time' });
  });
export type OtaTaskCreateBody = z.input<typeof otaTaskCreateBody>;
export type OtaTaskCreateParsed = z.infer<typeof otaTaskCreateBody>;

/**
 * POST /api/ota/tasks/preview: what a create with the same fields would target, before anything is stored (the
 * console's summary step; cellular awareness: the download volume is firmware size x devices).
 */
export const otaTaskPreviewBody = z.object({
  product_key: otaTaskCreateBody.shape.product_key,
  version_id: otaTaskCreateBody.shape.version_id,
  targets: otaTargets,
  skip_same_version: z.boolean().default(true),
});
export type OtaTaskPreviewBody = z.input<typeof otaTaskPreviewBody>;

export const otaTaskPreview = z.object({
  /** Devices that would get an upgrade log row. */
  device_count: z.number().int(),
  /** Of those, already on the target version (skipped when `skip_same_version`). */
  same_version_count: z.number().int(),
  /** Of those, online now. */
  online_count: z.number().int(),
  /** Of those, refused by the SIM check today (expired or out of data); skipped at dispatch. */
  sim_blocked_count: z.number().int(),
  /** Devices that would be sent the firmware: device_count - skipped. */
  download_devices: z.number().int(),
  /** Firmware size in bytes. */
  size: z.number().int(),
  /** size x download_devices: what the rollout costs the fleet's SIM cards. */
  download_bytes: z.number().int(),
  /** Serial numbers of a `list`/`pick` that are not the caller's devices of this product (create refuses them). */
  not_found: z.array(text()),
  version: text(),
});
export type OtaTaskPreview = z.infer<typeof otaTaskPreview>;

// --- read -----------------------------------------------------------------------------------------------------

export const otaTaskParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

export const otaTaskListQuery = pageQuery.extend({
  /** Part of the task name. */
  keyword: text().trim().max(64).optional(),
  status: otaTaskStatus.optional(),
  product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule').optional(),
});
export type OtaTaskListQuery = z.input<typeof otaTaskListQuery>;

const iso = text();

/** Counts over the task's upgrade log rows (also the payload of `ota.task` live events). */
export const otaTaskCounts = z.object({
  /** All target devices (seed: device count). */
  device_count: z.number().int(),
  /** Phase `succeeded` (seed: success count). */
  success_count: z.number().int(),
  /** Phase `failed` (seed: fail count). */
  fail_count: z.number().int(),
  /** Phase `dispatched`: sent, not ended yet. */
  upgrading_count: z.number().int(),
  /** Phases `pending`, `offline` and `retry_wait`: not sent yet or waiting to be sent again. */
  pending_count: z.number().int(),
  skipped_count: z.number().int(),
  cancelled_count: z.number().int(),
});
export type OtaTaskCounts = z.infer<typeof otaTaskCounts>;

/** A row of GET /api/ota/tasks (seed: name, product model, firmware version, status, counts, plan/start/end time). */
export const otaTaskItem = otaTaskCounts.extend({
  id: z.number().int(),
  uid: z.number().int(),
  /** The creator's username. */
  owner: text().nullable(),
  name: text(),
  description: text(),
  product_key: text(),
  product_name: text(),
  firmware_id: z.number().int(),
  firmware_name: text(),
  version_id: z.number().int(),
  version: text(),
  /** Firmware size in bytes. */
  size: z.number().int(),
  status: otaTaskStatus,
  pause_reason: z.enum(OTA_PAUSE_REASONS).nullable(),
  plan_time: iso.nullable(),
  /** When it first started running. */
  start_time: iso.nullable(),
  /** When it reached done or cancelled. */
  end_time: iso.nullable(),
  window_end: iso.nullable(),
  createdat: iso,
  updatedat: iso,
});
export type OtaTaskItem = z.infer<typeof otaTaskItem>;

/** How the targets were chosen, as stored (a list is summarised by its size, its rows are the upgrade log). */
export const otaTargetsSummary = z.object({
  type: z.enum(['all', 'filter', 'list', 'pick']),
  keyword: text().optional(),
  online: z.union([z.literal(0), z.literal(1)]).optional(),
  fw_version: text().optional(),
  /** Serial numbers given (list, pick). */
  sn_count: z.number().int().optional(),
});
export type OtaTargetsSummary = z.infer<typeof otaTargetsSummary>;

export const otaTaskDetail = otaTaskItem.extend({
  targets: otaTargetsSummary,
  policy: otaPolicy,
  /** Devices per reported status 0-6 (keys "0".."6"). */
  status_counts: z.record(text(), z.number().int()),
  /** size x the devices not skipped or cancelled before sending. */
  download_bytes: z.number().int(),
  /** Times the firmware file was downloaded (whole or in part) through this task's links. */
  downloads: z.number().int(),
  wave_count: z.number().int(),
  /** Waves released so far (1-based; 0 before start). */
  current_wave: z.number().int(),
  /** When the next wave is released, while waiting between waves. */
  next_wave_at: iso.nullable(),
});
export type OtaTaskDetail = z.infer<typeof otaTaskDetail>;

export const otaDeviceListQuery = pageQuery.extend({
  per_page: z.coerce.number().int().min(1).max(1000).default(20),
  /** Part of the sn or device name. */
  keyword: text().trim().max(64).optional(),
  status: z.coerce.number().int().min(0).max(6).optional(),
  phase: z.enum(OTA_DEVICE_PHASES).optional(),
});
export type OtaDeviceListQuery = z.input<typeof otaDeviceListQuery>;

/**
 * Why a row of the upgrade log is where it is, as a key the console words in the user's language (`result` keeps
 * the English text for API callers):
 * - `device_status`: the device reported a status without words (`params.status`);
 * - `device_message`: the device's own words, in `result` (shown as they are);
 * - `reported_version`: it reported the target fw_version (`params.version`);
 * - `already_on_version`: skipped, it runs the version already (`params.version`);
 * - `offline_pending`: offline when its turn came; sent when it connects;
 * - `sim_refused`: skipped, its SIM cannot take the download (`params.reason`: expired, suspended, no_traffic,
 *   not_enough_traffic, or other words);
 * - `timeout`: no answer within the per-device timeout (`params.seconds`);
 * - `window_ended`, `task_cancelled`: not sent;
 * - '' : nothing to say (waiting, sent), or a row written before codes existed (then `result` is all there is).
 */
export const OTA_RESULT_CODES = [
  '',
  'device_status',
  'device_message',
  'reported_version',
  'already_on_version',
  'offline_pending',
  'sim_refused',
  'timeout',
  'window_ended',
  'task_cancelled',
] as const;
export type OtaResultCode = (typeof OTA_RESULT_CODES)[number];
export type OtaResultParams = Record<string, string | number>;

/** One row of the upgrade log (seed: id, taskid, firmwareid, firmwarename, devicekey, devicename, status, result). */
export const otaDeviceItem = z.object({
  id: z.number().int(),
  taskid: z.number().int(),
  firmwareid: z.number().int(),
  firmwarename: text(),
  /** The device's sn. */
  devicekey: text(),
  devicename: text(),
  product_key: text(),
  /** Target version of the task. */
  version: text(),
  status: otaDeviceStatus,
  phase: z.enum(OTA_DEVICE_PHASES),
  /** Last message from the device, or why the engine skipped, failed or cancelled it (English). */
  result: text(),
  /** The same as a key and its values, for the console to word (OTA_RESULT_CODES). */
  result_code: z.enum(OTA_RESULT_CODES),
  result_params: z.record(text(), z.union([text(), z.number()])),
  /** Last progress the device reported (0-100). */
  progress: z.number().nullable(),
  /** Attempts sent so far (the first send is attempt 1). */
  attempts: z.number().int(),
  /** Retries used: max(0, attempts - 1). */
  retries: z.number().int(),
  /** The last attempt ended by the per-device timeout. */
  timed_out: z.boolean(),
  /** The upgrade id of the current attempt (the `id` of `P/down/ota`), null before the first send. */
  upgrade_id: text().nullable(),
  wave: z.number().int(),
  next_attempt_at: iso.nullable(),
  dispatched_at: iso.nullable(),
  /** Last report from the device about this upgrade. */
  reported_at: iso.nullable(),
  finished_at: iso.nullable(),
  /** Download requests through this device's links. */
  downloads: z.number().int(),
  createdat: iso,
  updatedat: iso,
});
export type OtaDeviceItem = z.infer<typeof otaDeviceItem>;

// --- download -------------------------------------------------------------------------------------------------

/** GET /api/ota/download/:token (no sign-in: the token is the credential, valid 24 h for one device and upgrade). */
export const otaDownloadParams = z.object({ token: text().min(1).max(512) });
export const OTA_DOWNLOAD_TOKEN_TTL_MS = 24 * 3600 * 1000;

// --- live -----------------------------------------------------------------------------------------------------
// The `ota.task` message on /api/ws is `otaTaskEvent` in realtime.ts.
