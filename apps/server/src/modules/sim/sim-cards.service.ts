import { and, asc, count, desc, eq, gt, gte, ilike, inArray, lte, ne, or, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import {
  SIM_CARD_EXPORT_COLUMNS,
  SIM_CARD_EXPORT_MAX,
  type SimCardDetail,
  type SimCardFlag,
  type SimCardItem,
  type simCardCreateBody,
  type simCardExportQuery,
  type simCardListQuery,
  type simCardUpdateBody,
  type SimSwapEvent,
  type simUsageQuery,
  type SimUsageSeries,
} from '@cellhub/contract/sim';
import type { DbOrTx } from '../../db/client';
import { toCsv } from '../../lib/csv';
import { AppError, formError } from '../../lib/app-error';
import { isAdmin, ownerFilter, requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { devices } from '../devices/devices.table';
import { users } from '../users/users.table';
import { addValidity, cardScope, dayOf, MB, monthOf, monthUsedSql, remainingSql, toMb } from './sim-common';
import {
  type SimCardRow,
  simCardLogs,
  simCards,
  simSwaps,
  simUsageDaily,
  simUsageMonthly,
} from './sim-cards.table';
import { simOrderCards } from './sim-orders.table';
import { type SimPackageRow, simPackages } from './sim-packages.table';
import { simProviders } from './sim-providers.table';
import { SimProviderError } from './providers/errors';
import { adapterOf, findProvider, providerErrorKind } from './sim-providers.service';

type ListQuery = z.infer<typeof simCardListQuery>;
type ExportQuery = z.infer<typeof simCardExportQuery>;
type CreateParsed = z.infer<typeof simCardCreateBody>;
type UpdateParsed = z.infer<typeof simCardUpdateBody>;
type UsageQuery = z.infer<typeof simUsageQuery>;

/** A card is "expiring" within this many days, and a SIM swap stays a warning this long. */
export const EXPIRING_DAYS = 30;
const SWAP_WARNING_DAYS = 30;
const DAY_MS = 86_400_000;
const iso = (d: Date | null) => (d ? d.toISOString() : null);
const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

// --- visibility --------------------------------------------------------------------------------------------------

/** The card if the actor may see it (assigned, in one of their devices, or admin); otherwise 60003. */
export async function visibleCard(db: DbOrTx, actor: Actor, iccid: string): Promise<SimCardRow> {
  const [row] = await db
    .select()
    .from(simCards)
    .where(and(eq(simCards.iccid, iccid), cardScope(actor)));
  if (!row) throw new AppError(60003);
  return row;
}

// --- list and detail ---------------------------------------------------------------------------------------------

const swappedSql = (since: Date) =>
  sql<boolean>`exists (select 1 from ${simSwaps} s where (s.old_iccid = ${simCards.iccid} or s.new_iccid = ${simCards.iccid}) and s.at > ${ts(since)})`;

function filters(actor: Actor, query: ExportQuery, now: Date): SQL | undefined {
  const conditions: (SQL | undefined)[] = [cardScope(actor)];
  if (query.status) conditions.push(eq(simCards.status, query.status));
  if (query.operator) conditions.push(eq(simCards.operator, query.operator));
  if (query.keyword) {
    const like = likeKeyword(query.keyword);
    const deviceMatch = and(ilike(devices.sn, like), ne(devices.iccid, ''), ownerFilter(actor, devices.uid));
    conditions.push(
      or(
        ilike(simCards.iccid, like),
        ilike(simCards.msisdn, like),
        ilike(simCards.imsi, like),
        sql`${simCards.iccid} in (select ${devices.iccid} from ${devices} where ${deviceMatch})`,
      ),
    );
  }
  if (query.expiring_days !== undefined) {
    conditions.push(gt(simCards.expiresAt, now));
    conditions.push(lte(simCards.expiresAt, new Date(now.getTime() + query.expiring_days * DAY_MS)));
  }
  switch (query.flag) {
    case 'expired':
      conditions.push(lte(simCards.expiresAt, now));
      break;
    case 'exhausted':
      conditions.push(eq(simCards.exhausted, true));
      break;
    case 'expiring':
      conditions.push(gt(simCards.expiresAt, now));
      conditions.push(lte(simCards.expiresAt, new Date(now.getTime() + EXPIRING_DAYS * DAY_MS)));
      break;
    case 'swapped':
      conditions.push(swappedSql(new Date(now.getTime() - SWAP_WARNING_DAYS * DAY_MS)));
      break;
    default:
      break;
  }
  if (isAdmin(actor)) {
    if (query.provider_id) conditions.push(eq(simCards.providerId, query.provider_id));
    if (query.package_id) conditions.push(eq(simCards.packageId, query.package_id));
    if (query.uid) conditions.push(eq(simCards.uid, query.uid));
  }
  return and(...conditions);
}

function cardSelect(now: Date) {
  const month = monthOf(now);
  return {
    card: simCards,
    monthUsed: monthUsedSql(month),
    remaining: remainingSql(month),
    packageName: simPackages.name,
    providerName: simProviders.name,
    username: users.username,
    swapped: swappedSql(new Date(now.getTime() - SWAP_WARNING_DAYS * DAY_MS)),
  };
}

interface CardJoinRow {
  card: SimCardRow;
  monthUsed: number;
  remaining: number | null;
  packageName: string | null;
  providerName: string | null;
  username: string | null;
  swapped: boolean;
}

interface DeviceOfCard {
  sn: string;
  name: string;
  productKey: string;
  online: number;
  lastcommunicationat: Date | null;
}

/** The device reporting each iccid, among those the actor may see (the most recently heard one wins). */
async function devicesOf(db: DbOrTx, actor: Actor, iccids: string[]): Promise<Map<string, DeviceOfCard>> {
  const out = new Map<string, DeviceOfCard>();
  if (iccids.length === 0) return out;
  const rows = await db
    .select({
      iccid: devices.iccid,
      sn: devices.sn,
      name: devices.name,
      productKey: devices.productKey,
      online: devices.online,
      lastcommunicationat: devices.lastcommunicationat,
    })
    .from(devices)
    .where(and(inArray(devices.iccid, iccids), ownerFilter(actor, devices.uid)))
    .orderBy(sql`${devices.lastcommunicationat} desc nulls last`);
  for (const r of rows) if (!out.has(r.iccid)) out.set(r.iccid, r);
  return out;
}

function flagsOf(r: CardJoinRow, now: Date): SimCardFlag[] {
  const flags: SimCardFlag[] = [];
  const exp = r.card.expiresAt;
  if (exp && exp <= now) flags.push('expired');
  if (r.card.exhausted) flags.push('exhausted');
  if (exp && exp > now && exp.getTime() <= now.getTime() + EXPIRING_DAYS * DAY_MS) flags.push('expiring');
  if (r.swapped) flags.push('swapped');
  return flags;
}

function toItem(actor: Actor, r: CardJoinRow, device: DeviceOfCard | undefined, now: Date): SimCardItem {
  const c = r.card;
  const admin = isAdmin(actor);
  const total = c.quotaTotalBytes ?? c.allowanceBytes;
  return {
    iccid: c.iccid,
    phone: c.msisdn,
    imsi: c.imsi,
    operator: c.operator,
    status: c.status,
    raw_status: c.rawStatus,
    flags: flagsOf(r, now),
    remaining_traffic: r.remaining === null ? null : toMb(r.remaining),
    month_total: total === null ? null : toMb(total),
    month_used: toMb(r.monthUsed),
    activation_time: iso(c.activatedAt),
    expiry: iso(c.expiresAt ?? c.operatorExpiresAt),
    package_id: c.packageId,
    package_name: r.packageName,
    package_type: c.allowanceType,
    provider_id: c.providerId,
    provider_name: admin ? r.providerName : null,
    device_sn: device?.sn ?? null,
    uid: admin || c.uid === actor.uid ? c.uid : null,
    username: admin || c.uid === actor.uid ? r.username : null,
    remark: admin ? c.remark : '',
    last_synced_at: iso(c.lastSyncedAt),
    createdat: c.createdat.toISOString(),
    updatedat: c.updatedat.toISOString(),
  };
}

function baseQuery(db: DbOrTx, now: Date) {
  return db
    .select(cardSelect(now))
    .from(simCards)
    .leftJoin(simPackages, eq(simPackages.id, simCards.packageId))
    .leftJoin(simProviders, eq(simProviders.id, simCards.providerId))
    .leftJoin(users, eq(users.id, simCards.uid));
}

const expiringFirst = (query: ListQuery): boolean =>
  query.flag === 'expiring' || query.expiring_days !== undefined;

export async function listCards(
  deps: Deps,
  actor: Actor,
  query: ListQuery,
): Promise<{ items: SimCardItem[]; total: number }> {
  const now = deps.now();
  const where = filters(actor, query, now);
  const [rows, [total]] = await Promise.all([
    baseQuery(deps.db, now)
      .where(where)
      // Cards about to expire are listed soonest first, which is the order they need renewing in.
      .orderBy(...(expiringFirst(query) ? [asc(simCards.expiresAt), desc(simCards.id)] : [desc(simCards.id)]))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(simCards).where(where),
  ]);
  const devs = await devicesOf(
    deps.db,
    actor,
    rows.map((r) => r.card.iccid),
  );
  return { items: rows.map((r) => toItem(actor, r, devs.get(r.card.iccid), now)), total: total?.n ?? 0 };
}

/** The filtered cards as CSV (UTF-8 with BOM so spreadsheets read Chinese names), at most SIM_CARD_EXPORT_MAX rows. */
export async function exportCards(deps: Deps, actor: Actor, query: ExportQuery): Promise<string> {
  const now = deps.now();
  const rows = await baseQuery(deps.db, now)
    .where(filters(actor, query, now))
    .orderBy(desc(simCards.id))
    .limit(SIM_CARD_EXPORT_MAX);
  const devs = await devicesOf(
    deps.db,
    actor,
    rows.map((r) => r.card.iccid),
  );
  const lines = rows.map((r) => {
    const item = toItem(actor, r, devs.get(r.card.iccid), now);
    return SIM_CARD_EXPORT_COLUMNS.map((c) => item[c]);
  });
  return toCsv(SIM_CARD_EXPORT_COLUMNS, lines);
}

async function swapsOf(db: DbOrTx, iccid: string): Promise<SimSwapEvent[]> {
  const rows = await db
    .select()
    .from(simSwaps)
    .where(or(eq(simSwaps.oldIccid, iccid), eq(simSwaps.newIccid, iccid)))
    .orderBy(desc(simSwaps.at))
    .limit(20);
  return rows.map((s) => ({
    sn: s.sn,
    old_iccid: s.oldIccid,
    new_iccid: s.newIccid,
    at: s.at.toISOString(),
  }));
}

export async function getCardDetail(deps: Deps, actor: Actor, iccid: string): Promise<SimCardDetail> {
  const now = deps.now();
  const [r] = await baseQuery(deps.db, now).where(and(eq(simCards.iccid, iccid), cardScope(actor)));
  if (!r) throw new AppError(60003);
  const [devs, swaps] = await Promise.all([devicesOf(deps.db, actor, [iccid]), swapsOf(deps.db, iccid)]);
  const device = devs.get(iccid);
  const c = r.card;
  const hasQuota = c.quotaTotalBytes !== null || c.quotaUsedBytes !== null || c.quotaRemainingBytes !== null;
  const mb = (v: number | null) => (v === null ? null : toMb(v));
  return {
    ...toItem(actor, r, device, now),
    device: device
      ? {
          sn: device.sn,
          name: device.name,
          product_key: device.productKey,
          online: device.online,
          lastcommunicationat: iso(device.lastcommunicationat),
        }
      : null,
    // Swaps are shown whatever their age on the detail page; the `swapped` flag only for recent ones.
    swaps,
    operator_expiry: iso(c.operatorExpiresAt),
    operator_quota: hasQuota
      ? { total: mb(c.quotaTotalBytes), used: mb(c.quotaUsedBytes), remaining: mb(c.quotaRemainingBytes) }
      : null,
    sync_error: isAdmin(actor) ? c.syncError : null,
  };
}

/** A real calendar day `YYYY-MM-DD` (not 2025-02-30), so the database never sees an invalid date. */
function realDay(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

/** Days (default the last 30) or months (default the last 12) of a card's usage, oldest first. */
export async function cardUsage(
  deps: Deps,
  actor: Actor,
  iccid: string,
  query: UsageQuery,
): Promise<SimUsageSeries> {
  const card = await visibleCard(deps.db, actor, iccid);
  const now = deps.now();
  if (query.granularity === 'day') {
    const from = query.from ?? dayOf(new Date(now.getTime() - 29 * DAY_MS));
    const to = query.to ?? dayOf(now);
    if (!realDay(from)) throw formError('from', 'date_rule');
    if (!realDay(to)) throw formError('to', 'date_rule');
    const rows = await deps.db
      .select({ day: simUsageDaily.day, used: simUsageDaily.usedBytes })
      .from(simUsageDaily)
      .where(and(eq(simUsageDaily.cardId, card.id), gte(simUsageDaily.day, from), lte(simUsageDaily.day, to)))
      .orderBy(simUsageDaily.day)
      .limit(1000);
    return { granularity: 'day', points: rows.map((r) => ({ period: r.day, used: toMb(r.used) })) };
  }
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1));
  const from = query.from ?? monthOf(d);
  const to = query.to ?? monthOf(now);
  if (!realDay(`${from}-01`)) throw formError('from', 'date_rule');
  if (!realDay(`${to}-01`)) throw formError('to', 'date_rule');
  const rows = await deps.db
    .select({ month: simUsageMonthly.month, used: simUsageMonthly.usedBytes })
    .from(simUsageMonthly)
    .where(
      and(
        eq(simUsageMonthly.cardId, card.id),
        gte(simUsageMonthly.month, from),
        lte(simUsageMonthly.month, to),
      ),
    )
    .orderBy(simUsageMonthly.month)
    .limit(1000);
  return { granularity: 'month', points: rows.map((r) => ({ period: r.month, used: toMb(r.used) })) };
}

// --- flags -----------------------------------------------------------------------------------------------------

/**
 * Recomputes `exhausted` (nothing left of the allowance) for the given cards; answers the ids that became
 * exhausted. Called after usage, allowance or quota changes, inside the caller's transaction.
 */
export async function refreshExhausted(db: DbOrTx, cardIds: number[], now: Date): Promise<number[]> {
  if (cardIds.length === 0) return [];
  const remaining = remainingSql(monthOf(now));
  const rows = await db
    .update(simCards)
    .set({ exhausted: sql`coalesce(${remaining} <= 0, false)` })
    .where(inArray(simCards.id, cardIds))
    .returning({ id: simCards.id, exhausted: simCards.exhausted });
  return rows.filter((r) => r.exhausted).map((r) => r.id);
}

// --- admin writes ------------------------------------------------------------------------------------------------

const isUniqueViolation = (err: unknown): boolean => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23505' || e.cause?.code === '23505';
};

