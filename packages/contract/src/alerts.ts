/**
 * Alerts (seed /alert/device-trigger, /alert/config, /alert/contact; section 3 "Alarm trigger", "Alarm contact";
 * section 4 "Alarm enable 1/0", "Alarm push: once, or per silence time"; section 5 condition types 1-7; codes
 * 11000-11011 and 20115-20121). docs/alerts.md describes the routes, the evaluation and the split between a
 * trigger and an alert configuration:
 *
 * - a trigger is one condition on one device (its property, or its online state) with what to say when it is
 *   raised and recovered, and its own recipients (contacts x methods) with a silence time and a push mode;
 * - an alert configuration routes one or more triggers to further contacts and methods with its own interval
 *   (the seed's "alert configuration trigger / interval / push user");
 * - a contact receives SMS only once its phone is verified, email only once its email is verified.
 *
 * The server checks the seed's codes (11001-11011) itself with `alertTriggerProblem` / `alertConfigProblem`,
 * which the console also runs before sending a form, so both show the same rule.
 */
import { z } from 'zod';
import { text } from './text';
import { phone } from './auth';
import { pageQuery } from './common';
import { propertyValue, PROPERTY_KEY_RULE, SN_RULE } from './protocol';

// --- enums ----------------------------------------------------------------------------------------------------

/**
 * Seed section 5 condition types. `a` is the lower value ("A", the seed's min), `b` the upper value ("B", max).
 * - 1 online: active while the device is online (raised when it connects, recovered when it disconnects);
 * - 2 online/offline: active while the device is offline (raised when it disconnects, recovered when it is back);
 * - 3 less than A: value < a;
 * - 4 greater than B: value > b;
 * - 5 between: a <= value <= b (both ends included);
 * - 6 outside: value < a or value > b (the exact opposite of 5);
 * - 7 equal to A: value == a.
 * Booleans count as 1/0; a string value counts when it is a decimal number, else the condition is not met.
 */
export const ALERT_TRIGGER_TYPES = [1, 2, 3, 4, 5, 6, 7] as const;
export type AlertTriggerType = (typeof ALERT_TRIGGER_TYPES)[number];
export const alertTriggerType = z.union([
  z.literal(1),
  z.literal(2),
  z.literal(3),
  z.literal(4),
  z.literal(5),
  z.literal(6),
  z.literal(7),
]);
/** Types about the online state; they take no property key and no values. */
export const ALERT_PRESENCE_TYPES: readonly AlertTriggerType[] = [1, 2];
export const isPresenceType = (t: AlertTriggerType): boolean => t === 1 || t === 2;
/** Which of the values a type needs. */
export const ALERT_TYPE_VALUES: Record<AlertTriggerType, { a: boolean; b: boolean }> = {
  1: { a: false, b: false },
  2: { a: false, b: false },
  3: { a: true, b: false },
  4: { a: false, b: true },
  5: { a: true, b: true },
  6: { a: true, b: true },
  7: { a: true, b: false },
};

/** Seed section 5: SMS, WeChat, email. WeChat goes to the trigger owner's bound WeChat (QR sign-in's openid). */
export const ALERT_METHODS = ['sms', 'wechat', 'email'] as const;
export type AlertMethod = (typeof ALERT_METHODS)[number];

/**
 * Seed section 4. `once`: one push when raised (and one on recovery); `per_silence`: pushed again every
 * `silence_s` seconds while it stays active (on the next value that still meets the condition). In both modes a
 * new raise within `silence_s` of the last push is recorded in the history but not pushed (flapping guard), and a
 * recovery is pushed only for an alert whose raise was pushed.
 */
export const ALERT_PUSH_MODES = ['once', 'per_silence'] as const;
export type AlertPushMode = (typeof ALERT_PUSH_MODES)[number];

/**
 * What a trigger watches: a device, or a scene variable (`scene_id` with the `sn` and `key` of one of its widget
 * bindings; 11000 no such scene, 11009 a scene without bound variables).
 */
export const ALERT_SOURCES = ['device', 'scene'] as const;
export type AlertSource = (typeof ALERT_SOURCES)[number];

/** Placeholders the contents may use; the server fills them in when it pushes. */
export const ALERT_PLACEHOLDERS = ['{device}', '{property}', '{value}', '{time}'] as const;
export const ALERT_DEFAULT_PUSH_CONTENT = '{device} {property} = {value} at {time}';
export const ALERT_DEFAULT_RECOVERY_CONTENT = '{device} {property} back to normal: {value} at {time}';

export const ALERT_MAX_SILENCE_S = 7 * 86_400;
export const ALERT_MAX_CONTACTS = 50;

