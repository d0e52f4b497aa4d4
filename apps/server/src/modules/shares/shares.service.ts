/**
 * Sharing (docs/sharing.md): direct shares and share links. Every right is the authorisation layer's
 * (`canShare`, `owns`, `ownerFilter`, `actingOnSelf`); the device rules of a share holder are in lib/authz.ts and
 * modules/devices/device-access.ts. A change commits with its audit row and inbox message, then announces itself
 * (`share.changed`, and on PostgreSQL a NOTIFY in the same transaction) so open WebSockets follow at once.
 */
import { randomBytes } from 'node:crypto';
import { and, count, desc, eq, gt, ilike, inArray, isNull, ne, or, type SQL, sql } from 'drizzle-orm';
import type {
  IncomingShareItem,
  OutgoingShareItem,
  ShareCreateResult,
  ShareLinkCreateBody,
  ShareLinkCreated,
  ShareLinkItem,
  ShareLinkPreview,
  ShareRight,
  ShareUpdateBody,
} from '@cellhub/contract/shares';
import type { shareCreateBody, shareListQuery } from '@cellhub/contract/shares';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError, formError } from '../../lib/app-error';
import { actingOnSelf, canShare, ownerFilter, owns } from '../../lib/authz';
import { sha256Hex } from '../../lib/crypto';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { normalizePhone } from '../../lib/phone';
import { writeAudit } from '../audit/audit.service';
import { liveShareRow } from '../devices/device-access';
import { devices } from '../devices/devices.table';
import { addInboxMessages } from '../inbox/inbox.service';
import { products } from '../products/products.table';
import { users } from '../users/users.table';
import { deviceShares, shareLinkDevices, shareLinks } from './shares.table';

/** The channel other instances listen on (deps.channels) for share changes (shares.plugin.ts). */
export const SHARE_NOTIFY_CHANNEL = 'cellhub_share_changes';

/** Only real PostgreSQL has other instances; PGlite lives in this process. */
const sharedDatabase = (deps: Pick<Deps, 'config'>): boolean =>
  deps.config.databaseUrl?.startsWith('postgres') === true;

/** Device ids in one NOTIFY; more than this and the payload says "everything" (`*`). */
const NOTIFY_MAX_IDS = 500;

/** Tells the other instances, when `tx` commits, that shares of these devices changed. */
async function notifyShareChange(deps: Pick<Deps, 'config'>, tx: DbOrTx, deviceIds: number[]): Promise<void> {
  if (!sharedDatabase(deps) || deviceIds.length === 0) return;
  const payload = deviceIds.length > NOTIFY_MAX_IDS ? '*' : deviceIds.join(',');
  await tx.execute(sql`select pg_notify(${SHARE_NOTIFY_CHANNEL}, ${payload})`);
}

/** After commit: this instance's listeners (the share audience cache) learn of the change. */
function announce(deps: Pick<Deps, 'events'>, deviceIds: number[]): void {
  if (deviceIds.length > 0) deps.events.emit({ type: 'share.changed', deviceIds: [...new Set(deviceIds)] });
}

type ListQuery = z.infer<typeof shareListQuery>;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** `138****0000` for a mainland number, the middle hidden for others; null when the account has none. */
export function maskPhone(phone: string | null): string | null {
  if (!phone) return null;
  if (phone.length <= 4) return '*'.repeat(phone.length);
  const keep = phone.length >= 11 ? 3 : 1;
  return phone.slice(0, keep) + '*'.repeat(phone.length - keep - 4) + phone.slice(-4);
}

/** The expiry of a request: null for none; 10113 for one that is already over. */
function expiryOf(deps: Deps, value: string | null | undefined): Date | null {
  if (value === undefined || value === null) return null;
  const at = new Date(value);
  if (at.getTime() <= deps.now().getTime()) throw formError('expires_at', 'must be in the future');
  return at;
}

interface ShareableDevice {
  id: number;
  sn: string;
  name: string;
  uid: number;
}

/**
 * The devices the actor may share, in one read: all of `sns`, each existing and the actor's to share (its owner, or
 * an admin acting for the owner). One that is not answers 10210 and nothing is shared (all or nothing).
 */