async function checkRefs(
  db: DbOrTx,
  input: { provider_id?: number; package_id?: number | null; uid?: number | null; operator?: string },
  operator: string,
): Promise<SimPackageRow | undefined> {
  if (input.provider_id !== undefined) {
    const [p] = await db
      .select({ id: simProviders.id })
      .from(simProviders)
      .where(eq(simProviders.id, input.provider_id));
    if (!p) throw formError('provider_id', 'unknown provider');
  }
  if (input.uid !== undefined && input.uid !== null) {
    const [u] = await db.select({ id: users.id }).from(users).where(eq(users.id, input.uid));
    if (!u) throw formError('uid', 'unknown user');
  }
  if (input.package_id === undefined || input.package_id === null) return undefined;
  // FOR SHARE: a package edit (FOR UPDATE) waits for this card to exist and then sees it in use.
  const [pkg] = await db.select().from(simPackages).where(eq(simPackages.id, input.package_id)).for('share');
  if (!pkg) throw formError('package_id', 'unknown package');
  if (pkg.operator !== operator)
    throw new AppError(60005, 400, 'The package is for another operator', { operator: pkg.operator });
  return pkg;
}

export async function createCard(deps: Deps, actor: Actor, input: CreateParsed): Promise<SimCardDetail> {
  requireAdmin(actor);
  const now = deps.now();
  try {
    await deps.db.transaction(async (tx) => {
      const [exists] = await tx
        .select({ id: simCards.id })
        .from(simCards)
        .where(eq(simCards.iccid, input.iccid));
      if (exists) throw new AppError(60006, 400, undefined, [{ field: 'iccid', message: 'exists' }]);
      const pkg = await checkRefs(tx, input, input.operator);
      await tx.insert(simCards).values({
        iccid: input.iccid,
        msisdn: input.phone,
        imsi: input.imsi,
        operator: input.operator,
        providerId: input.provider_id,
        uid: input.uid,
        remark: input.remark,
        ...(pkg ? packageStart(pkg, now) : {}),
      });
      await tx.insert(simCardLogs).values({
        uid: actor.uid,
        source: 'single',
        total: 1,
        created: 1,
        failed: 0,
        iccids: [input.iccid],
      });
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'sim_card_create',
        target: `sim-card:${input.iccid}`,
        ip: actor.ip,
        detail: { provider_id: input.provider_id, package_id: input.package_id, uid: input.uid },
      });
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError(60006, 400, undefined, [{ field: 'iccid', message: 'exists' }]);
    throw err;
  }
  return getCardDetail(deps, actor, input.iccid);
}

