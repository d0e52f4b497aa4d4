import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { and, count, desc, eq, gt, gte, ilike, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type {
  AccessKeyCreateBody,
  AccessKeyCreated,
  AccessKeyItem,
  AccessKeyRotated,
  AccessKeyUpdateBody,
  AccessKeyUsageDay,
  AccessKeyUse,
  AccessKeyVerifyChannel,
  AccessKeyVerifyCodeResult,
} from '@cellhub/contract/access-keys';
import type { AccessScope } from '@cellhub/contract/access';
import { AppError, formError } from '../../lib/app-error';
import { actingOnSelf, isAdmin, ownerFilter, visibleOwned } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword, type PageQuery } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { sendNow } from '../notify/notify.service';
import { consume } from '../rate-limit/rate-limit.service';
import { users } from '../users/users.table';
import {
  accessKeyCodes,
  accessKeyNonces,
  accessKeys,
  type AccessKeyRow,
  accessKeyUses,
} from './access-keys.table';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** "AK" + 20 base32 characters (100 random bits). */
export function newAccessKey(): string {
  const bytes = randomBytes(20);
  let out = 'AK';
  for (const b of bytes) out += BASE32[b & 31];
  return out;
}

/** 240 random bits, base64url (40 characters). */
export const newSecret = (): string => randomBytes(30).toString('base64url');

/** The secret box context of a key's secret: a sealed secret copied to another key's row does not open there. */
export const secretContext = (accessKey: string): string => `access-key:${accessKey}`;

/** How long a verification code lives. */
export const ACCESS_KEY_CODE_TTL_S = 300;
const MAX_CODE_ATTEMPTS = 5;
const CODE_LIMITS = (keyId: number, uid: number) => [
  { key: `ak-code:m:${keyId}`, max: 1, windowSeconds: 60 },
  { key: `ak-code:u:${uid}`, max: 20, windowSeconds: 3600 },
];

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

function toItem(row: AccessKeyRow, owner: { uid: number; username: string } | null): AccessKeyItem {
  return {
    access_key: row.accessKey,
    name: row.name,
    scopes: row.scopes,
    ip_allow: row.ipAllow,
    expires_at: iso(row.expiresAt),
    enabled: row.enabled,
    verified: row.verified,
    last_used_at: iso(row.lastUsedAt),
    last_used_ip: row.lastUsedIp,
    created_at: row.createdat.toISOString(),
    updated_at: row.updatedat.toISOString(),
    owner,
  };
}

/**
 * The scopes a key of this actor may carry: its owner's rights bound them, and every scope there is today is a
 * user-level right (devices, OTA, SIM, alerts of their own), so any signed-in person may grant any of them.
 */
function checkScopes(actor: Actor, scopes: readonly AccessScope[]): AccessScope[] {
  actingOnSelf(actor);
  return [...scopes];
}

function checkExpiry(deps: Deps, expiresAt: string | null | undefined): Date | null | undefined {
  if (expiresAt === undefined || expiresAt === null) return expiresAt;
  const at = new Date(expiresAt);
  if (at.getTime() <= deps.now().getTime()) throw formError('expires_at', 'must be in the future');
  return at;
}

/** The key `ak` when the actor may see it (its owner, or an admin); 10107 otherwise, as for a missing key. */
async function visibleKey(deps: Deps, actor: Actor, ak: string): Promise<AccessKeyRow> {
  const [row] = await deps.db.select().from(accessKeys).where(eq(accessKeys.accessKey, ak));
  return visibleOwned(actor, row, 10107);
}

/** The actor's own key: what only its holder may do (rotate, verify) is refused to an admin on another's key. */
async function ownKey(deps: Deps, actor: Actor, ak: string): Promise<AccessKeyRow> {
  const row = await visibleKey(deps, actor, ak);
  if (row.uid !== actingOnSelf(actor)) throw new AppError(10107);
  return row;
}

async function ownerOf(deps: Deps, actor: Actor, row: AccessKeyRow) {
  if (!isAdmin(actor)) return null;
  const [u] = await deps.db.select({ username: users.username }).from(users).where(eq(users.id, row.uid));
  return { uid: row.uid, username: u?.username ?? '' };
}