async function shareableDevices(db: DbOrTx, actor: Actor, sns: string[]): Promise<ShareableDevice[]> {
  const rows = await db
    .select({ id: devices.id, sn: devices.sn, name: devices.name, uid: devices.uid })
    .from(devices)
    .where(inArray(devices.sn, sns));
  const found = new Map(rows.map((r) => [r.sn, r]));
  const out: ShareableDevice[] = [];
  for (const sn of sns) {
    const d = found.get(sn);
    // Asked of the layer for a missing device too (as nobody's), so every answer is the layer's.
    if (!canShare(actor, d ?? { uid: null }) || !d || d.uid === null) {
      throw new AppError(10210, 400, undefined, [{ field: 'sns', message: `not shareable: ${sn}` }]);
    }
    out.push({ ...d, uid: d.uid });
  }
  return out;
}

/** The account named by username (any case) or phone; 10210 when there is none or it is disabled. */
async function targetAccount(db: DbOrTx, to: string): Promise<{ id: number; username: string }> {
  const phone = normalizePhone(to);
  const [row] = await db
    .select({ id: users.id, username: users.username, disabled: users.disabled })
    .from(users)
    .where(or(eq(sql`lower(${users.username})`, to.toLowerCase()), eq(users.phone, phone)))
    // A username that reads like someone else's phone number names its own account.
    .orderBy(sql`(lower(${users.username}) = ${to.toLowerCase()}) desc`)
    .limit(1);
  if (!row || row.disabled)
    throw new AppError(10210, 400, undefined, [{ field: 'to', message: 'no such account' }]);
  return row;
}

/**
 * Writes (or updates) the shares of `list` with `granteeUid`; returns how many rows were new and how many existed.
 * `xmax = 0` tells an inserted row from an updated one in the same statement.
 */
async function upsertShares(
  tx: DbOrTx,
  list: ShareableDevice[],
  granteeUid: number,
  right: ShareRight,
  expiresAt: Date | null,
): Promise<ShareCreateResult> {
  if (list.length === 0) return { created: 0, updated: 0 };
  const rows = await tx
    .insert(deviceShares)
    .values(list.map((d) => ({ deviceId: d.id, ownerUid: d.uid, granteeUid, right, expiresAt })))
    .onConflictDoUpdate({
      target: [deviceShares.deviceId, deviceShares.granteeUid],
      set: { right, expiresAt, ownerUid: sql`excluded.owner_uid`, updatedat: sql`now()` },
    })
    .returning({ inserted: sql<boolean>`(xmax = 0)` });
  const created = rows.filter((r) => r.inserted === true || String(r.inserted) === 'true').length;
  return { created, updated: rows.length - created };
}

/** The receiver's inbox message: "<owner> shared N devices with you" (one device: it is the target). */
async function tellReceiver(
  tx: DbOrTx,
  granteeUid: number,
  from: string,
  list: ShareableDevice[],
  right: ShareRight,
): Promise<void> {
  const one = list.length === 1 ? list[0]! : undefined;
  await addInboxMessages(tx, [
    {
      uid: granteeUid,
      kind: 'share_received',
      params: {
        from,
        count: list.length,
        right,
        sn: one?.sn ?? '',
        device_name: one?.name ?? '',
      },
      ...(one ? { target: { type: 'device' as const, key: one.sn } } : {}),
    },
  ]);
}

async function usernameOf(db: DbOrTx, uid: number): Promise<string> {
  const [row] = await db.select({ username: users.username }).from(users).where(eq(users.id, uid));
  return row?.username ?? '';
}

// --- direct shares -----------------------------------------------------------------------------------------------

export async function createShares(
  deps: Deps,
  actor: Actor,
  body: z.infer<typeof shareCreateBody>,
): Promise<ShareCreateResult> {
  const expiresAt = expiryOf(deps, body.expires_at);
  const result = await deps.db.transaction(async (tx) => {
    const list = await shareableDevices(tx, actor, body.sns);
    const target = await targetAccount(tx, body.to);
    // Yourself, or (an admin acting for owners) a device's own owner.
    if (target.id === actor.uid || list.some((d) => d.uid === target.id)) throw new AppError(10212);
    const counts = await upsertShares(tx, list, target.id, body.right, expiresAt);
    const owners = [...new Set(list.map((d) => d.uid))];
    const from = owners.length === 1 ? await usernameOf(tx, owners[0]!) : actor.username;
    await tellReceiver(tx, target.id, from, list, body.right);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'share_create',
      target: target.username,
      ip: actor.ip,
      detail: {
        to_uid: target.id,
        right: body.right,
        expires_at: iso(expiresAt),
        sns: list.slice(0, 50).map((d) => d.sn),
        devices: list.length,
        ...counts,
      },
    });
    await notifyShareChange(
      deps,
      tx,
      list.map((d) => d.id),
    );
    return { counts, ids: list.map((d) => d.id) };
  });
  announce(deps, result.ids);
  return result.counts;
}

