import { and, eq, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { RateLimitError } from '../../lib/app-error';
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

/** Forgets a key's counts (e.g. an account's failures after it signs in). */
export async function reset(db: DbOrTx, key: string): Promise<void> {
  await db.delete(rateLimits).where(eq(rateLimits.key, key));
}

export async function purgeExpired(db: DbOrTx, now: Date): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.expiresAt, now));
}

/** The limits of CONTRACT.md / docs/api-conventions.md. */
export const LIMITS = {
  loginAccount: (username: string): Limit => ({
    key: `login:user:${username.toLowerCase()}`,
    max: 5,
    windowSeconds: 15 * 60,
  }),
  loginIp: (ip: string): Limit => ({ key: `login:ip:${ip}`, max: 30, windowSeconds: 15 * 60 }),
  smsPhoneMinute: (phone: string): Limit => ({ key: `sms:phone:m:${phone}`, max: 1, windowSeconds: 60 }),
  smsPhoneDay: (phone: string): Limit => ({ key: `sms:phone:d:${phone}`, max: 10, windowSeconds: 86_400 }),
  smsIp: (ip: string): Limit => ({ key: `sms:ip:${ip}`, max: 20, windowSeconds: 3600 }),
  registerIp: (ip: string): Limit => ({ key: `register:ip:${ip}`, max: 20, windowSeconds: 3600 }),
  wechatTicketIp: (ip: string): Limit => ({ key: `wechat:ip:${ip}`, max: 60, windowSeconds: 3600 }),
};
