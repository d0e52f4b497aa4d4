/**
 * The message box of the navbar (docs/inbox.md): per-user messages the server writes when something happens to the
 * user's things (an alert raised, an OTA task finished, a SIM card expiring or low on data), with read state kept on
 * the server. A message carries a kind and its parameters, never prose: the console words it in the user's language.
 * Each user sees and marks only her own messages (admins too).
 */
import { z } from 'zod';
import { text } from './text';
import { pageQuery } from './common';

/** The tabs of the message box. */
export const INBOX_CATEGORIES = ['alert', 'ota', 'sim'] as const;
export type InboxCategory = (typeof INBOX_CATEGORIES)[number];

/**
 * - `alert_raised`: params `trigger_name`, `sn`, `device_name`, `alert_id`, `value` (the raised value as text);
 * - `ota_finished`: params `task_id`, `task_name`, `succeeded`, `failed`, `skipped`, `reason` (`every_device_ended`
 *   or `window_ended`);
 * - `sim_expiring`: params `iccid`, `phone`, `expiry` (ISO 8601), `days`;
 * - `sim_data_low`: params `iccid`, `phone`, `remaining_mb`, `percent`;
 * - `share_received`: params `from` (the owner's username), `count`, `right` (`view`/`control`), `sn` and
 *   `device_name` (empty unless one device); kept in the `alert` tab (device notices) so the tabs stay three.
 * - `script_disabled`: params `script_id`, `script_name`, `version`, `failures`, `error`, `line` (0: unknown); the
 *   server disabled a decoding script that failed that many times in a row (docs/scripts.md); in the `alert` tab.
 * - `forward_paused`: params `rule_id`, `rule_name`, `error`; the server paused a forwarding rule whose target kept
 *   failing (docs/forwarding.md); in the `alert` tab.
 */
export const INBOX_KINDS = [
  'alert_raised',
  'ota_finished',
  'sim_expiring',
  'sim_data_low',
  'share_received',
  'script_disabled',
  'forward_paused',
] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];

export const INBOX_CATEGORY_OF: Record<InboxKind, InboxCategory> = {
  alert_raised: 'alert',
  ota_finished: 'ota',
  sim_expiring: 'sim',
  sim_data_low: 'sim',
  share_received: 'alert',
  script_disabled: 'alert',
  forward_paused: 'alert',
};

/** What a message opens: an alert (history id), an OTA task (id), a SIM card (iccid) or a device (sn). */
export const INBOX_TARGETS = ['alert', 'ota_task', 'sim_card', 'device', 'script', 'forward_rule'] as const;
export type InboxTargetType = (typeof INBOX_TARGETS)[number];

export const inboxItem = z.object({
  id: z.number().int(),
  kind: z.enum(INBOX_KINDS),
  category: z.enum(INBOX_CATEGORIES),
  /** Values the console puts into its own text for the kind (strings and numbers only). */
  params: z.record(text(), z.union([text(), z.number()])),
  target_type: z.enum(INBOX_TARGETS).nullable(),
  target_key: text().nullable(),
  created_at: text(),
  /** Null while unread. */
  read_at: text().nullable(),
});
export type InboxItem = z.infer<typeof inboxItem>;

/** GET /api/inbox: the caller's messages, newest first. */
export const inboxListQuery = pageQuery.extend({
  category: z.enum(INBOX_CATEGORIES).optional(),
  /** 1: unread only. */
  unread: z.coerce.number().int().min(0).max(1).optional(),
});
export type InboxListQuery = z.input<typeof inboxListQuery>;

/** GET /api/inbox/unread: unread messages of the caller, in all and per tab (the navbar badge). */
export const inboxUnread = z.object({
  total: z.number().int(),
  alert: z.number().int(),
  ota: z.number().int(),
  sim: z.number().int(),
});
export type InboxUnread = z.infer<typeof inboxUnread>;

export const inboxIdParams = z.object({ id: z.coerce.number().int().min(1).max(9_007_199_254_740_991) });

/** POST /api/inbox/read: the given messages, or all (of a tab when `category` is set) when `ids` is absent. */
export const inboxReadBody = z.object({
  ids: z.array(z.number().int().min(1)).min(1).max(500).optional(),
  category: z.enum(INBOX_CATEGORIES).optional(),
});
export type InboxReadBody = z.infer<typeof inboxReadBody>;
export const inboxReadResult = z.object({ read: z.number().int() });