/** A card put on a package now: its allowance and validity start now. */
export function packageStart(pkg: SimPackageRow, now: Date) {
  return {
    packageId: pkg.id,
    allowanceType: pkg.type,
    allowanceBytes: pkg.flowMb * MB,
    periodStart: now,
    expiresAt: addValidity(now, pkg.validityUnit, pkg.validityCount),
  };
}

export async function updateCard(
  deps: Deps,
  actor: Actor,
  iccid: string,
  input: UpdateParsed,
): Promise<SimCardDetail> {
  requireAdmin(actor);
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const [card] = await tx.select().from(simCards).where(eq(simCards.iccid, iccid)).for('update');
    if (!card) throw new AppError(60003);
    const operator = input.operator ?? card.operator;
    const packageChanges = input.package_id !== undefined && input.package_id !== card.packageId;
    const pkg = await checkRefs(
      tx,
      { ...input, package_id: packageChanges ? input.package_id : undefined },
      operator,
    );
    if (!packageChanges && input.operator !== undefined && card.packageId !== null) {
      const [current] = await tx.select().from(simPackages).where(eq(simPackages.id, card.packageId));
      if (current && current.operator !== operator)
        throw new AppError(60005, 400, "The card's package is for another operator", {
          operator: current.operator,
        });
    }
    await tx
      .update(simCards)
      .set({
        msisdn: input.phone,
        imsi: input.imsi,
        operator: input.operator,
        providerId: input.provider_id,
        uid: input.uid,
        remark: input.remark,
        status: input.status,
        activatedAt:
          input.activation_time === undefined
            ? undefined
            : input.activation_time === null
              ? null
              : new Date(input.activation_time),
        expiresAt:
          input.expiry === undefined ? undefined : input.expiry === null ? null : new Date(input.expiry),
        ...(packageChanges
          ? pkg
            ? {
                packageId: pkg.id,
                allowanceType: pkg.type,
                allowanceBytes: pkg.flowMb * MB,
                periodStart: now,
              }
            : { packageId: null, allowanceType: null, allowanceBytes: null, periodStart: null }
          : {}),
      })
      .where(eq(simCards.id, card.id));
    await refreshExhausted(tx, [card.id], now);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'sim_card_update',
      target: `sim-card:${iccid}`,
      ip: actor.ip,
      detail: { ...input },
    });
  });
  return getCardDetail(deps, actor, iccid);
}

