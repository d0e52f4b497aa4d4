import { and, eq, isNull } from 'drizzle-orm';
import type { LoginBody, LoginPhoneBody, LoginResult, RegisterBody } from '@cellhub/contract/auth';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { newToken, sha256Hex } from '../../lib/crypto';
import { actingOnSelf } from '../../lib/authz';
import type { Actor, Deps, RequestContext } from '../../lib/deps';
import { hashPassword, verifyPassword } from '../../lib/password';
import { normalizePhone } from '../../lib/phone';
import { writeAudit } from '../audit/audit.service';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  assertUnder,
  consume,
  countOf,
  limiterStep,
  LIMITS,
  loginDelayMs,
  reset,
} from '../rate-limit/rate-limit.service';
import { users, type UserRow } from '../users/users.table';
import type { SessionCache } from './session-cache';
import { findUserByPhone, findUserByUsername, isUniqueViolation } from '../users/users.service';
import { sessions } from './auth.table';
import { useSmsCode, verifySmsCode } from './sms-code.service';

/**
 * Opens a session for a user who proved who they are, in the caller's transaction with its audit row.
 * Returns the login result of CONTRACT.md; the token itself is never stored.
 */
export async function openSession(
  tx: DbOrTx,
  deps: Deps,
  user: UserRow,
  ctx: RequestContext,
  method: 'password' | 'phone' | 'wechat',
): Promise<LoginResult> {
  const token = newToken();
  const now = deps.now();
  await tx.insert(sessions).values({
    uid: user.id,
    tokenHash: sha256Hex(token),
    expiresAt: new Date(now.getTime() + deps.config.tokenTtlHours * 3_600_000),
    ip: ctx.ip,
    userAgent: ctx.userAgent.slice(0, 512),
  });
  await tx.update(users).set({ lastLoginAt: now }).where(eq(users.id, user.id));
  await writeAudit(tx, {
    uid: user.id,
    action: 'sign_in',
    target: `user:${user.id}`,
    ip: ctx.ip,
    detail: { method },
  });
  return { token, uid: user.id, issuper: user.role === 'admin' };
}

export async function login(deps: Deps, ctx: RequestContext, body: LoginBody): Promise<LoginResult> {
  const now = deps.now();
  const accountLimit = LIMITS.loginAccount(body.username);
  const pairLimit = LIMITS.loginAccountAddress(body.username, ctx.ip);
  const ipLimit = LIMITS.loginIp(ctx.ip);
  const failures = await limiterStep(deps, 'sign-in check', async () => {
    await assertUnder(deps.db, [pairLimit, ipLimit], now);
    return countOf(deps.db, accountLimit, now);
  });
  const delay = loginDelayMs(failures);
  if (delay > 0) await sleep(delay);
  const user = await findUserByUsername(deps.db, body.username);
  const ok = await verifyPassword(user?.passwordHash, body.password);
  if (!user || !ok) {
    // The account's count first: a 429 of the pair or address must not leave it uncounted.
    await limiterStep(deps, 'sign-in failure', () =>
      consume(deps.db, [accountLimit, pairLimit, ipLimit], now),
    );
    await writeAudit(deps.db, {
      uid: user?.id ?? null,
      action: 'sign_in_failed',
      target: `username:${body.username.slice(0, 64)}`,
      ip: ctx.ip,
      detail: { method: 'password' },
    });
    throw new AppError(31001);
  }
  // Only a caller who knows the password learns that the account is disabled.
  if (user.disabled) throw new AppError(10103);
  const result = await deps.db.transaction((tx) => openSession(tx, deps, user, ctx, 'password'));
  // The session is open; a counter left behind only delays this address's next mistakes.
  await reset(deps.db, pairLimit.key).catch((err: unknown) =>
    deps.log.warn({ err }, 'rate limiter: could not reset the sign-in failures of an address'),
  );
  return result;
}

/**
 * The answer never tells whether the phone has an account: for a phone without one every code is wrong (20121),
 * the right one included (sendSmsCode sends sign-in codes to any number), as it is for a wrong guess.
 */
