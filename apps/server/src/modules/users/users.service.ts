import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { and, count, desc, eq, ilike, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import type { UserCreateBody, UserListItem, UserUpdateBody } from '@cellhub/contract/auth';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { hashPassword, randomPassword } from '../../lib/password';
import { normalizePhone } from '../../lib/phone';
import { writeAudit } from '../audit/audit.service';
import { sessions } from '../auth/auth.table';
import { SETTING_KEYS } from '../system-settings/system-settings.service';
import { systemSettings } from '../system-settings/system-settings.table';
import { users, type UserRow } from './users.table';

export async function findUserByUsername(db: DbOrTx, username: string): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(sql`lower(${users.username}) = ${username.toLowerCase()}`);
  return row;
}

export async function findUserById(db: DbOrTx, id: number): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

export async function findUserByPhone(db: DbOrTx, phone: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.phone, phone));
  return row;
}

/** Signs the user out everywhere: every live token of theirs stops working at once. */
export async function revokeAllSessions(db: DbOrTx, uid: number, now: Date): Promise<void> {
  await db
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(eq(sessions.uid, uid), isNull(sessions.revokedAt)));
}

/** Postgres unique violation, from either driver. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

const toListItem = (u: UserRow): UserListItem => ({
  uid: u.id,
  username: u.username,
  nickname: u.nickname,
  phone: u.phone ?? '',
  email: u.email,
  role: u.role,
  disabled: u.disabled,
  createdat: u.createdat.toISOString(),
  last_login_at: u.lastLoginAt ? u.lastLoginAt.toISOString() : null,
});

export interface UserListFilter {
  current: number;
  per_page: number;
  keyword?: string;
  disabled?: '0' | '1';
}

export async function listUsers(
  deps: Deps,
  actor: Actor,
  filter: UserListFilter,
): Promise<{ items: UserListItem[]; total: number }> {
  requireAdmin(actor);
  const conditions: SQL[] = [];
  if (filter.keyword) {
    const like = `%${filter.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const match = or(ilike(users.username, like), ilike(users.nickname, like), ilike(users.phone, like));
    if (match) conditions.push(match);
  }
  if (filter.disabled) conditions.push(eq(users.disabled, filter.disabled === '1'));
  const where = conditions.length ? and(...conditions) : undefined;
  const [rows, [totalRow]] = await Promise.all([
    deps.db
      .select()
      .from(users)
      .where(where)
      .orderBy(desc(users.id))
      .limit(filter.per_page)
      .offset((filter.current - 1) * filter.per_page),
    deps.db.select({ n: count() }).from(users).where(where),
  ]);
  return { items: rows.map(toListItem), total: totalRow?.n ?? 0 };
}

async function targetUser(deps: Deps, id: number): Promise<UserRow> {
  const user = await findUserById(deps.db, id);
  if (!user) throw new AppError(10107);
  return user;
}

export async function setUserDisabled(
  deps: Deps,
  actor: Actor,
  id: number,
  disabled: boolean,
): Promise<void> {
  requireAdmin(actor);
  // Locking yourself out would leave a fleet without its administrator.
  if (disabled && id === actor.uid) throw new AppError(10108, 400, 'You cannot disable your own account');
  const user = await targetUser(deps, id);
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    await tx.update(users).set({ disabled }).where(eq(users.id, id));
    if (disabled) await revokeAllSessions(tx, id, now);
    await writeAudit(tx, {
      uid: actor.uid,
      action: disabled ? 'user_disable' : 'user_enable',
      target: `user:${user.id}`,
      ip: actor.ip,
      detail: { username: user.username },
    });
  });
  // Open /api/ws sockets of a disabled account close now, on every instance.
  if (disabled) deps.events.sessionsEnded({ uid: id });
}

/** An admin opens an account; the name and number must be free, as for registration. */
export async function createUser(deps: Deps, actor: Actor, body: UserCreateBody): Promise<{ uid: number }> {
  requireAdmin(actor);
  const phone = body.phone ? normalizePhone(body.phone) : null;
  if (await findUserByUsername(deps.db, body.username)) throw new AppError(31003);
  if (phone && (await findUserByPhone(deps.db, phone))) throw new AppError(20129);
  const passwordHash = await hashPassword(body.password);
  try {
    return await deps.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(users)
        .values({
          username: body.username,
          passwordHash,
          phone,
          role: body.role,
          nickname: body.nickname ?? '',
          email: body.email ?? '',
        })
        .returning({ id: users.id });
      if (!row) throw new AppError(10109);
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'user_create',
        target: `user:${row.id}`,
        ip: actor.ip,
        detail: { username: body.username, role: body.role },
      });
      return { uid: row.id };
    });
  } catch (err) {
    // Lost a race with a registration of the same name or number.
    if (isUniqueViolation(err)) {
      throw new AppError((await findUserByUsername(deps.db, body.username)) ? 31003 : 20129);
    }
    throw err;
  }
}