const outgoingColumns = {
  share: deviceShares,
  sn: devices.sn,
  deviceName: devices.name,
  productKey: devices.productKey,
  productName: products.name,
  toUsername: users.username,
  toPhone: users.phone,
};

/** What the actor shared (admins: every share), newest first. Expired shares stay listed, marked `expired`. */
export async function listOutgoing(
  deps: Deps,
  actor: Actor,
  query: ListQuery,
): Promise<{ items: OutgoingShareItem[]; total: number }> {
  const conditions: (SQL | undefined)[] = [
    ownerFilter(actor, deviceShares.ownerUid),
    query.sn ? eq(devices.sn, query.sn) : undefined,
  ];
  if (query.keyword) {
    const like = likeKeyword(query.keyword);
    conditions.push(or(ilike(devices.sn, like), ilike(devices.name, like), ilike(users.username, like)));
  }
  const where = and(...conditions);
  const base = () =>
    deps.db
      .select(outgoingColumns)
      .from(deviceShares)
      .innerJoin(devices, eq(devices.id, deviceShares.deviceId))
      .innerJoin(products, eq(products.productKey, devices.productKey))
      .innerJoin(users, eq(users.id, deviceShares.granteeUid));
  const [rows, [total]] = await Promise.all([
    base()
      .where(where)
      .orderBy(desc(deviceShares.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(deviceShares)
      .innerJoin(devices, eq(devices.id, deviceShares.deviceId))
      .innerJoin(users, eq(users.id, deviceShares.granteeUid))
      .where(where),
  ]);
  const now = deps.now().getTime();
  return {
    items: rows.map((r) => ({
      id: r.share.id,
      sn: r.sn,
      device_name: r.deviceName,
      product_key: r.productKey,
      product_name: r.productName,
      to_uid: r.share.granteeUid,
      to_username: r.toUsername,
      to_phone: maskPhone(r.toPhone),
      right: r.share.right,
      created_at: r.share.createdat.toISOString(),
      updated_at: r.share.updatedat.toISOString(),
      expires_at: iso(r.share.expiresAt),
      expired: r.share.expiresAt !== null && r.share.expiresAt.getTime() <= now,
    })),
    total: total?.n ?? 0,
  };
}

/** What is shared with the actor (live shares only), newest first. */
export async function listIncoming(
  deps: Deps,
  actor: Actor,
  query: ListQuery,
): Promise<{ items: IncomingShareItem[]; total: number }> {
  const uid = actingOnSelf(actor);
  const conditions: (SQL | undefined)[] = [
    eq(deviceShares.granteeUid, uid),
    eq(deviceShares.ownerUid, devices.uid),
    liveShareRow(),
    query.sn ? eq(devices.sn, query.sn) : undefined,
  ];
  if (query.keyword) {
    const like = likeKeyword(query.keyword);
    conditions.push(or(ilike(devices.sn, like), ilike(devices.name, like), ilike(users.username, like)));
  }
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({
        share: deviceShares,
        sn: devices.sn,
        deviceName: devices.name,
        productKey: devices.productKey,
        productName: products.name,
        owner: users.username,
      })
      .from(deviceShares)
      .innerJoin(devices, eq(devices.id, deviceShares.deviceId))
      .innerJoin(products, eq(products.productKey, devices.productKey))
      .innerJoin(users, eq(users.id, deviceShares.ownerUid))
      .where(where)
      .orderBy(desc(deviceShares.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(deviceShares)
      .innerJoin(devices, eq(devices.id, deviceShares.deviceId))
      .innerJoin(users, eq(users.id, deviceShares.ownerUid))
      .where(where),
  ]);
  return {
    items: rows.map((r) => ({
      id: r.share.id,
      sn: r.sn,
      device_name: r.deviceName,
      product_key: r.productKey,
      product_name: r.productName,
      owner_username: r.owner,
      right: r.share.right,
      since: r.share.createdat.toISOString(),
      expires_at: iso(r.share.expiresAt),
    })),
    total: total?.n ?? 0,
  };
}

async function shareRow(tx: DbOrTx, id: number) {
  const [row] = await tx.select().from(deviceShares).where(eq(deviceShares.id, id)).for('update');
  return row;
}

/** Changes right and expiry (the owner, or an admin); anyone else 10107 as if it did not exist. */
export async function updateShare(
  deps: Deps,
  actor: Actor,
  id: number,
  body: ShareUpdateBody,
): Promise<null> {
  const expiresAt = expiryOf(deps, body.expires_at);
  const deviceId = await deps.db.transaction(async (tx) => {
    const row = await shareRow(tx, id);
    if (!owns(actor, row && { uid: row.ownerUid }) || !row) throw new AppError(10107);
    await tx
      .update(deviceShares)
      .set({ right: body.right, expiresAt, updatedat: sql`now()` })
      .where(eq(deviceShares.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'share_update',
      target: String(id),
      ip: actor.ip,
      detail: {
        device_id: row.deviceId,
        to_uid: row.granteeUid,
        right: body.right,
        was: row.right,
        expires_at: iso(expiresAt),
      },
    });
    await notifyShareChange(deps, tx, [row.deviceId]);
    return row.deviceId;
  });
  announce(deps, [deviceId]);
  return null;
}

/** The owner (or an admin) revokes; the receiver leaves; anyone else 10107 as if it did not exist. */
export async function deleteShare(deps: Deps, actor: Actor, id: number): Promise<null> {
  const deviceId = await deps.db.transaction(async (tx) => {
    const row = await shareRow(tx, id);
    const owner = owns(actor, row && { uid: row.ownerUid });
    if (!row) throw new AppError(10107);
    const leaving = row.granteeUid === actingOnSelf(actor);
    if (!leaving && !owner) throw new AppError(10107);
    await tx.delete(deviceShares).where(eq(deviceShares.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: leaving ? 'share_leave' : 'share_revoke',
      target: String(id),
      ip: actor.ip,
      detail: { device_id: row.deviceId, owner_uid: row.ownerUid, to_uid: row.granteeUid, right: row.right },
    });
    await notifyShareChange(deps, tx, [row.deviceId]);
    return row.deviceId;
  });
  announce(deps, [deviceId]);
  return null;
}

// --- share links -------------------------------------------------------------------------------------------------

/** 32 url-safe characters (24 random bytes). */
const newShareToken = (): string => randomBytes(24).toString('base64url');

export async function createShareLink(
  deps: Deps,
  actor: Actor,
  body: Omit<ShareLinkCreateBody, 'sns'> & { sns: string[] },
): Promise<ShareLinkCreated> {
  const expiresAt = expiryOf(deps, body.expires_at);
  const token = newShareToken();
  const id = await deps.db.transaction(async (tx) => {
    const list = await shareableDevices(tx, actor, body.sns);
    const owners = [...new Set(list.map((d) => d.uid))];
    // A link speaks for one owner: its receivers see "<owner> shared...". An admin makes one link per owner.
    if (owners.length !== 1)
      throw new AppError(10210, 400, undefined, [{ field: 'sns', message: 'devices of one owner per link' }]);
    const [link] = await tx
      .insert(shareLinks)
      .values({
        ownerUid: owners[0]!,
        tokenHash: sha256Hex(token),
        right: body.right,
        expiresAt,
        maxUses: body.max_uses ?? null,
      })
      .returning({ id: shareLinks.id });
    if (!link) throw new AppError(10109);
    await tx.insert(shareLinkDevices).values(list.map((d) => ({ linkId: link.id, deviceId: d.id })));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'share_link_create',
      target: String(link.id),
      ip: actor.ip,
      detail: {
        right: body.right,
        expires_at: iso(expiresAt),
        max_uses: body.max_uses ?? null,
        sns: list.slice(0, 50).map((d) => d.sn),
        devices: list.length,
      },
    });
    return link.id;
  });
  return { id, token, url_path: `/share?token=${token}` };
}

