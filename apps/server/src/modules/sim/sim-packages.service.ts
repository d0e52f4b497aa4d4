import { and, count, desc, eq, ilike, inArray, or, type SQL } from 'drizzle-orm';
import {
  PACKAGE_LOCKED_FIELDS,
  type PackageCreateBody,
  type PackageItem,
  type PackageUpdateBody,
} from '@cellhub/contract/sim';
import type { z } from 'zod';
import type { packageCreateBody, packageListQuery, packageUpdateBody } from '@cellhub/contract/sim';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { isAdmin, requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { simCards } from './sim-cards.table';
import { simOrders } from './sim-orders.table';
import { type SimPackageRow, simPackages } from './sim-packages.table';

type CreateParsed = z.infer<typeof packageCreateBody>;
type UpdateParsed = z.infer<typeof packageUpdateBody>;
export type { PackageCreateBody, PackageUpdateBody };

interface Usage {
  cards: number;
  orders: number;
}

async function usageOf(db: DbOrTx, ids: number[]): Promise<Map<number, Usage>> {
  const out = new Map<number, Usage>();
  if (ids.length === 0) return out;
  const [cards, orders] = await Promise.all([
    db
      .select({ id: simCards.packageId, n: count() })
      .from(simCards)
      .where(inArray(simCards.packageId, ids))
      .groupBy(simCards.packageId),
    db
      .select({ id: simOrders.packageId, n: count() })
      .from(simOrders)
      .where(inArray(simOrders.packageId, ids))
      .groupBy(simOrders.packageId),
  ]);
  for (const id of ids) out.set(id, { cards: 0, orders: 0 });
  for (const c of cards) if (c.id !== null) out.get(c.id)!.cards = c.n;
  for (const o of orders) out.get(o.id)!.orders = o.n;
  return out;
}

function toItem(row: SimPackageRow, usage: Usage | undefined, admin: boolean): PackageItem {
  return {
    id: row.id,
    name: row.name,
    code: row.code,
    operator: row.operator,
    type: row.type,
    validity_unit: row.validityUnit,
    validity_count: row.validityCount,
    flow_mb: row.flowMb,
    price_fen: row.priceFen,
    remark: row.remark,
    on_sale: row.onSale,
    card_count: admin ? (usage?.cards ?? 0) : 0,
    order_count: admin ? (usage?.orders ?? 0) : 0,
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

export async function findPackage(db: DbOrTx, id: number): Promise<SimPackageRow | undefined> {
  const [row] = await db.select().from(simPackages).where(eq(simPackages.id, id));
  return row;
}

/** Users see packages on sale only; anything else answers like a missing package. */
async function visiblePackage(deps: Deps, actor: Actor, id: number): Promise<SimPackageRow> {
  const row = await findPackage(deps.db, id);
  // isAdmin first, so the layer is asked whether or not the package exists.
  if (!(isAdmin(actor) || row?.onSale) || !row) throw new AppError(10107);
  return row;
}

export async function listPackages(
  deps: Deps,
  actor: Actor,
  query: z.infer<typeof packageListQuery>,
): Promise<{ items: PackageItem[]; total: number }> {
  const admin = isAdmin(actor);
  const conditions: (SQL | undefined)[] = [];
  if (!admin) conditions.push(eq(simPackages.onSale, true));
  else if (query.on_sale !== undefined) conditions.push(eq(simPackages.onSale, query.on_sale));
  if (query.keyword) {
    const like = likeKeyword(query.keyword);
    conditions.push(or(ilike(simPackages.name, like), ilike(simPackages.code, like)));
  }
  if (query.operator) conditions.push(eq(simPackages.operator, query.operator));
  if (query.type) conditions.push(eq(simPackages.type, query.type));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(simPackages)
      .where(where)
      .orderBy(desc(simPackages.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(simPackages).where(where),
  ]);
  const usage = admin
    ? await usageOf(
        deps.db,
        rows.map((r) => r.id),
      )
    : new Map<number, Usage>();
  return { items: rows.map((r) => toItem(r, usage.get(r.id), admin)), total: total?.n ?? 0 };
}

export async function getPackage(deps: Deps, actor: Actor, id: number): Promise<PackageItem> {
  const row = await visiblePackage(deps, actor, id);
  const admin = isAdmin(actor);
  const usage = admin ? await usageOf(deps.db, [id]) : new Map<number, Usage>();
  return toItem(row, usage.get(id), admin);
}

const isUniqueViolation = (err: unknown): boolean => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23505' || e.cause?.code === '23505';
};

async function codeTaken(db: DbOrTx, code: string, exceptId?: number): Promise<boolean> {
  const [row] = await db.select({ id: simPackages.id }).from(simPackages).where(eq(simPackages.code, code));
  return row !== undefined && row.id !== exceptId;
}

export async function createPackage(deps: Deps, actor: Actor, input: CreateParsed): Promise<PackageItem> {
  requireAdmin(actor);
  if (await codeTaken(deps.db, input.code))
    throw new AppError(60007, 400, undefined, [{ field: 'code', message: 'exists' }]);
  try {
    const row = await deps.db.transaction(async (tx) => {
      const [created] = await tx
        .insert(simPackages)
        .values({
          name: input.name,
          code: input.code,
          operator: input.operator,
          type: input.type,
          validityUnit: input.validity_unit,
          validityCount: input.validity_count,
          flowMb: input.flow_mb,
          priceFen: input.price_fen,
          remark: input.remark,
          onSale: input.on_sale,
        })
        .returning();
      if (!created) throw new AppError(10109);
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'package_create',
        target: `package:${created.id}`,
        ip: actor.ip,
        detail: { code: input.code, price_fen: input.price_fen, flow_mb: input.flow_mb },
      });
      return created;
    });
    return toItem(row, { cards: 0, orders: 0 }, true);
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError(60007, 400, undefined, [{ field: 'code', message: 'exists' }]);
    throw err;
  }
}