/** 10112 while orders reference the card (their history must stay). */
export async function deleteCard(deps: Deps, actor: Actor, iccid: string): Promise<void> {
  requireAdmin(actor);
  await deps.db.transaction(async (tx) => {
    const [card] = await tx.select().from(simCards).where(eq(simCards.iccid, iccid)).for('update');
    if (!card) throw new AppError(60003);
    const [orders] = await tx
      .select({ n: count() })
      .from(simOrderCards)
      .where(eq(simOrderCards.cardId, card.id));
    if ((orders?.n ?? 0) > 0)
      throw new AppError(10112, 400, 'Orders reference this card', { order_count: orders?.n ?? 0 });
    await tx.delete(simCards).where(eq(simCards.id, card.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'sim_card_delete',
      target: `sim-card:${iccid}`,
      ip: actor.ip,
    });
  });
}

/**
 * Admin: activate or suspend a card. Remote providers are asked first (their answer decides); manual cards only
 * change the recorded status.
 */
export async function changeCardStatus(
  deps: Deps,
  actor: Actor,
  iccid: string,
  action: 'activate' | 'suspend',
): Promise<SimCardDetail> {
  requireAdmin(actor);
  const [card] = await deps.db.select().from(simCards).where(eq(simCards.iccid, iccid));
  if (!card) throw new AppError(60003);
  const provider = await findProvider(deps.db, card.providerId);
  if (!provider) throw new AppError(60003);
  if (provider.kind !== 'manual') {
    const adapter = adapterOf(deps, provider);
    try {
      await (action === 'activate' ? adapter.activate(iccid) : adapter.suspend(iccid));
    } catch (err) {
      if (!(err instanceof SimProviderError)) throw err;
      throw new AppError(60008, 400, undefined, { error_kind: providerErrorKind(err), message: err.message });
    }
  }
  const status = action === 'activate' ? 'active' : 'suspended';
  await deps.db.transaction(async (tx) => {
    await tx
      .update(simCards)
      .set({
        status,
        activatedAt: action === 'activate' ? (card.activatedAt ?? deps.now()) : card.activatedAt,
      })
      .where(eq(simCards.id, card.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'sim_card_update',
      target: `sim-card:${iccid}`,
      ip: actor.ip,
      detail: { action, provider: provider.kind },
    });
  });
  return getCardDetail(deps, actor, iccid);
}

