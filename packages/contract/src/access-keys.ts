/**
 * Access keys (seed /accesskey/*, issue 14; docs/open-api.md): a user's keys for the signed open API. The secret is
 * in the answer of a create and of a rotate only, never again. All routes need a person's session (a key cannot
 * manage keys). Times are ISO 8601 strings (UTC); null when unset.
 */
import { z } from 'zod';
import { ACCESS_SCOPES } from './access';
import { pageQuery } from './common';
import { text } from './text';

/** "AK" and 20 characters of the RFC 4648 base32 alphabet. */
export const ACCESS_KEY_RULE = /^AK[A-Z2-7]{20}$/;
/** At most this many allow-list entries per key. */
export const MAX_IP_ALLOW = 50;

export const accessScope = z.enum(ACCESS_SCOPES);

// --- IP addresses and CIDR ranges (pure, so the console checks what the server checks) ---------------------------

const IPV4_PART = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** A dotted IPv4 address (no leading zeros). */
export function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => IPV4_PART.test(p));
}

/** An IPv6 address: up to 8 groups of 1-4 hex digits, one `::`, an optional dotted IPv4 tail; no zone. */
export function isIPv6(s: string): boolean {
  if (!/^[0-9A-Fa-f:.]+$/.test(s) || s.length > 45) return false;
  const halves = s.split('::');
  if (halves.length > 2) return false;
  const groups = (h: string): string[] | null => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return false;
  const all = [...head, ...tail];
  let count = 0;
  for (let i = 0; i < all.length; i++) {
    const g = all[i]!;
    if (i === all.length - 1 && g.includes('.')) {
      if (!isIPv4(g)) return false;
      count += 2;
    } else if (/^[0-9A-Fa-f]{1,4}$/.test(g)) count += 1;
    else return false;
  }
  return halves.length === 2 ? count <= 7 : count === 8;
}

/** An allow-list entry: an IPv4 or IPv6 address, or a CIDR range (`10.0.0.0/8`, `2001:db8::/32`). */
export function isIpOrCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash === -1) return isIPv4(s) || isIPv6(s);
  const addr = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  const n = Number(bits);
  if (isIPv4(addr)) return n <= 32;
  return isIPv6(addr) && n <= 128;
}

export const ipAllowEntry = text()
  .trim()
  .max(64)
  .refine((s) => isIpOrCidr(s), 'ip_rule');

const ipAllow = z
  .array(ipAllowEntry)
  .max(MAX_IP_ALLOW)
  .transform((list) => [...new Set(list)]);
const scopes = z
  .array(accessScope)
  .min(1)
  .max(ACCESS_SCOPES.length)
  .transform((list) => [...new Set(list)]);
const name = text().trim().min(1).max(64);
/** An ISO 8601 date-time with an offset; null for "never expires". The server refuses a time in the past. */
const expiresAt = z.iso.datetime({ offset: true }).nullable();

// --- requests ---------------------------------------------------------------------------------------------------

export const accessKeyParams = z.object({ ak: text().regex(ACCESS_KEY_RULE, 'access_key_rule') });

/** GET /api/access-keys: the caller's keys; an admin sees everyone's (with `owner`). */
export const accessKeyListQuery = pageQuery.extend({
  /** Substring of the name or the access key. */
  keyword: text().trim().max(64).optional(),
});
export type AccessKeyListQuery = z.input<typeof accessKeyListQuery>;

/** POST /api/access-keys. The key starts unverified: confirm it with verify-code + verify before it signs. */
export const accessKeyCreateBody = z.object({
  name,
  scopes,
  ip_allow: ipAllow.default([]),
  expires_at: expiresAt.default(null),
});
export type AccessKeyCreateBody = z.input<typeof accessKeyCreateBody>;

/** PUT /api/access-keys/:ak: any of these. */
export const accessKeyUpdateBody = z
  .object({ name, scopes, ip_allow: ipAllow, expires_at: expiresAt, enabled: z.boolean() })
  .partial();
export type AccessKeyUpdateBody = z.input<typeof accessKeyUpdateBody>;

export const ACCESS_KEY_VERIFY_CHANNELS = ['sms', 'email'] as const;
export type AccessKeyVerifyChannel = (typeof ACCESS_KEY_VERIFY_CHANNELS)[number];

/** POST /api/access-keys/:ak/verify-code: send a 6-digit code to the user's own phone or email. */
export const accessKeyVerifyCodeBody = z.object({ channel: z.enum(ACCESS_KEY_VERIFY_CHANNELS) });
export type AccessKeyVerifyCodeBody = z.infer<typeof accessKeyVerifyCodeBody>;
/** Where the code went, masked (`138****0000`, `a***@example.com`), and how long it lives. */
export const accessKeyVerifyCodeResult = z.object({
  channel: z.enum(ACCESS_KEY_VERIFY_CHANNELS),
  to: text(),
  expires_in: z.number().int(),
});
export type AccessKeyVerifyCodeResult = z.infer<typeof accessKeyVerifyCodeResult>;

/** POST /api/access-keys/:ak/verify. */
export const accessKeyVerifyBody = z.object({
  code: text()
    .trim()
    .regex(/^\d{6}$/, 'captcha_rule'),
});
export type AccessKeyVerifyBody = z.infer<typeof accessKeyVerifyBody>;

/** GET /api/access-keys/:ak/uses. */
export const accessKeyUsesQuery = pageQuery;
export type AccessKeyUsesQuery = z.input<typeof accessKeyUsesQuery>;

/** GET /api/access-keys/:ak/usage: the last `days` days (today included, UTC). */
export const accessKeyUsageQuery = z.object({ days: z.coerce.number().int().min(1).max(90).default(30) });
export type AccessKeyUsageQuery = z.input<typeof accessKeyUsageQuery>;

// --- answers ----------------------------------------------------------------------------------------------------

export const accessKeyItem = z.object({
  access_key: text(),
  name: text(),
  scopes: z.array(accessScope),
  ip_allow: z.array(text()),
  expires_at: text().nullable(),
  enabled: z.boolean(),
  verified: z.boolean(),
  last_used_at: text().nullable(),
  last_used_ip: text().nullable(),
  created_at: text(),
  updated_at: text(),
  /** The owner: filled for an admin's view (every key), null in a user's own list. */
  owner: z.object({ uid: z.number().int(), username: text() }).nullable(),
});
export type AccessKeyItem = z.infer<typeof accessKeyItem>;

/** POST /api/access-keys: the key and its secret, shown this once. */
export const accessKeyCreated = accessKeyItem.extend({ secret: text() });
export type AccessKeyCreated = z.infer<typeof accessKeyCreated>;

/** POST /api/access-keys/:ak/rotate: the new secret, shown this once; the old one stops working at once. */
export const accessKeyRotated = z.object({ access_key: text(), secret: text() });
export type AccessKeyRotated = z.infer<typeof accessKeyRotated>;

/** One signed request that named the key: `code` 0 when it was let through, else the error code it got. */
export const accessKeyUse = z.object({
  id: z.number().int(),
  at: text(),
  method: text(),
  /** The route pattern (`/api/devices/:sn`), or the path when no route matched. */
  route: text(),
  ip: text(),
  code: z.number().int(),
  status: z.number().int(),
});
export type AccessKeyUse = z.infer<typeof accessKeyUse>;

/** One UTC day of GET /usage; every day of the range is present (zeros included), oldest first. */
export const accessKeyUsageDay = z.object({
  day: text(),
  ok: z.number().int(),
  refused: z.number().int(),
});
export type AccessKeyUsageDay = z.infer<typeof accessKeyUsageDay>;