export async function listKeys(
  deps: Deps,
  actor: Actor,
  query: PageQuery & { keyword?: string },
): Promise<{ items: AccessKeyItem[]; total: number }> {
  const filters: (SQL | undefined)[] = [ownerFilter(actor, accessKeys.uid)];
  if (query.keyword) {
    const like = likeKeyword(query.keyword);
    filters.push(or(ilike(accessKeys.name, like), ilike(accessKeys.accessKey, like)));
  }
  const where = and(...filters);
  const admin = isAdmin(actor);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ key: accessKeys, username: users.username })
      .from(accessKeys)
      .innerJoin(users, eq(users.id, accessKeys.uid))
      .where(where)
      .orderBy(desc(accessKeys.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(accessKeys).where(where),
  ]);
  return {
    items: rows.map((r) => toItem(r.key, admin ? { uid: r.key.uid, username: r.username } : null)),
    total: total?.n ?? 0,
  };
}

export async function getKey(deps: Deps, actor: Actor, ak: string): Promise<AccessKeyItem> {
  const row = await visibleKey(deps, actor, ak);
  return toItem(row, await ownerOf(deps, actor, row));
}

/** POST /api/access-keys: a new unverified key for the actor; the secret is in this answer only. */
export async function createKey(
  deps: Deps,
  actor: Actor,
  body: AccessKeyCreateBody,
): Promise<AccessKeyCreated> {
  const uid = actingOnSelf(actor);
  const scopes = checkScopes(actor, body.scopes);
  const expiresAt = checkExpiry(deps, body.expires_at) ?? null;
  const accessKey = newAccessKey();
  const secret = newSecret();
  const row = await deps.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(accessKeys)
      .values({
        uid,
        accessKey,
        secret: deps.box.encrypt(secret, secretContext(accessKey)),
        name: body.name,
        scopes,
        ipAllow: body.ip_allow ?? [],
        expiresAt,
      })
      .returning();
    await writeAudit(tx, {
      uid,
      action: 'access_key_create',
      target: `access_key:${accessKey}`,
      ip: actor.ip,
      detail: { name: body.name, scopes },
    });
    return created!;
  });
  return { ...toItem(row, await ownerOf(deps, actor, row)), secret };
}

export async function updateKey(
  deps: Deps,
  actor: Actor,
  ak: string,
  body: AccessKeyUpdateBody,
): Promise<AccessKeyItem> {
  const row = await visibleKey(deps, actor, ak);
  const changes: Partial<typeof accessKeys.$inferInsert> = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.scopes !== undefined) changes.scopes = checkScopes(actor, body.scopes);
  if (body.ip_allow !== undefined) changes.ipAllow = body.ip_allow;
  if (body.expires_at !== undefined) changes.expiresAt = checkExpiry(deps, body.expires_at);
  if (body.enabled !== undefined) changes.enabled = body.enabled;
  if (Object.keys(changes).length === 0) return getKey(deps, actor, ak);
  const updated = await deps.db.transaction(async (tx) => {
    const [u] = await tx.update(accessKeys).set(changes).where(eq(accessKeys.id, row.id)).returning();
    if (!u) throw new AppError(10110);
    const target = `access_key:${ak}`;
    const fields = Object.keys(changes).filter((f) => f !== 'enabled');
    if (body.enabled !== undefined && body.enabled !== row.enabled) {
      await writeAudit(tx, {
        uid: actor.uid,
        action: body.enabled ? 'access_key_enable' : 'access_key_disable',
        target,
        ip: actor.ip,
      });
    }
    if (fields.length > 0) {
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'access_key_update',
        target,
        ip: actor.ip,
        detail: { fields },
      });
    }
    return u;
  });
  return toItem(updated, await ownerOf(deps, actor, updated));
}

/**
 * POST /:ak/rotate: a new secret, shown once; the old one stops signing at once. The key stays verified: the holder
 * proved the account when it was created, and the rotation is audited.
 */
export async function rotateKey(deps: Deps, actor: Actor, ak: string): Promise<AccessKeyRotated> {
  const row = await ownKey(deps, actor, ak);
  const secret = newSecret();
  await deps.db.transaction(async (tx) => {
    await tx
      .update(accessKeys)
      .set({ secret: deps.box.encrypt(secret, secretContext(ak)) })
      .where(eq(accessKeys.id, row.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'access_key_rotate',
      target: `access_key:${ak}`,
      ip: actor.ip,
    });
  });
  return { access_key: ak, secret };
}