const id = z.number().int().positive().max(2_147_483_647);
const flag = z.union([z.literal(0), z.literal(1)]);
const alertValue = z.number().finite().min(-1e15).max(1e15);
const methods = z
  .array(z.enum(ALERT_METHODS))
  .max(ALERT_METHODS.length)
  .refine((l) => new Set(l).size === l.length, 'duplicate method');
const contactIds = z
  .array(id)
  .max(ALERT_MAX_CONTACTS)
  .refine((l) => new Set(l).size === l.length, 'duplicate contact');

export const alertIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

// --- triggers -------------------------------------------------------------------------------------------------

/**
 * POST /api/alert/triggers and PUT /api/alert/triggers/:id (the whole trigger). `sn`, `key`, `a` and `b` may be
 * null so the server can answer with the seed's codes (11001 device empty, 11002/11003/11004 values missing,
 * 11005 b must exceed a) rather than a form error; `alertTriggerProblem` names the rule.
 */
export const alertTriggerBody = z.object({
  name: text().trim().min(1).max(64),
  enable: flag.default(1),
  source: z.enum(ALERT_SOURCES).default('device'),
  /** The caller's own device (admins: any device). */
  sn: text().trim().regex(SN_RULE, 'sn_rule').nullable().default(null),
  /** The scene (source `scene`): `sn` and `key` then name one of its widget bindings (docs/scenes.md). */
  scene_id: id.nullable().default(null),
  /** Property identifier (types 3-7); ignored for 1 and 2. */
  key: text().trim().regex(PROPERTY_KEY_RULE, 'property_key_rule').nullable().default(null),
  type: alertTriggerType,
  a: alertValue.nullable().default(null),
  b: alertValue.nullable().default(null),
  /** Pushed when raised; placeholders {device} {property} {value} {time}. Empty: ALERT_DEFAULT_PUSH_CONTENT. */
  push_content: text().trim().max(500).default(''),
  /** Pushed when recovered. Empty: ALERT_DEFAULT_RECOVERY_CONTENT. */
  recovery_content: text().trim().max(500).default(''),
  silence_s: z.number().int().min(0).max(ALERT_MAX_SILENCE_S).default(300),
  push_mode: z.enum(ALERT_PUSH_MODES).default('once'),
  methods: methods.default([]),
  /** The caller's own contacts. */
  contact_ids: contactIds.default([]),
});
export type AlertTriggerBody = z.input<typeof alertTriggerBody>;
export type AlertTriggerParsed = z.infer<typeof alertTriggerBody>;

/** PUT /api/alert/triggers/:id/enable: switch a trigger on or off without sending the rest. */
export const alertEnableBody = z.object({ enable: flag });

export interface AlertProblem {
  code: number;
  field: string;
}

/** The seed's rule a trigger body breaks, or null. Shared by server (answers `code`) and console (marks `field`). */
export function alertTriggerProblem(b: {
  source: AlertSource;
  sn: string | null;
  scene_id: number | null;
  key: string | null;
  type: AlertTriggerType;
  a: number | null;
  b: number | null;
  push_mode: AlertPushMode;
  silence_s: number;
}): AlertProblem | null {
  // A scene trigger names the scene and one of its bound variables (`sn` and `key` of a widget binding).
  if (b.source === 'scene' && b.scene_id === null) return { code: 11000, field: 'scene_id' };
  if (!b.sn) return { code: 11001, field: 'sn' };
  const need = ALERT_TYPE_VALUES[b.type];
  if (!isPresenceType(b.type) && !b.key) return { code: 10113, field: 'key' };
  const noA = need.a && b.a === null;
  const noB = need.b && b.b === null;
  if (noA && noB) return { code: 11004, field: 'a' };
  if (noB) return { code: 11002, field: 'b' };
  if (noA) return { code: 11003, field: 'a' };
  if (need.a && need.b && b.a !== null && b.b !== null && !(b.b > b.a)) return { code: 11005, field: 'b' };
  if (b.push_mode === 'per_silence' && b.silence_s < 1) return { code: 11010, field: 'silence_s' };
  return null;
}

export const alertTriggerListQuery = pageQuery.extend({
  /** Part of the trigger name, device sn or device name. */
  keyword: text().trim().max(64).optional(),
  enable: z.coerce.number().int().min(0).max(1).optional(),
  type: z.coerce.number().int().min(1).max(7).optional(),
  sn: text().trim().regex(SN_RULE, 'sn_rule').optional(),
  /** Only triggers now active (alert raised and not recovered). */
  active: z.coerce.number().int().min(0).max(1).optional(),
});
export type AlertTriggerListQuery = z.input<typeof alertTriggerListQuery>;

const iso = text();
const ref = z.object({ id: z.number().int(), name: text() });

