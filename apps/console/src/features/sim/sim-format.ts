/**
 * Money, traffic and date rules of the SIM pages. Amounts travel as integer fen (contract sim.ts); the console shows
 * yuan and turns what a person types back into fen without float drift. Traffic figures are MB.
 */
import {
  formatFen,
  type OrderKind,
  type PackageItem,
  type SimCardItem,
  type ValidityUnit,
} from '@cellhub/contract/sim';

/** "¥12.50": fen shown as yuan with two decimals. */
export const yuan = (fen: number): string => `¥${formatFen(fen)}`;

/** A yuan amount typed into a form (two decimals at most) as integer fen: 19.99 -> 1999, never 1998. */
export function fenFromYuan(value: number): number {
  return Math.round(value * 100);
}

const trim = (v: number, digits: number) => String(Number(v.toFixed(digits)));

/** "512 MB", "1.5 GB", "0.25 MB"; "-" when unknown. */
export function formatMb(mb: number | null | undefined): string {
  if (mb === null || mb === undefined || Number.isNaN(mb)) return '-';
  const abs = Math.abs(mb);
  if (abs >= 1024 * 1024) return `${trim(mb / (1024 * 1024), 2)} TB`;
  if (abs >= 1024) return `${trim(mb / 1024, 2)} GB`;
  return `${trim(mb, abs < 10 ? 2 : 1)} MB`;
}

/** Share of the allowance used, 0-100 (more than the allowance shows as 100); null without an allowance. */
export function usagePercent(used: number, total: number | null): number | null {
  if (total === null || total <= 0) return null;
  return Math.min(100, Math.max(0, Math.round((used / total) * 1000) / 10));
}

/** Cards expiring within this many days are shown in red (the server's `expiring` flag uses the same window). */
export const EXPIRY_SOON_DAYS = 30;

export type ExpiryState = 'none' | 'expired' | 'soon' | 'ok';

export function expiryState(
  expiry: string | null,
  now = Date.now(),
  soonDays = EXPIRY_SOON_DAYS,
): ExpiryState {
  if (!expiry) return 'none';
  const at = new Date(expiry).getTime();
  if (Number.isNaN(at)) return 'none';
  if (at <= now) return 'expired';
  return at - now <= soonDays * 86_400_000 ? 'soon' : 'ok';
}

/** Whole days until the expiry (0 on its last day, negative once expired). */
export function daysLeft(expiry: string, now = Date.now()): number {
  return Math.floor((new Date(expiry).getTime() - now) / 86_400_000);
}

function addMonths(d: Date, months: number): Date {
  const target = new Date(
    Date.UTC(
      d.getUTCFullYear(),
      d.getUTCMonth() + months,
      1,
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
      d.getUTCMilliseconds(),
    ),
  );
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), last));
  return target;
}

/** The end of a validity starting at `from`, in UTC calendar arithmetic as the server counts it (31 Jan + 1 month = end of Feb). */
export function addValidity(from: Date, unit: ValidityUnit, count: number): Date {
  if (unit === 'day') return new Date(from.getTime() + count * 86_400_000);
  return addMonths(from, unit === 'month' ? count : count * 12);
}

/** What buying `pkg` does to a card: a first package, the same one again, or another one. */
export function orderKindFor(card: Pick<SimCardItem, 'package_id'>, pkg: Pick<PackageItem, 'id'>): OrderKind {
  if (card.package_id === null) return 'new';
  return card.package_id === pkg.id ? 'renew' : 'change';
}

/**
 * The expiry a card will get when the order is paid now: a renewal of a valid card adds the validity to its
 * expiry; a first package, a change, or a renewal of an expired card starts now. The server's answer
 * (`expiry_after`) is what counts; this is the preview of the order summary.
 */
export function previewExpiry(
  card: Pick<SimCardItem, 'package_id' | 'expiry'>,
  pkg: Pick<PackageItem, 'id' | 'validity_unit' | 'validity_count'>,
  now = new Date(),
): { kind: OrderKind; expiry: Date } {
  const kind = orderKindFor(card, pkg);
  const current = card.expiry ? new Date(card.expiry) : null;
  const from = kind === 'renew' && current && current.getTime() > now.getTime() ? current : now;
  return { kind, expiry: addValidity(from, pkg.validity_unit, pkg.validity_count) };
}

/** The order's kind as the server sets it: `renew` when every card renews, `change` when any changes, else `new`. */
export function orderKindOf(kinds: OrderKind[]): OrderKind {
  if (kinds.length > 0 && kinds.every((k) => k === 'renew')) return 'renew';
  if (kinds.includes('change')) return 'change';
  return 'new';
}

/** A fresh Idempotency-Key: one per payment the person confirms, reused if that same request is sent again. */
export function newIdempotencyKey(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Local `YYYY-MM-DD`, for expiries where the time of day does not matter. */
export function formatDate(iso: string | Date | null | undefined): string {
  if (!iso) return '';
  const d = iso instanceof Date ? iso : new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * A field refusal from the server in words: the rule keys the contract uses (`iccid_rule`, `msisdn_rule` ...) have
 * texts; anything else (zod's own English) is shown as it came.
 */
export function ruleText(t: (key: string) => string, message: string): string {
  const key = `sim.rule.${message}`;
  const text = t(key);
  return text === key ? message : text;
}