export async function deleteKey(deps: Deps, actor: Actor, ak: string): Promise<void> {
  const row = await visibleKey(deps, actor, ak);
  await deps.db.transaction(async (tx) => {
    await tx.delete(accessKeys).where(eq(accessKeys.id, row.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'access_key_delete',
      target: `access_key:${ak}`,
      ip: actor.ip,
      detail: { owner: row.uid, name: row.name },
    });
  });
}

// --- verification ---------------------------------------------------------------------------------------------

const codeHash = (deps: Deps, keyId: number, channel: AccessKeyVerifyChannel, target: string, code: string) =>
  deps.box.hmac(`access-key:${keyId}:${channel}:${target}:${code}`);

const maskPhone = (p: string) => (p.length > 7 ? `${p.slice(0, 3)}****${p.slice(-4)}` : '****');
const maskEmail = (e: string) => {
  const at = e.indexOf('@');
  return at > 0 ? `${e[0]}***${e.slice(at)}` : '***';
};

async function addressOf(deps: Deps, uid: number, channel: AccessKeyVerifyChannel): Promise<string> {
  const [u] = await deps.db
    .select({ phone: users.phone, email: users.email })
    .from(users)
    .where(eq(users.id, uid));
  const target = channel === 'sms' ? (u?.phone ?? '') : (u?.email ?? '');
  // No phone / email on the account: the "code is empty" codes of the seed, so the console asks to add one first.
  if (!target) throw new AppError(channel === 'sms' ? 20119 : 20118);
  return target;
}

/**
 * POST /:ak/verify-code: a 6-digit code to the owner's own phone (the SMS provider of sign-in codes) or email (the
 * notification email channel), stored as a keyed hash bound to the key and the address. 1 a minute per key.
 */
export async function sendKeyCode(
  deps: Deps,
  actor: Actor,
  ak: string,
  channel: AccessKeyVerifyChannel,
): Promise<AccessKeyVerifyCodeResult> {
  const row = await ownKey(deps, actor, ak);
  const target = await addressOf(deps, row.uid, channel);
  const now = deps.now();
  await consume(deps.db, CODE_LIMITS(row.id, row.uid), now);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const [stored] = await deps.db
    .insert(accessKeyCodes)
    .values({
      accessKeyId: row.id,
      channel,
      target,
      codeHash: codeHash(deps, row.id, channel, target, code),
      expiresAt: new Date(now.getTime() + ACCESS_KEY_CODE_TTL_S * 1000),
    })
    .returning({ id: accessKeyCodes.id });
  const minutes = String(ACCESS_KEY_CODE_TTL_S / 60);
  if (channel === 'sms') {
    try {
      await deps.sms.send(target, 'verification_code', { code, minutes });
    } catch (err) {
      deps.log.error({ err }, 'SMS provider failed');
      throw new AppError(31002);
    }
  } else {
    await sendNow(deps, {
      idempotencyKey: `access-key-code:${stored!.id}`,
      channel: 'email',
      to: target,
      template: 'verify_code',
      subject: `Cellhub verification code ${code}`,
      body:
        `Your Cellhub verification code for access key "${row.name}" (${ak}) is ${code}. ` +
        `It expires in ${minutes} minutes. 您的 Cellhub 访问密钥验证码为 ${code}，${minutes} 分钟内有效。`,
      params: { code },
      userId: row.uid,
    });
  }
  return {
    channel,
    to: channel === 'sms' ? maskPhone(target) : maskEmail(target),
    expires_in: ACCESS_KEY_CODE_TTL_S,
  };
}

