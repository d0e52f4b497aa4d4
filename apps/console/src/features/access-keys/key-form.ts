/**
 * The values of the key form (create and edit) and the request bodies made from them. The expiry is picked as a
 * local time (`YYYY-MM-DD HH:mm`) and sent as ISO 8601 UTC; "never" sends null.
 */
import type { AccessScope } from '@cellhub/contract/access';
import type { AccessKeyItem } from '@cellhub/contract/access-keys';

export interface KeyFormValues {
  name: string;
  scopes: AccessScope[];
  ip_allow: string[];
  expiry: 'never' | 'until';
  /** Local time as the date picker writes it. */
  expires_at?: string;
  enabled?: boolean;
}

export const EXPIRY_FORMAT = 'YYYY-MM-DD HH:mm';

const pad = (n: number) => String(n).padStart(2, '0');

/** ISO → the picker's local `YYYY-MM-DD HH:mm`. */
export function toPickerTime(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The picker's local time → a Date (undefined when it is no time). */
export function fromPickerTime(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const d = new Date(value.trim().replace(' ', 'T'));
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export function emptyKeyForm(): KeyFormValues {
  return { name: '', scopes: ['devices:read'], ip_allow: [], expiry: 'never' };
}

export function keyFormOf(item: AccessKeyItem): KeyFormValues {
  return {
    name: item.name,
    scopes: [...item.scopes],
    ip_allow: [...item.ip_allow],
    expiry: item.expires_at ? 'until' : 'never',
    expires_at: item.expires_at ? toPickerTime(item.expires_at) : undefined,
    enabled: item.enabled,
  };
}

/** The body of a create or an update: trimmed, de-duplicated addresses; the expiry as ISO UTC or null. */
export function keyBody(values: KeyFormValues) {
  const until = values.expiry === 'until' ? fromPickerTime(values.expires_at) : undefined;
  return {
    name: values.name.trim(),
    scopes: values.scopes,
    ip_allow: [...new Set(values.ip_allow.map((v) => v.trim()).filter(Boolean))],
    expires_at: until ? until.toISOString() : null,
    ...(values.enabled === undefined ? {} : { enabled: values.enabled }),
  };
}
