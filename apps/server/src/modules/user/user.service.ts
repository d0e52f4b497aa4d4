import { eq } from 'drizzle-orm';
import type {
  PasswordChangeBody,
  PhoneChangeBody,
  ProfileUpdateBody,
  UserInfo,
} from '@cellhub/contract/auth';
import { menuNamesForRole } from '@cellhub/contract/routes';
import { AppError } from '../../lib/app-error';
import { actingOnSelf, openToSignedIn } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { hashPassword, verifyPassword } from '../../lib/password';
import { normalizePhone } from '../../lib/phone';
import { writeAudit } from '../audit/audit.service';
import { useSmsCode, verifySmsCode } from '../auth/sms-code.service';
import { assertUnder, consume, limiterStep, LIMITS } from '../rate-limit/rate-limit.service';
import { findUserById, findUserByPhone, isUniqueViolation, revokeAllSessions } from '../users/users.service';
import { users, type UserRow } from '../users/users.table';

/** The caller's own row; a session whose account vanished is simply signed out. */
async function self(deps: Deps, actor: Actor): Promise<UserRow> {
  const user = await findUserById(deps.db, actingOnSelf(actor));
  if (!user) throw new AppError(10102);
  return user;
}

function toUserInfo(u: UserRow): UserInfo {
  return {
    uid: u.id,
    username: u.username,
    name: u.nickname || u.username,
    nickname: u.nickname,
    picture: '',
    job: '',
    jobName: '',
    organization: '',
    organizationName: '',
    location: [u.country, u.area].filter(Boolean).join(' '),
    locationName: [u.country, u.area].filter(Boolean).join(' '),
    email: u.email,
    introduction: u.profile,
    personalWebsite: '',
    phone: u.phone ?? '',
    registrationDate: u.createdat.toISOString(),
    accountId: String(u.id),
    certification: u.certification,
    role: u.role,
    gender: u.gender,
    birthday: u.birthday,
    country: u.country,
    area: u.area,
    address: u.address,
    profile: u.profile,
    wechat_bound: u.wechatOpenid !== null,
  };
}

export async function getUserInfo(deps: Deps, actor: Actor): Promise<UserInfo> {
  return toUserInfo(await self(deps, actor));
}

export function getMenu(actor: Actor): string[] {
  openToSignedIn(actor);
  return menuNamesForRole(actor.role);
}

export async function changePassword(deps: Deps, actor: Actor, body: PasswordChangeBody): Promise<void> {
  if (body.new_password !== body.confirm_password) {
    throw new AppError(11013, 400, 'Inconsistent entry of two new passwords');
  }
  const user = await self(deps, actor);
  const now = deps.now();
  // A stolen token must not become a way to guess the password: wrong old passwords count as failed sign-ins.
  const accountLimit = LIMITS.loginAccount(user.username);
  const pairLimit = LIMITS.loginAccountAddress(user.username, actor.ip);
  await limiterStep(deps, 'password change check', () => assertUnder(deps.db, [pairLimit], now));
  if (!(await verifyPassword(user.passwordHash, body.old_password))) {
    await limiterStep(deps, 'password change failure', () =>
      consume(deps.db, [accountLimit, pairLimit], now),
    );
    throw new AppError(31004);
  }
  const passwordHash = await hashPassword(body.new_password);
  await deps.db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash }).where(eq(users.id, user.id));
    // Every session, this one included: the console signs in again with the new password.
    await revokeAllSessions(tx, user.id, now);
    await writeAudit(tx, {
      uid: user.id,
      action: 'password_change',
      target: `user:${user.id}`,
      ip: actor.ip,
    });
  });
  // Open /api/ws sockets of this user close now, on every instance.
  deps.events.sessionsEnded({ uid: user.id });
}

/**
 * PUT /api/user/phone. The code first: a number another account holds is refused (20129) only after its code is
 * right, so only whoever holds the phone learns that it has an account; the code request answered alike for any
 * number (sendSmsCode).
 */
export async function changePhone(deps: Deps, actor: Actor, body: PhoneChangeBody): Promise<void> {
  const user = await self(deps, actor);
  const phone = normalizePhone(body.phone);
  if (user.phone === phone) throw new AppError(20125);
  const codeId = await verifySmsCode(deps, { phone, purpose: 'change_phone', captcha: body.captcha });
  if (await findUserByPhone(deps.db, phone)) throw new AppError(20129);
  const now = deps.now();
  try {
    await deps.db.transaction(async (tx) => {
      await useSmsCode(tx, codeId, now);
      await tx.update(users).set({ phone }).where(eq(users.id, user.id));
      await writeAudit(tx, {
        uid: user.id,
        action: 'phone_change',
        target: `user:${user.id}`,
        ip: actor.ip,
        detail: { from: user.phone, to: phone },
      });
    });
  } catch (err) {
    // Lost a race with another account taking the number: the same answer as above.
    if (isUniqueViolation(err)) throw new AppError(20129);
    throw err;
  }
}

export async function updateProfile(deps: Deps, actor: Actor, body: ProfileUpdateBody): Promise<UserInfo> {
  await self(deps, actor);
  const changes: Partial<typeof users.$inferInsert> = {};
  for (const key of [
    'nickname',
    'email',
    'gender',
    'birthday',
    'country',
    'area',
    'address',
    'profile',
  ] as const) {
    if (body[key] !== undefined) Object.assign(changes, { [key]: body[key] });
  }
  if (Object.keys(changes).length === 0) return getUserInfo(deps, actor);
  const [row] = await deps.db.transaction(async (tx) => {
    const updated = await tx.update(users).set(changes).where(eq(users.id, actor.uid)).returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'profile_change',
      target: `user:${actor.uid}`,
      ip: actor.ip,
      detail: { fields: Object.keys(changes) },
    });
    return updated;
  });
  if (!row) throw new AppError(10110);
  return toUserInfo(row);
}