export const ALERT_STATES = ['normal', 'active'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

export const alertTriggerItem = z.object({
  id: z.number().int(),
  uid: z.number().int(),
  name: text(),
  enable: flag,
  source: z.enum(ALERT_SOURCES),
  sn: text().nullable(),
  device_name: text(),
  product_key: text().nullable(),
  scene_id: z.number().int().nullable(),
  key: text().nullable(),
  /** The product's name for the property (its key when the product does not define it). */
  property_name: text(),
  /** Its English name (name_us), '' when the product gives none: the console then shows property_name. */
  property_name_us: text(),
  type: alertTriggerType,
  a: z.number().nullable(),
  b: z.number().nullable(),
  push_content: text(),
  recovery_content: text(),
  silence_s: z.number().int(),
  push_mode: z.enum(ALERT_PUSH_MODES),
  methods: z.array(z.enum(ALERT_METHODS)),
  contact_ids: z.array(z.number().int()),
  contacts: z.array(ref),
  /** `active` while an alert of this trigger is raised and not recovered. */
  state: z.enum(ALERT_STATES),
  /** When the current state began (null: never evaluated). */
  state_since: iso.nullable(),
  createdat: iso,
  updatedat: iso,
});
export type AlertTriggerItem = z.infer<typeof alertTriggerItem>;

// --- alert configurations -------------------------------------------------------------------------------------

/**
 * POST /api/alert/configs, PUT /api/alert/configs/:id. Empty lists and a null interval are accepted by the schema
 * so the server answers with the seed's codes: 11007 no trigger, 11011 no contact (push user), 11010 no interval.
 */
export const alertConfigBody = z.object({
  name: text().trim().min(1).max(64),
  enable: flag.default(1),
  /** The caller's own triggers. */
  trigger_ids: z
    .array(id)
    .max(500)
    .refine((l) => new Set(l).size === l.length, 'duplicate trigger')
    .default([]),
  contact_ids: contactIds.default([]),
  methods: methods.default([]),
  /** Seconds: the silence time of this configuration's pushes (same meaning as a trigger's `silence_s`). */
  interval_s: z.number().int().min(1).max(ALERT_MAX_SILENCE_S).nullable().default(null),
  push_mode: z.enum(ALERT_PUSH_MODES).default('once'),
  remark: text().trim().max(200).default(''),
});
export type AlertConfigBody = z.input<typeof alertConfigBody>;
export type AlertConfigParsed = z.infer<typeof alertConfigBody>;

export function alertConfigProblem(b: {
  trigger_ids: number[];
  contact_ids: number[];
  methods: AlertMethod[];
  interval_s: number | null;
}): AlertProblem | null {
  if (b.trigger_ids.length === 0) return { code: 11007, field: 'trigger_ids' };
  if (b.interval_s === null) return { code: 11010, field: 'interval_s' };
  // WeChat goes to the owner, so a configuration that only uses WeChat needs no contact.
  if (b.contact_ids.length === 0 && !(b.methods.length === 1 && b.methods[0] === 'wechat'))
    return { code: 11011, field: 'contact_ids' };
  if (b.methods.length === 0) return { code: 10113, field: 'methods' };
  return null;
}

export const alertConfigListQuery = pageQuery.extend({
  keyword: text().trim().max(64).optional(),
  enable: z.coerce.number().int().min(0).max(1).optional(),
  /** Configurations that route this trigger. */
  trigger_id: z.coerce.number().int().positive().max(2_147_483_647).optional(),
});
export type AlertConfigListQuery = z.input<typeof alertConfigListQuery>;

export const alertConfigItem = z.object({
  id: z.number().int(),
  uid: z.number().int(),
  name: text(),
  enable: flag,
  trigger_ids: z.array(z.number().int()),
  triggers: z.array(ref),
  contact_ids: z.array(z.number().int()),
  contacts: z.array(ref),
  methods: z.array(z.enum(ALERT_METHODS)),
  interval_s: z.number().int(),
  push_mode: z.enum(ALERT_PUSH_MODES),
  remark: text(),
  createdat: iso,
  updatedat: iso,
});
export type AlertConfigItem = z.infer<typeof alertConfigItem>;

// --- contacts -------------------------------------------------------------------------------------------------

/**
 * POST /api/alert/contacts, PUT /api/alert/contacts/:id. A phone or an email (or both) is needed. Changing the
 * phone or the email clears its verification.
 */
export const alertContactBody = z
  .object({
    name: text().trim().min(1).max(64),
    phone: z.union([z.literal(''), phone]).default(''),
    email: z.union([z.literal(''), z.email().max(254)]).default(''),
    remark: text().trim().max(200).default(''),
  })
  .superRefine((c, ctx) => {
    if (!c.phone && !c.email) ctx.addIssue({ code: 'custom', path: ['phone'], message: 'phone_or_email' });
  });
export type AlertContactBody = z.input<typeof alertContactBody>;
export type AlertContactParsed = z.infer<typeof alertContactBody>;

export const ALERT_VERIFY_CHANNELS = ['sms', 'email'] as const;
export type AlertVerifyChannel = (typeof ALERT_VERIFY_CHANNELS)[number];

/** Verification codes: 6 digits, 5 minutes, 5 attempts, once. */
export const ALERT_CODE_TTL_S = 300;

/**
 * POST /api/alert/contacts/:id/code: send a code to the contact's phone (`sms`) or email. Answers
 * `alertCodeSent` with code 20115 (SMS sent) or 20116 (email sent); 20117 when the email could not be sent,
 * 31002 for SMS, 20141 when the channel is not configured, 429 when asked too often (1 per 60 s, 10 per day per
 * contact and channel).
 */
export const alertContactCodeBody = z.object({ channel: z.enum(ALERT_VERIFY_CHANNELS) });
export const alertCodeSent = z.object({
  /** 20115 or 20116: the seed's "code sent" codes, for the console's message. */
  code: z.union([z.literal(20115), z.literal(20116)]),
  channel: z.enum(ALERT_VERIFY_CHANNELS),
  /** The phone or email it went to. */
  to: text(),
  expires_in: z.number().int(),
});
export type AlertCodeSent = z.infer<typeof alertCodeSent>;

/**
 * POST /api/alert/contacts/:id/verify. An empty code answers 20119 (phone) / 20118 (email); a wrong, used or
 * expired one 20121 / 20120. Answers the contact with the channel verified.
 */
export const alertContactVerifyBody = z.object({
  channel: z.enum(ALERT_VERIFY_CHANNELS),
  code: text().trim().max(16).default(''),
});

export const alertContactListQuery = pageQuery.extend({
  /** Part of the name, phone or email. */
  keyword: text().trim().max(64).optional(),
});
export type AlertContactListQuery = z.input<typeof alertContactListQuery>;

export const alertContactItem = z.object({
  id: z.number().int(),
  uid: z.number().int(),
  name: text(),
  phone: text(),
  email: text(),
  phone_verified: z.boolean(),
  email_verified: z.boolean(),
  remark: text(),
  /** Triggers and configurations that send to this contact. */
  used_by: z.number().int(),
  createdat: iso,
  updatedat: iso,
});
export type AlertContactItem = z.infer<typeof alertContactItem>;

// --- alert history --------------------------------------------------------------------------------------------

export const ALERT_HISTORY_STATUSES = ['active', 'recovered'] as const;
export type AlertHistoryStatus = (typeof ALERT_HISTORY_STATUSES)[number];

export const alertHistoryQuery = pageQuery.extend({
  status: z.enum(ALERT_HISTORY_STATUSES).optional(),
  acknowledged: z.coerce.number().int().min(0).max(1).optional(),
  trigger_id: z.coerce.number().int().positive().max(2_147_483_647).optional(),
  sn: text().trim().regex(SN_RULE, 'sn_rule').optional(),
  /** Raised at or after (ISO 8601). */
  from: z.iso.datetime({ offset: true }).optional(),
  /** Raised before (ISO 8601). */
  to: z.iso.datetime({ offset: true }).optional(),
});
export type AlertHistoryQuery = z.input<typeof alertHistoryQuery>;

/** One alert: raised once, recovered once. */
export const alertHistoryItem = z.object({
  id: z.number().int(),
  trigger_id: z.number().int().nullable(),
  trigger_name: text(),
  uid: z.number().int(),
  sn: text(),
  device_name: text(),
  product_key: text(),
  key: text().nullable(),
  /** The product's name for the property now (its key when the product does not define it; '' for online triggers). */
  property_name: text(),
  /** Its English name (name_us), '' when the product gives none: the console then shows property_name. */
  property_name_us: text(),
  type: alertTriggerType,
  a: z.number().nullable(),
  b: z.number().nullable(),
  status: z.enum(ALERT_HISTORY_STATUSES),
  raised_at: iso,
  raised_value: propertyValue.nullable(),
  recovered_at: iso.nullable(),
  recovered_value: propertyValue.nullable(),
  /** Messages queued for this alert so far (raise, repeats, recovery); 0 when silenced or no verified recipient. */
  push_count: z.number().int(),
  acknowledged_at: iso.nullable(),
  /** Username of who acknowledged it. */
  acknowledged_by: text().nullable(),
});
export type AlertHistoryItem = z.infer<typeof alertHistoryItem>;

/** POST /api/alert/history/ack: acknowledge several alerts at once (the caller's own; admins any). */
export const alertAckBody = z.object({ ids: z.array(id).min(1).max(500) });
export const alertAckResult = z.object({ acknowledged: z.number().int() });