/**
 * An admin changes an account's role and contact fields. Taking the admin role from the last enabled admin
 * (often oneself) would leave nobody able to manage accounts: refused with 31007, decided inside the transaction
 * with the admin rows locked so two demotions at once cannot both pass.
 */
export async function updateUser(
  deps: Deps,
  actor: Actor,
  id: number,
  body: UserUpdateBody,
): Promise<UserListItem> {
  requireAdmin(actor);
  const user = await targetUser(deps, id);
  const phone = body.phone === undefined ? undefined : body.phone === '' ? null : normalizePhone(body.phone);
  if (phone && phone !== user.phone) {
    const holder = await findUserByPhone(deps.db, phone);
    if (holder && holder.id !== id) throw new AppError(20129);
  }
  const set: Partial<Pick<UserRow, 'nickname' | 'phone' | 'email' | 'role'>> = {};
  if (body.nickname !== undefined) set.nickname = body.nickname;
  if (phone !== undefined) set.phone = phone;
  if (body.email !== undefined) set.email = body.email;
  if (body.role !== undefined) set.role = body.role;
  const changed = (Object.keys(set) as (keyof typeof set)[]).filter((k) => set[k] !== user[k]);
  const roleChanged = changed.includes('role');
  try {
    const row = await deps.db.transaction(async (tx) => {
      if (roleChanged && user.role === 'admin') {
        const others = await tx
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.role, 'admin'), eq(users.disabled, false), ne(users.id, id)))
          .for('update');
        if (others.length === 0) throw new AppError(31007);
      }
      const [updated] = changed.length
        ? await tx.update(users).set(set).where(eq(users.id, id)).returning()
        : [user];
      if (changed.length)
        await writeAudit(tx, {
          uid: actor.uid,
          action: 'user_update',
          target: `user:${user.id}`,
          ip: actor.ip,
          detail: {
            username: user.username,
            changed: Object.fromEntries(changed.map((k) => [k, { from: user[k], to: set[k] }])),
          },
        });
      return updated ?? user;
    });
    // A cached session keeps the role it was read with: drop them so the next call reads the new role.
    if (roleChanged) deps.events.sessionsEnded({ uid: id });
    return toListItem(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError(20129);
    throw err;
  }
}

export async function resetUserPassword(
  deps: Deps,
  actor: Actor,
  id: number,
  newPassword: string,
): Promise<void> {
  requireAdmin(actor);
  const user = await targetUser(deps, id);
  const passwordHash = await hashPassword(newPassword);
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash }).where(eq(users.id, id));
    await revokeAllSessions(tx, id, now);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'user_password_reset',
      target: `user:${user.id}`,
      ip: actor.ip,
      detail: { username: user.username },
    });
  });
  deps.events.sessionsEnded({ uid: id });
}

/**
 * First start: creates `admin` once. A marker row (not "no admin exists") decides, so renaming or deleting the
 * account later never brings it back, and two instances starting together create it once.
 * Returns the generated password when one was generated (the caller has already printed nothing).
 */
export async function ensureInitialAdmin(
  deps: Deps,
): Promise<{ created: boolean; generatedPassword?: string }> {
  const given = deps.config.adminPassword;
  const password = given ?? randomPassword();
  const passwordHash = await hashPassword(password);
  const created = await deps.db.transaction(async (tx) => {
    const [marker] = await tx
      .insert(systemSettings)
      .values({ key: SETTING_KEYS.initialAdmin, value: randomUUID() })
      .onConflictDoNothing()
      .returning();
    if (!marker) return false;
    const existing = await findUserByUsername(tx, 'admin');
    if (existing) return false;
    const [row] = await tx
      .insert(users)
      .values({ username: 'admin', passwordHash, role: 'admin', nickname: 'admin', certification: 'pass' })
      .returning({ id: users.id });
    await writeAudit(tx, { uid: row?.id ?? null, action: 'admin_created', target: 'user:admin' });
    return true;
  });
  if (!created) return { created: false };
  if (given) return { created: true };
  const file = path.join(deps.config.dataDir, 'initial-admin-password.txt');
  mkdirSync(deps.config.dataDir, { recursive: true });
  writeFileSync(file, password + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return { created: true, generatedPassword: password };
}