// --- SIM swap (gateway) ------------------------------------------------------------------------------------------

/**
 * Called by the device info handler before it stores a reported iccid: when the device had another non-empty
 * iccid, the swap is recorded (one statement, nothing when unchanged).
 */
export async function recordSimSwap(db: DbOrTx, deviceId: number, newIccid: string, at: Date): Promise<void> {
  if (!newIccid) return;
  await db.execute(sql`
    insert into ${simSwaps} (device_id, sn, old_iccid, new_iccid, at)
    select ${devices.id}, ${devices.sn}, ${devices.iccid}, ${newIccid}, ${ts(at)}
    from ${devices}
    where ${devices.id} = ${deviceId} and ${devices.iccid} <> '' and ${devices.iccid} <> ${newIccid}`);
}

// --- OTA ---------------------------------------------------------------------------------------------------------

export interface SimDownloadVerdict {
  ok: boolean;
  reason?: string;
}

/**
 * Whether each device's SIM can take a download of `bytes` now: refused when the card expired, is suspended or
 * deactivated, or has less traffic left than the download. Devices without a known card pass (nothing to go by).
 * Queries only through `db` (the OTA engine calls it inside its claiming transaction).
 */
export async function simDownloadCheck(
  db: DbOrTx,
  deviceSns: readonly string[],
  bytes: number,
  now: Date = new Date(),
): Promise<Map<string, SimDownloadVerdict>> {
  const out = new Map<string, SimDownloadVerdict>(deviceSns.map((sn) => [sn, { ok: true }]));
  if (deviceSns.length === 0) return out;
  const rows = await db
    .select({
      sn: devices.sn,
      status: simCards.status,
      expiresAt: simCards.expiresAt,
      remaining: remainingSql(monthOf(now)),
    })
    .from(devices)
    .innerJoin(simCards, eq(simCards.iccid, devices.iccid))
    .where(and(inArray(devices.sn, [...deviceSns]), ne(devices.iccid, '')));
  for (const r of rows) {
    if (r.expiresAt && r.expiresAt <= now) out.set(r.sn, { ok: false, reason: 'expired' });
    else if (r.status === 'suspended' || r.status === 'deactivated')
      out.set(r.sn, { ok: false, reason: 'suspended' });
    else if (r.remaining !== null && r.remaining <= 0) out.set(r.sn, { ok: false, reason: 'no_traffic' });
    else if (r.remaining !== null && r.remaining < bytes)
      out.set(r.sn, { ok: false, reason: 'not_enough_traffic' });
  }
  return out;
}