const COLUMN_OF: Record<(typeof PACKAGE_LOCKED_FIELDS)[number], keyof SimPackageRow> = {
  code: 'code',
  operator: 'operator',
  type: 'type',
  validity_unit: 'validityUnit',
  validity_count: 'validityCount',
  flow_mb: 'flowMb',
  price_fen: 'priceFen',
};

/**
 * A package in use (a card is on it or an order bought it) keeps what those cards and orders were sold:
 * changing a locked field answers 60001 with the fields in `details.fields`. The check and the write share one
 * transaction with the package row locked, so a card or order appearing meanwhile cannot slip between them.
 */
export async function updatePackage(
  deps: Deps,
  actor: Actor,
  id: number,
  input: UpdateParsed,
): Promise<PackageItem> {
  requireAdmin(actor);
  if (input.code !== undefined && (await codeTaken(deps.db, input.code, id)))
    throw new AppError(60007, 400, undefined, [{ field: 'code', message: 'exists' }]);
  const { row, usage } = await deps.db.transaction(async (tx) => {
    const [current] = await tx.select().from(simPackages).where(eq(simPackages.id, id)).for('update');
    if (!current) throw new AppError(10107);
    const changed = PACKAGE_LOCKED_FIELDS.filter(
      (f) => input[f] !== undefined && input[f] !== current[COLUMN_OF[f]],
    );
    const usage = (await usageOf(tx, [id])).get(id) ?? { cards: 0, orders: 0 };
    if (changed.length > 0 && usage.cards + usage.orders > 0) {
      throw new AppError(60001, 400, undefined, {
        fields: changed,
        card_count: usage.cards,
        order_count: usage.orders,
      });
    }
    const [u] = await tx
      .update(simPackages)
      .set({
        name: input.name,
        code: input.code,
        operator: input.operator,
        type: input.type,
        validityUnit: input.validity_unit,
        validityCount: input.validity_count,
        flowMb: input.flow_mb,
        priceFen: input.price_fen,
        remark: input.remark,
        onSale: input.on_sale,
      })
      .where(eq(simPackages.id, id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'package_update',
      target: `package:${id}`,
      ip: actor.ip,
      detail: { ...input },
    });
    return { row: u ?? current, usage };
  });
  return toItem(row, usage, true);
}

/** 60001 while a card is on it or an order bought it (take it off sale instead). */
export async function deletePackage(deps: Deps, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await deps.db.transaction(async (tx) => {
    const [current] = await tx.select().from(simPackages).where(eq(simPackages.id, id)).for('update');
    if (!current) throw new AppError(10107);
    const usage = (await usageOf(tx, [id])).get(id) ?? { cards: 0, orders: 0 };
    if (usage.cards + usage.orders > 0) {
      throw new AppError(60001, 400, undefined, {
        fields: ['delete'],
        card_count: usage.cards,
        order_count: usage.orders,
      });
    }
    await tx.delete(simPackages).where(eq(simPackages.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'package_delete',
      target: `package:${id}`,
      ip: actor.ip,
      detail: { code: current.code },
    });
  });
}
