/** Rules shared by the SIM services: units, calendar arithmetic and who may see a card. */
import { and, ne, or, type SQL, sql } from 'drizzle-orm';
import type { ValidityUnit } from '@cellhub/contract/sim';
import { isAdmin, ownerFilter } from '../../lib/authz';
import type { Actor } from '../../lib/deps';
import { devices } from '../devices/devices.table';
import { simCards } from './sim-cards.table';

export const MB = 1024 * 1024;
/** Bytes -> MB with at most 3 decimals (the API's traffic unit). */
export const toMb = (bytes: number): number => Math.round((bytes / MB) * 1000) / 1000;
export const mbToBytes = (mb: number): number => Math.round(mb * MB);

const pad = (n: number) => String(n).padStart(2, '0');
/** `YYYY-MM` of a date in UTC: usage months and `monthly` allowances follow the UTC calendar. */
export const monthOf = (d: Date): string => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`;
export const dayOf = (d: Date): string => `${monthOf(d)}-${pad(d.getUTCDate())}`;

/** Adds whole calendar months in UTC, clamping the day (31 Jan + 1 month = 28/29 Feb). */
export function addMonths(d: Date, months: number): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const target = new Date(
    Date.UTC(y, m, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()),
  );
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), last));
  return target;
}

/** The end of a validity that starts at `from`. */
export function addValidity(from: Date, unit: ValidityUnit, count: number): Date {
  if (unit === 'day') return new Date(from.getTime() + count * 86_400_000);
  return addMonths(from, unit === 'month' ? count : count * 12);
}

/**
 * Cards a user may see: assigned to them, or reported by one of their devices (devices.iccid). Admins see all.
 * The device side runs through devices_uid_idx, then sim_cards_iccid_uq.
 */
export function cardScope(actor: Actor): SQL | undefined {
  if (isAdmin(actor)) return undefined;
  return or(
    ownerFilter(actor, simCards.uid),
    sql`${simCards.iccid} in (select ${devices.iccid} from ${devices} where ${and(
      ownerFilter(actor, devices.uid),
      ne(devices.iccid, ''),
    )})`,
  );
}

/** Usage of a card in one month, in bytes (0 when none recorded). */
export const monthUsedSql = (month: string) =>
  sql<number>`coalesce((select used_bytes from sim_usage_monthly m where m.card_id = ${simCards.id} and m.month = ${month}), 0)`.mapWith(
    Number,
  );

/** Usage since the pool started: the months from the start month on (a pool counts its whole first month). */
export const poolUsedSql =
  sql<number>`coalesce((select sum(used_bytes) from sim_usage_monthly m where m.card_id = ${simCards.id} and m.month >= to_char(${simCards.periodStart} at time zone 'UTC', 'YYYY-MM')), 0)`.mapWith(
    Number,
  );

/**
 * Bytes left of the current allowance: the operator's remaining quota when it reports one, else the allowance
 * minus this month's use (`monthly`) or the pool's use (`pool`). Null without an allowance.
 */
export const remainingSql = (month: string) =>
  sql<number | null>`case
    when ${simCards.quotaRemainingBytes} is not null then ${simCards.quotaRemainingBytes}
    when ${simCards.allowanceBytes} is null then null
    when ${simCards.allowanceType} = 'pool' then greatest(${simCards.allowanceBytes} - ${poolUsedSql}, 0)
    else greatest(${simCards.allowanceBytes} - ${monthUsedSql(month)}, 0) end`.mapWith((v) =>
    v === null ? null : Number(v),
  );
