import { and, eq, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { AppError, RateLimitError } from '../../lib/app-error';
import type { Deps } from '../../lib/deps';
import { rateLimits } from './rate-limit.table';

/** `max` events per `windowSeconds` for one key (e.g. `login:ip:1.2.3.4`). Fixed windows. */
export interface Limit {
  key: string;
  max: number;
  windowSeconds: number;
}

function windowOf(limit: Limit, now: Date): { start: Date; end: Date } {
  const ms = limit.windowSeconds * 1000;
  const start = Math.floor(now.getTime() / ms) * ms;
  return { start: new Date(start), end: new Date(start + ms) };
}

const secondsUntil = (end: Date, now: Date) => (end.getTime() - now.getTime()) / 1000;

/** Throws 429 when the window is already full, without counting this call (checks before costly work). */
export async function assertUnder(db: DbOrTx, limits: Limit[], now: Date): Promise<void> {
  for (const limit of limits) {
    const { start, end } = windowOf(limit, now);
    const [row] = await db
      .select({ count: rateLimits.count })
      .from(rateLimits)
      .where(and(eq(rateLimits.key, limit.key), eq(rateLimits.windowStart, start)));
    if (row && row.count >= limit.max) throw new RateLimitError(secondsUntil(end, now));
  }
}

/**
 * Counts one event against each limit in order and throws 429 at the first that overflows; later limits are not
 * counted then, so a burst refused by a short window does not eat a long window's allowance.
 * The upsert is atomic, so instances sharing the database share the counters.
 */
export async function consume(db: DbOrTx, limits: Limit[], now: Date): Promise<void> {
  for (const limit of limits) {
    const { start, end } = windowOf(limit, now);
    const [row] = await db
      .insert(rateLimits)
      .values({ key: limit.key, windowStart: start, count: 1, expiresAt: end })
      .onConflictDoUpdate({
        target: [rateLimits.key, rateLimits.windowStart],
        set: { count: sql`${rateLimits.count} + 1` },
      })
      .returning({ count: rateLimits.count });
    if (row && row.count > limit.max) throw new RateLimitError(secondsUntil(end, now));
  }
}

/** The current window's count of a limit's key (0 when nothing was counted). */
export async function countOf(db: DbOrTx, limit: Limit, now: Date): Promise<number> {
  const [row] = await db
    .select({ count: rateLimits.count })
    .from(rateLimits)
    .where(and(eq(rateLimits.key, limit.key), eq(rateLimits.windowStart, windowOf(limit, now).start)));
  return row?.count ?? 0;
}

/**
 * Runs a limiter read or write that guards a secret (sign-in, SMS codes). If the limiter cannot read or record,
 * the request is refused (503 / 10105) and the failure logged: swallowing it would leave password guessing
 * unlimited for as long as the counter table is broken. Its own 429 passes through.
 */
export async function limiterStep<T>(
  deps: Pick<Deps, 'log'>,
  what: string,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof AppError) throw err;
    deps.log.error({ err }, `rate limiter failed (${what}): request refused`);
    throw new AppError(10105);
  }
}

/**
 * Sign-in slows down (never locks) an account that many addresses guess at: each attempt on it, the owner's
 * included, waits this long. Failures from one address are limited per account and address instead, so an
 * attacker can neither lock the owner out nor guess quickly from many addresses.
 */
export const LOGIN_SLOW_AFTER = 5;
export function loginDelayMs(accountFailures: number): number {
  if (accountFailures < LOGIN_SLOW_AFTER) return 0;
  return Math.min(250 * 2 ** (accountFailures - LOGIN_SLOW_AFTER), 4000);
}

/** Forgets a key's counts (e.g. an account's failures after it signs in). */
export async function reset(db: DbOrTx, key: string): Promise<void> {
  await db.delete(rateLimits).where(eq(rateLimits.key, key));
}

export async function purgeExpired(db: DbOrTx, now: Date): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.expiresAt, now));
}

/** The limits of CONTRACT.md / docs/api-conventions.md. */
export const LIMITS = {
  /** Failures on one account from one address: 429 after 5. */
  loginAccountAddress: (username: string, ip: string): Limit => ({
    key: `login:user-ip:${username.toLowerCase()}:${ip}`,
    max: 5,
    windowSeconds: 15 * 60,
  }),
  /** Failures on one account from anywhere: never refused, only counted for `loginDelayMs`. */
  loginAccount: (username: string): Limit => ({
    key: `login:user:${username.toLowerCase()}`,
    max: Number.MAX_SAFE_INTEGER,
    windowSeconds: 15 * 60,
  }),
  loginIp: (ip: string): Limit => ({ key: `login:ip:${ip}`, max: 30, windowSeconds: 15 * 60 }),
  smsPhoneMinute: (phone: string): Limit => ({ key: `sms:phone:m:${phone}`, max: 1, windowSeconds: 60 }),
  smsPhoneDay: (phone: string): Limit => ({ key: `sms:phone:d:${phone}`, max: 10, windowSeconds: 86_400 }),
  smsIp: (ip: string): Limit => ({ key: `sms:ip:${ip}`, max: 20, windowSeconds: 3600 }),
  registerIp: (ip: string): Limit => ({ key: `register:ip:${ip}`, max: 20, windowSeconds: 3600 }),
  wechatTicketIp: (ip: string): Limit => ({ key: `wechat:ip:${ip}`, max: 60, windowSeconds: 3600 }),
};