/** The actor's links (admins: everyone's) that are not revoked, newest first. */
export async function listShareLinks(
  deps: Deps,
  actor: Actor,
  query: { current: number; per_page: number },
): Promise<{ items: ShareLinkItem[]; total: number }> {
  const where = and(ownerFilter(actor, shareLinks.ownerUid), isNull(shareLinks.revokedAt));
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(shareLinks)
      .where(where)
      .orderBy(desc(shareLinks.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(shareLinks).where(where),
  ]);
  const ids = rows.map((r) => r.id);
  const counts = new Map<number, number>();
  if (ids.length > 0) {
    const c = await deps.db
      .select({ id: shareLinkDevices.linkId, n: count() })
      .from(shareLinkDevices)
      .where(inArray(shareLinkDevices.linkId, ids))
      .groupBy(shareLinkDevices.linkId);
    for (const r of c) counts.set(r.id, r.n);
  }
  const now = deps.now().getTime();
  return {
    items: rows.map((r) => ({
      id: r.id,
      devices: counts.get(r.id) ?? 0,
      right: r.right,
      uses: r.uses,
      max_uses: r.maxUses,
      expires_at: iso(r.expiresAt),
      created_at: r.createdat.toISOString(),
      spent:
        (r.expiresAt !== null && r.expiresAt.getTime() <= now) || (r.maxUses !== null && r.uses >= r.maxUses),
    })),
    total: total?.n ?? 0,
  };
}

