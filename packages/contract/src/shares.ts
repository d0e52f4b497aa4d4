/**
 * Sharing (issue 14, seed section 2, docs/sharing.md): an owner lends devices to another account with view or
 * control right and an optional expiry, directly (by username or phone) or through a share link that a signed-in
 * user accepts. View reads a device; control also sends commands and configuration. Neither right re-shares,
 * edits, deletes, unbinds, transfers or sees the device secret. Codes: 10210 share failed (unknown or disabled
 * account, a device that is not the caller's own), 10211 share link does not exist (unknown, revoked, expired, used
 * up: all alike), 10212 cannot share with yourself.
 */
import { z } from 'zod';
import { text } from './text';
import { pageQuery } from './common';
import { SN_RULE } from './protocol';

/** One request shares at most this many devices (the same bound as a user-command run). */
export const SHARE_MAX_DEVICES = 500;
/** Length of a share-link token: url-safe random characters; the server stores only its SHA-256. */
export const SHARE_TOKEN_LENGTH = 32;
export const SHARE_TOKEN_RULE = /^[A-Za-z0-9_-]{32}$/;
/** A link may be accepted at most this many times when `max_uses` is given. */
export const SHARE_LINK_MAX_USES = 10_000;

export const SHARE_RIGHTS = ['view', 'control'] as const;
export const shareRight = z.enum(SHARE_RIGHTS);
export type ShareRight = z.infer<typeof shareRight>;

/** An ISO 8601 instant with a zone (`2026-12-01T00:00:00Z`, `...+08:00`); null or absent: never expires. */
export const shareExpiry = text()
  .max(40)
  .refine(
    (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/.test(v),
    'iso_datetime',
  )
  .refine((v) => !Number.isNaN(Date.parse(v)), 'iso_datetime')
  .nullable()
  .optional();

/** Serial numbers: 1..500, deduplicated. */
export const shareSns = z
  .array(text().regex(SN_RULE, 'sn_rule'))
  .min(1)
  .max(SHARE_MAX_DEVICES)
  .transform((list) => [...new Set(list)]);

/**
 * POST /api/shares: share the caller's devices with one account. `to` is a username or a phone number. Sharing a
 * device again with the same account updates right and expiry. All or nothing: one device that is not the caller's
 * own (or an unknown / disabled account) answers 10210 and nothing is written.
 */
export const shareCreateBody = z.object({
  sns: shareSns,
  to: text().trim().min(1).max(64),
  right: shareRight,
  expires_at: shareExpiry,
});
export type ShareCreateBody = z.input<typeof shareCreateBody>;

export const shareCreateResult = z.object({
  created: z.number().int(),
  updated: z.number().int(),
});
export type ShareCreateResult = z.infer<typeof shareCreateResult>;

/** GET /api/shares/outgoing and /incoming. `keyword` matches device name or sn, and the other account's name. */
export const shareListQuery = pageQuery.extend({
  keyword: text().trim().max(64).optional(),
  sn: text().trim().max(64).optional(),
});
export type ShareListQuery = z.input<typeof shareListQuery>;

/** What I shared. `to_phone` is masked (`138****0000`). `expired` is true once `expires_at` has passed. */
export const outgoingShareItem = z.object({
  id: z.number().int(),
  sn: text(),
  device_name: text(),
  product_key: text(),
  product_name: text(),
  to_uid: z.number().int(),
  to_username: text(),
  to_phone: text().nullable(),
  right: shareRight,
  created_at: text(),
  updated_at: text(),
  expires_at: text().nullable(),
  expired: z.boolean(),
});
export type OutgoingShareItem = z.infer<typeof outgoingShareItem>;

/** Shared with me (live shares only: an expired share is not listed). `since` is when it was first shared. */
export const incomingShareItem = z.object({
  id: z.number().int(),
  sn: text(),
  device_name: text(),
  product_key: text(),
  product_name: text(),
  owner_username: text(),
  right: shareRight,
  since: text(),
  expires_at: text().nullable(),
});
export type IncomingShareItem = z.infer<typeof incomingShareItem>;

export const shareIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

/** PUT /api/shares/:id (owner only): both fields are written; `expires_at: null` removes the expiry. */
export const shareUpdateBody = z.object({
  right: shareRight,
  expires_at: shareExpiry,
});
export type ShareUpdateBody = z.input<typeof shareUpdateBody>;

/* DELETE /api/shares/:id: the owner revokes, or the receiver leaves; anyone else 10107 (as missing). data: null. */

/** POST /api/share-links: a token URL that another signed-in user opens to accept the shares. */
export const shareLinkCreateBody = z.object({
  sns: shareSns,
  right: shareRight,
  expires_at: shareExpiry,
  /** Absent or null: no limit. */
  max_uses: z.number().int().min(1).max(SHARE_LINK_MAX_USES).nullable().optional(),
});
export type ShareLinkCreateBody = z.input<typeof shareLinkCreateBody>;

/** The token is shown once, here; the server keeps only its SHA-256. `url_path` is `/share?token=<token>`. */
export const shareLinkCreated = z.object({
  id: z.number().int(),
  token: text(),
  url_path: text(),
});
export type ShareLinkCreated = z.infer<typeof shareLinkCreated>;

/** GET /api/share-links: the caller's links, newest first (revoked links are not listed). */
export const shareLinkListQuery = pageQuery;
export const shareLinkItem = z.object({
  id: z.number().int(),
  devices: z.number().int(),
  right: shareRight,
  uses: z.number().int(),
  max_uses: z.number().int().nullable(),
  expires_at: text().nullable(),
  created_at: text(),
  /** expired or used up (a link in this state answers 10211 to anyone who opens it). */
  spent: z.boolean(),
});
export type ShareLinkItem = z.infer<typeof shareLinkItem>;

export const shareLinkIdParams = shareIdParams;
/** Any token of a sane length is looked up: a malformed one answers 10211 like an unknown one. */
export const shareTokenParams = z.object({ token: text().min(1).max(64) });

/** GET /api/share-links/:token: what accepting would give the signed-in caller. */
export const shareLinkPreview = z.object({
  owner_username: text(),
  devices: z.array(z.object({ sn: text(), name: text() })),
  right: shareRight,
  expires_at: text().nullable(),
});
export type ShareLinkPreview = z.infer<typeof shareLinkPreview>;

/** POST /api/share-links/:token/accept: shares every device of the link with the caller (one use). */
export const shareLinkAccepted = shareCreateResult;
export type ShareLinkAccepted = ShareCreateResult;

/**
 * The mark on a device of the device list and detail: null for the caller's own devices (and for admins), the
 * share otherwise. Added to `deviceListItem` and `deviceDetail` as an optional field.
 */
export const deviceShareMark = z
  .object({
    right: shareRight,
    owner: text(),
    expires_at: text().nullable(),
  })
  .nullable();
export type DeviceShareMark = z.infer<typeof deviceShareMark>;
