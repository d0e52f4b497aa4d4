/**
 * Calendar arithmetic in an operator's fixed time zone (OneLink bills in China time, UTC+8 all year; 1NCE
 * reports usage per UTC day). Plain integer maths: no time-zone database needed for fixed offsets.
 */

export interface Ymd {
  year: number;
  month: number; // 1..12
  day: number; // 1..31
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Wall-clock fields of `date` at `offsetMinutes` east of UTC. */
export function wallClock(date: Date, offsetMinutes: number) {
  const d = new Date(date.getTime() + offsetMinutes * 60_000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

/** `YYYY-MM` -> year and month, or null when it is not a month. */
export function parseMonth(value: string): { year: number; month: number } | null {
  const m = /^(\d{4})-(\d{2})$/.exec(value);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  if (month < 1 || month > 12) return null;
  return { year, month };
}

/** Months since year 0, so month differences are subtractions. */
export const monthIndex = (year: number, month: number): number => year * 12 + (month - 1);

export const daysInMonth = (year: number, month: number): number =>
  new Date(Date.UTC(year, month, 0)).getUTCDate();

export function addDays(day: Ymd, n: number): Ymd {
  const d = new Date(Date.UTC(day.year, day.month - 1, day.day + n));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

export const compareYmd = (a: Ymd, b: Ymd): number => a.year - b.year || a.month - b.month || a.day - b.day;

export const isoDay = (d: Ymd): string => `${d.year}-${pad(d.month)}-${pad(d.day)}`;
export const compactDay = (d: Ymd): string => `${d.year}${pad(d.month)}${pad(d.day)}`;
export const compactMonth = (year: number, month: number): string => `${year}${pad(month)}`;
export const isoMonth = (year: number, month: number): string => `${year}-${pad(month)}`;

/** `yyyyMMddHHmmss` of `date` at the given offset. */
export function compactDateTime(date: Date, offsetMinutes: number): string {
  const w = wallClock(date, offsetMinutes);
  return `${w.year}${pad(w.month)}${pad(w.day)}${pad(w.hour)}${pad(w.minute)}${pad(w.second)}`;
}

/**
 * A local date-time written by the operator (`yyyy-MM-dd HH:mm:ss`, `yyyyMMddHHmmss`, `yyyy-MM-dd`,
 * `yyyyMMdd`, with `/` or `T` accepted as separators) at `offsetMinutes` -> Date; null when empty or not one
 * of these forms.
 */
export function parseLocalDateTime(value: string | null | undefined, offsetMinutes: number): Date | null {
  if (!value) return null;
  const v = value.trim();
  const m =
    /^(\d{4})[-/]?(\d{2})[-/]?(\d{2})(?:[ T]?(\d{2}):?(\d{2}):?(\d{2})(?:\.\d+)?)?$/.exec(v) ?? undefined;
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) =>
    x === undefined ? 0 : Number(x),
  ) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59) {
    return null;
  }
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000);
}