/** POST /:ak/verify: the newest live code of the key; a wrong guess counts at once (5 allowed): 20121 / 20120. */
export async function verifyKey(deps: Deps, actor: Actor, ak: string, code: string): Promise<AccessKeyItem> {
  const row = await ownKey(deps, actor, ak);
  const now = deps.now();
  const [live] = await deps.db
    .select()
    .from(accessKeyCodes)
    .where(
      and(
        eq(accessKeyCodes.accessKeyId, row.id),
        isNull(accessKeyCodes.consumedAt),
        gt(accessKeyCodes.expiresAt, now),
      ),
    )
    .orderBy(desc(accessKeyCodes.id))
    .limit(1);
  const wrong = live?.channel === 'email' ? 20120 : 20121;
  if (!live || live.attempts >= MAX_CODE_ATTEMPTS) throw new AppError(wrong);
  const expected = Buffer.from(live.codeHash, 'hex');
  const actual = Buffer.from(codeHash(deps, row.id, live.channel, live.target, code.trim()), 'hex');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    await deps.db
      .update(accessKeyCodes)
      .set({ attempts: sql`${accessKeyCodes.attempts} + 1` })
      .where(eq(accessKeyCodes.id, live.id));
    throw new AppError(wrong);
  }
  const updated = await deps.db.transaction(async (tx) => {
    const used = await tx
      .update(accessKeyCodes)
      .set({ consumedAt: now })
      .where(and(eq(accessKeyCodes.id, live.id), isNull(accessKeyCodes.consumedAt)))
      .returning({ id: accessKeyCodes.id });
    if (used.length === 0) throw new AppError(wrong);
    const [u] = await tx
      .update(accessKeys)
      .set({ verified: true })
      .where(eq(accessKeys.id, row.id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'access_key_verify',
      target: `access_key:${ak}`,
      ip: actor.ip,
      detail: { channel: live.channel },
    });
    return u!;
  });
  return toItem(updated, await ownerOf(deps, actor, updated));
}

// --- use record -----------------------------------------------------------------------------------------------

export async function listUses(
  deps: Deps,
  actor: Actor,
  ak: string,
  query: PageQuery,
): Promise<{ items: AccessKeyUse[]; total: number }> {
  const row = await visibleKey(deps, actor, ak);
  const where = eq(accessKeyUses.accessKeyId, row.id);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(accessKeyUses)
      .where(where)
      .orderBy(desc(accessKeyUses.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(accessKeyUses).where(where),
  ]);
  return {
    items: rows.map((u) => ({
      id: u.id,
      at: u.at.toISOString(),
      method: u.method,
      route: u.route,
      ip: u.ip,
      code: u.code,
      status: u.status,
    })),
    total: total?.n ?? 0,
  };
}

const DAY_MS = 86_400_000;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/** Per UTC day over the last `days` days (today included), zeros filled in, oldest first. */
export async function usage(
  deps: Deps,
  actor: Actor,
  ak: string,
  days: number,
): Promise<AccessKeyUsageDay[]> {
  const row = await visibleKey(deps, actor, ak);
  const today = Math.floor(deps.now().getTime() / DAY_MS) * DAY_MS;
  const since = new Date(today - (days - 1) * DAY_MS);
  const day = sql<string>`to_char(${accessKeyUses.at} at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows = await deps.db
    .select({
      day,
      ok: sql<number>`count(*) filter (where ${accessKeyUses.code} = 0)::int`,
      refused: sql<number>`count(*) filter (where ${accessKeyUses.code} <> 0)::int`,
    })
    .from(accessKeyUses)
    .where(and(eq(accessKeyUses.accessKeyId, row.id), gte(accessKeyUses.at, since)))
    .groupBy(day);
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const out: AccessKeyUsageDay[] = [];
  for (let i = 0; i < days; i++) {
    const d = dayOf(new Date(since.getTime() + i * DAY_MS));
    const r = byDay.get(d);
    out.push({ day: d, ok: Number(r?.ok ?? 0), refused: Number(r?.refused ?? 0) });
  }
  return out;
}

/** Use rows older than this are pruned (the usage chart shows 90 days at most). */
export const USE_RETENTION_DAYS = 90;

/** The periodic sweep: nonces past the window and uses past retention (access-keys.plugin.ts). */
export async function pruneAccessKeyRows(
  deps: Pick<Deps, 'db' | 'now'>,
  nonceMaxAgeMs: number,
): Promise<void> {
  const now = deps.now().getTime();
  await deps.db.delete(accessKeyNonces).where(lt(accessKeyNonces.seenAt, new Date(now - nonceMaxAgeMs)));
  await deps.db
    .delete(accessKeyUses)
    .where(lt(accessKeyUses.at, new Date(now - USE_RETENTION_DAYS * DAY_MS)));
  await deps.db.delete(accessKeyCodes).where(lt(accessKeyCodes.expiresAt, new Date(now - DAY_MS)));
}
