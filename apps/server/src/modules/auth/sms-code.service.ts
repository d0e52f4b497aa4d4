import { randomInt, timingSafeEqual } from 'node:crypto';
import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import type { Actor, Deps, RequestContext } from '../../lib/deps';
import { normalizePhone } from '../../lib/phone';
import { consume, limiterStep, LIMITS } from '../rate-limit/rate-limit.service';
import { findUserById } from '../users/users.service';
import { smsCodes } from './auth.table';

export type SmsPurpose = 'login' | 'register' | 'change_phone';

const CODE_TTL_MS = 5 * 60 * 1000;
const MAX_ATTEMPTS = 5;

/**
 * POST /api/user/smscode. Public for sign-in and registration codes; a phone-change code needs a signed-in caller.
 * Whether the number has an account changes neither the answer nor the work behind it (so not its timing either):
 * every request within the limits stores a code and sends it, and no account is looked up. A sign-in code for a
 * number without an account signs nobody in (20121, like a wrong code); a registration code for a taken number
 * and a phone-change code for a number another account holds are refused only where the code is used
 * (registration 20129, phone change 10110), so only whoever holds the phone can learn anything. Limits are
 * counted first, so they also cap probing. The caller's own number (20125) tells the caller nothing new.
 */
export async function sendSmsCode(
  deps: Deps,
  caller: Actor | RequestContext,
  input: { phone: string; purpose: SmsPurpose },
): Promise<void> {
  const phone = normalizePhone(input.phone);
  const actor = 'uid' in caller ? caller : undefined;
  if (input.purpose === 'change_phone' && !actor) throw new AppError(10102);
  const now = deps.now();
  await limiterStep(deps, 'SMS code', () =>
    consume(deps.db, [LIMITS.smsPhoneMinute(phone), LIMITS.smsIp(caller.ip), LIMITS.smsPhoneDay(phone)], now),
  );
  if (
    actor &&
    input.purpose === 'change_phone' &&
    (await findUserById(deps.db, actor.uid))?.phone === phone
  ) {
    throw new AppError(20125);
  }
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await deps.db.insert(smsCodes).values({
    phone,
    purpose: input.purpose,
    codeHash: deps.box.hmac(`${phone}:${input.purpose}:${code}`),
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
  });
  try {
    await deps.sms.send(phone, 'verification_code', { code, minutes: '5' });
  } catch (err) {
    deps.log.error({ err }, 'SMS provider failed');
    throw new AppError(31002);
  }
}

/**
 * Checks a code against the newest live one for this phone and purpose and returns its id; a wrong guess is counted
 * at once (outside any transaction, so a failing caller cannot roll the count back). Then mark it used with
 * `useSmsCode` inside the transaction of the change it authorises: if the change fails, the code stays usable.
 */
export async function verifySmsCode(
  deps: Pick<Deps, 'db' | 'box' | 'now'>,
  input: { phone: string; purpose: SmsPurpose; captcha: string },
): Promise<number> {
  const phone = normalizePhone(input.phone);
  const now = deps.now();
  const [row] = await deps.db
    .select()
    .from(smsCodes)
    .where(
      and(
        eq(smsCodes.phone, phone),
        eq(smsCodes.purpose, input.purpose),
        isNull(smsCodes.consumedAt),
        gt(smsCodes.expiresAt, now),
      ),
    )
    .orderBy(desc(smsCodes.id))
    .limit(1);
  if (!row || row.attempts >= MAX_ATTEMPTS) throw new AppError(20121);
  const expected = Buffer.from(row.codeHash, 'hex');
  const actual = Buffer.from(deps.box.hmac(`${phone}:${input.purpose}:${input.captcha.trim()}`), 'hex');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    await deps.db
      .update(smsCodes)
      .set({ attempts: sql`${smsCodes.attempts} + 1` })
      .where(eq(smsCodes.id, row.id));
    throw new AppError(20121);
  }
  return row.id;
}

/** Single use: conditional, so two concurrent uses of one code cannot both succeed. */
export async function useSmsCode(db: DbOrTx, id: number, now: Date): Promise<void> {
  const used = await db
    .update(smsCodes)
    .set({ consumedAt: now })
    .where(and(eq(smsCodes.id, id), isNull(smsCodes.consumedAt)))
    .returning({ id: smsCodes.id });
  if (used.length === 0) throw new AppError(20121);
}