export async function loginByPhone(
  deps: Deps,
  ctx: RequestContext,
  body: LoginPhoneBody,
): Promise<LoginResult> {
  const phone = normalizePhone(body.phone);
  const now = deps.now();
  const ipLimit = LIMITS.loginIp(ctx.ip);
  await limiterStep(deps, 'phone sign-in check', () => assertUnder(deps.db, [ipLimit], now));
  const user = await findUserByPhone(deps.db, phone);
  let codeId: number;
  try {
    codeId = await verifySmsCode(deps, { phone, purpose: 'login', captcha: body.captcha });
    if (!user) throw new AppError(20121);
  } catch (err) {
    await limiterStep(deps, 'phone sign-in failure', () => consume(deps.db, [ipLimit], now));
    await writeAudit(deps.db, {
      uid: user?.id ?? null,
      action: 'sign_in_failed',
      target: user ? `user:${user.id}` : `phone:${phone}`,
      ip: ctx.ip,
      detail: { method: 'phone' },
    });
    throw err;
  }
  if (user.disabled) throw new AppError(10103);
  return deps.db.transaction(async (tx) => {
    await useSmsCode(tx, codeId, now);
    return openSession(tx, deps, user, ctx, 'phone');
  });
}

export async function register(
  deps: Deps,
  ctx: RequestContext,
  body: RegisterBody,
): Promise<{ uid: number }> {
  if (body.password !== body.password2) throw new AppError(11013);
  const now = deps.now();
  await limiterStep(deps, 'registration', () => consume(deps.db, [LIMITS.registerIp(ctx.ip)], now));
  if (await findUserByUsername(deps.db, body.username)) throw new AppError(31003);
  let phone: string | null = null;
  let codeId: number | undefined;
  if (body.phone) {
    phone = normalizePhone(body.phone);
    if (!body.captcha) throw new AppError(20119);
    // The code first: only whoever holds the phone learns that it already has an account.
    codeId = await verifySmsCode(deps, { phone, purpose: 'register', captcha: body.captcha });
    if (await findUserByPhone(deps.db, phone)) throw new AppError(20129);
  }
  const passwordHash = await hashPassword(body.password);
  try {
    return await deps.db.transaction(async (tx) => {
      if (codeId !== undefined) await useSmsCode(tx, codeId, now);
      const [row] = await tx
        .insert(users)
        .values({ username: body.username, passwordHash, phone, role: 'user' })
        .returning({ id: users.id });
      if (!row) throw new AppError(10109);
      await writeAudit(tx, { uid: row.id, action: 'register', target: `user:${row.id}`, ip: ctx.ip });
      return { uid: row.id };
    });
  } catch (err) {
    // Lost a race with a concurrent registration of the same name or number.
    if (isUniqueViolation(err)) {
      const byName = await findUserByUsername(deps.db, body.username);
      throw new AppError(byName ? 31003 : 20129);
    }
    throw err;
  }
}

export async function logout(deps: Deps, actor: Actor): Promise<void> {
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    await tx
      .update(sessions)
      .set({ revokedAt: now })
      .where(and(eq(sessions.id, actor.sessionId), isNull(sessions.revokedAt)));
    await writeAudit(tx, {
      uid: actingOnSelf(actor),
      action: 'sign_out',
      target: `user:${actor.uid}`,
      ip: actor.ip,
    });
  });
  // Open /api/ws sockets of this session close now, on every instance, not at the next periodic check.
  deps.events.sessionsEnded({ sessionId: actor.sessionId });
}

/**
 * Resolves a bearer token to the signed-in caller, or undefined when it is unknown, expired or revoked, or the
 * account is disabled. One indexed query per request, or none while `cache` holds the session (session-cache.ts).
 */
export async function authenticate(
  deps: Pick<Deps, 'db' | 'now'>,
  token: string,
  ctx: RequestContext,
  cache?: SessionCache,
): Promise<Actor | undefined> {
  const tokenHash = sha256Hex(token);
  const now = deps.now().getTime();
  const cached = cache?.get(tokenHash, now);
  if (cached) {
    return {
      ...ctx,
      uid: cached.uid,
      username: cached.username,
      role: cached.role,
      sessionId: cached.sessionId,
    };
  }
  const mark = cache?.mark() ?? 0;
  const [row] = await deps.db
    .select({
      sessionId: sessions.id,
      expiresAt: sessions.expiresAt,
      revokedAt: sessions.revokedAt,
      uid: users.id,
      username: users.username,
      role: users.role,
      disabled: users.disabled,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.uid))
    .where(eq(sessions.tokenHash, tokenHash));
  if (!row || row.revokedAt || row.disabled || row.expiresAt.getTime() <= now) return undefined;
  cache?.set(tokenHash, row, now, mark);
  return { ...ctx, uid: row.uid, username: row.username, role: row.role, sessionId: row.sessionId };
}