/** Revokes a link (its owner, or an admin); anyone else 10107. Shares accepted through it stay. */
export async function deleteShareLink(deps: Deps, actor: Actor, id: number): Promise<null> {
  await deps.db.transaction(async (tx) => {
    const [row] = await tx.select().from(shareLinks).where(eq(shareLinks.id, id)).for('update');
    if (!owns(actor, row && { uid: row.ownerUid }) || !row || row.revokedAt) throw new AppError(10107);
    await tx
      .update(shareLinks)
      .set({ revokedAt: sql`now()` })
      .where(eq(shareLinks.id, id));
    await writeAudit(tx, { uid: actor.uid, action: 'share_link_revoke', target: String(id), ip: actor.ip });
  });
  return null;
}

/** A link that can still be accepted: not revoked, not expired, not used up. */
const usableLink = () =>
  and(
    isNull(shareLinks.revokedAt),
    or(isNull(shareLinks.expiresAt), gt(shareLinks.expiresAt, sql`now()`)),
    or(isNull(shareLinks.maxUses), sql`${shareLinks.uses} < ${shareLinks.maxUses}`),
  );

/**
 * The usable link of `token` and its devices still owned by the link's owner: 10211 for an unknown, revoked,
 * expired or used-up token (alike), 10212 when the caller owns it.
 */
async function openLink(db: DbOrTx, actor: Actor, token: string) {
  const uid = actingOnSelf(actor);
  const [link] = await db
    .select()
    .from(shareLinks)
    .where(and(eq(shareLinks.tokenHash, sha256Hex(token)), usableLink()));
  if (!link) throw new AppError(10211);
  if (link.ownerUid === uid) throw new AppError(10212);
  const list = await db
    .select({ id: devices.id, sn: devices.sn, name: devices.name, uid: devices.uid })
    .from(shareLinkDevices)
    .innerJoin(devices, eq(devices.id, shareLinkDevices.deviceId))
    .where(and(eq(shareLinkDevices.linkId, link.id), eq(devices.uid, link.ownerUid)))
    .orderBy(devices.sn);
  // Every device left its owner (unbound, transferred, deleted): nothing to give, as if the link were gone.
  if (list.length === 0) throw new AppError(10211);
  return { link, list: list.map((d) => ({ ...d, uid: d.uid! })) };
}

/** What accepting the link would give (signed-in preview). */
export async function previewShareLink(deps: Deps, actor: Actor, token: string): Promise<ShareLinkPreview> {
  const { link, list } = await openLink(deps.db, actor, token);
  return {
    owner_username: await usernameOf(deps.db, link.ownerUid),
    devices: list.map((d) => ({ sn: d.sn, name: d.name })),
    right: link.right,
    expires_at: iso(link.expiresAt),
  };
}

/**
 * Accepts a link: takes one use (an update guarded by the limit, so of two receivers racing for the last use one
 * wins and the other gets 10211) and shares the link's devices with the caller, with the link's right and expiry.
 */
export async function acceptShareLink(deps: Deps, actor: Actor, token: string): Promise<ShareCreateResult> {
  const result = await deps.db.transaction(async (tx) => {
    const { link, list } = await openLink(tx, actor, token);
    const taken = await tx
      .update(shareLinks)
      .set({ uses: sql`${shareLinks.uses} + 1` })
      .where(and(eq(shareLinks.id, link.id), usableLink(), ne(shareLinks.ownerUid, actor.uid)))
      .returning({ id: shareLinks.id });
    if (taken.length === 0) throw new AppError(10211);
    const counts = await upsertShares(tx, list, actor.uid, link.right, link.expiresAt);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'share_link_accept',
      target: String(link.id),
      ip: actor.ip,
      detail: { owner_uid: link.ownerUid, right: link.right, devices: list.length, ...counts },
    });
    await notifyShareChange(
      deps,
      tx,
      list.map((d) => d.id),
    );
    return { counts, ids: list.map((d) => d.id) };
  });
  announce(deps, result.ids);
  return result.counts;
}
