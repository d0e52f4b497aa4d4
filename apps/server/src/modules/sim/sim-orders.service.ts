/**
 * Orders: one package for one or more cards. Paying debits the buyer's balance and extends every card in one
 * transaction; locks are always taken in the same order (order row, balance row, card rows by id) so concurrent
 * payments, refunds and completions cannot deadlock. docs/sim.md "Money rules".
 */
import { and, asc, count, desc, eq, gte, ilike, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type {
  OrderDetail,
  OrderItem,
  OrderKind,
  orderCreateBody,
  orderListQuery,
  SimCardOrderItem,
} from '@cellhub/contract/sim';
import type { DbOrTx } from '../../db/client';
import { AppError, formError } from '../../lib/app-error';
import { actingOnSelf, isAdmin, ownerFilter, ownerOfNew, requireAdmin, visibleOwned } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { users } from '../users/users.table';
import { changeBalance } from './balance.service';
import { addValidity, cardScope, MB, monthOf, remainingSql } from './sim-common';
import { refreshExhausted, visibleCard } from './sim-cards.service';
import { type SimCardRow, simCards } from './sim-cards.table';
import { type SimOrderCardRow, type SimOrderRow, simOrderCards, simOrders } from './sim-orders.table';
import { type SimPackageRow, simPackages } from './sim-packages.table';

type CreateParsed = z.infer<typeof orderCreateBody>;
type ListQuery = z.infer<typeof orderListQuery>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const orderNo = (id: number, at: Date): string =>
  `SO${at.toISOString().slice(0, 10).replaceAll('-', '')}-${String(id).padStart(6, '0')}`;

function kindOf(card: Pick<SimCardRow, 'packageId'>, packageId: number): OrderKind {
  if (card.packageId === null) return 'new';
  return card.packageId === packageId ? 'renew' : 'change';
}

function orderKind(kinds: OrderKind[]): OrderKind {
  if (kinds.every((k) => k === 'renew')) return 'renew';
  return kinds.includes('change') ? 'change' : 'new';
}

function toItem(o: SimOrderRow, username: string | null): OrderItem {
  return {
    id: o.id,
    order_no: o.orderNo,
    uid: o.uid,
    username,
    kind: o.kind,
    status: o.status,
    package_id: o.packageId,
    package_name: o.packageName,
    package_code: o.packageCode,
    card_count: o.cardCount,
    unit_price_fen: o.unitPriceFen,
    amount_fen: o.amountFen,
    payment_method: o.paymentMethod,
    paid_at: iso(o.paidAt),
    refunded_at: iso(o.refundedAt),
    cancelled_at: iso(o.cancelledAt),
    note: o.note,
    createdat: o.createdat.toISOString(),
    updatedat: o.updatedat.toISOString(),
  };
}

const toCard = (c: SimOrderCardRow) => ({
  iccid: c.iccid,
  kind: c.kind,
  expiry_before: iso(c.beforeExpiresAt),
  expiry_after: iso(c.afterExpiresAt),
  reverted: c.reverted,
});

async function detailOf(db: DbOrTx, id: number): Promise<OrderDetail> {
  const [row] = await db
    .select({ o: simOrders, username: users.username })
    .from(simOrders)
    .leftJoin(users, eq(users.id, simOrders.uid))
    .where(eq(simOrders.id, id));
  if (!row) throw new AppError(10107);
  const cards = await db
    .select()
    .from(simOrderCards)
    .where(eq(simOrderCards.orderId, id))
    .orderBy(asc(simOrderCards.iccid));
  return { ...toItem(row.o, row.username), cards: cards.map(toCard) };
}

/** The order if the actor may see it (the buyer, or an admin); else 10107. */
async function visibleOrder(db: DbOrTx, actor: Actor, id: number, lock = false): Promise<SimOrderRow> {
  const q = db.select().from(simOrders).where(eq(simOrders.id, id));
  return visibleOwned(actor, (lock ? await q.for('update') : await q)[0], 10107);
}

export async function getOrder(deps: Deps, actor: Actor, id: number): Promise<OrderDetail> {
  await visibleOrder(deps.db, actor, id);
  return detailOf(deps.db, id);
}

function orderFilters(actor: Actor, query: ListQuery): SQL | undefined {
  const conditions: (SQL | undefined)[] = [];
  if (!isAdmin(actor)) conditions.push(ownerFilter(actor, simOrders.uid));
  else if (query.uid !== undefined) conditions.push(eq(simOrders.uid, query.uid));
  if (query.status) conditions.push(eq(simOrders.status, query.status));
  if (query.kind) conditions.push(eq(simOrders.kind, query.kind));
  if (query.package_id) conditions.push(eq(simOrders.packageId, query.package_id));
  if (query.from) conditions.push(gte(simOrders.createdat, new Date(query.from)));
  if (query.to) conditions.push(lt(simOrders.createdat, new Date(query.to)));
  if (query.keyword) {
    const like = likeKeyword(query.keyword);
    conditions.push(
      or(
        ilike(simOrders.orderNo, like),
        sql`${simOrders.id} in (select ${simOrderCards.orderId} from ${simOrderCards} where ${ilike(simOrderCards.iccid, like)})`,
      ),
    );
  }
  return and(...conditions);
}

export async function listOrders(
  deps: Deps,
  actor: Actor,
  query: ListQuery,
): Promise<{ items: OrderItem[]; total: number }> {
  const where = orderFilters(actor, query);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ o: simOrders, username: users.username })
      .from(simOrders)
      .leftJoin(users, eq(users.id, simOrders.uid))
      .where(where)
      .orderBy(desc(simOrders.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(simOrders).where(where),
  ]);
  return { items: rows.map((r) => toItem(r.o, r.username)), total: total?.n ?? 0 };
}

/** Package history of a card: its orders (users: only their own orders of it), newest first. */
export async function cardOrders(
  deps: Deps,
  actor: Actor,
  iccid: string,
  query: { current: number; per_page: number },
): Promise<{ items: SimCardOrderItem[]; total: number }> {
  const card = await visibleCard(deps.db, actor, iccid);
  const where = and(eq(simOrderCards.cardId, card.id), ownerFilter(actor, simOrders.uid));
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ o: simOrders, c: simOrderCards, username: users.username })
      .from(simOrderCards)
      .innerJoin(simOrders, eq(simOrders.id, simOrderCards.orderId))
      .leftJoin(users, eq(users.id, simOrders.uid))
      .where(where)
      .orderBy(desc(simOrders.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(simOrderCards)
      .innerJoin(simOrders, eq(simOrders.id, simOrderCards.orderId))
      .where(where),
  ]);
  return {
    items: rows.map((r) => ({ ...toItem(r.o, r.username), card: toCard(r.c) })),
    total: total?.n ?? 0,
  };
}

// --- create ---------------------------------------------------------------------------------------------------

const sameRequest = (a: string[], b: string[]) =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

const isUniqueViolation = (err: unknown): boolean => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23505' || e.cause?.code === '23505';
};

async function byIdempotencyKey(db: DbOrTx, uid: number, key: string): Promise<SimOrderRow | undefined> {
  const [row] = await db
    .select()
    .from(simOrders)
    .where(and(eq(simOrders.uid, uid), eq(simOrders.idempotencyKey, key)));
  return row;
}

async function replay(
  deps: Deps,
  actor: Actor,
  existing: SimOrderRow,
  input: CreateParsed,
): Promise<OrderDetail> {
  const iccids = (
    await deps.db
      .select({ iccid: simOrderCards.iccid })
      .from(simOrderCards)
      .where(eq(simOrderCards.orderId, existing.id))
  ).map((r) => r.iccid);
  if (existing.packageId !== input.package_id || !sameRequest(iccids, input.iccids)) {
    throw formError('Idempotency-Key', 'reused with a different request');
  }
  if (input.pay && existing.status === 'pending') return payOrder(deps, actor, existing.id);
  return detailOf(deps.db, existing.id);
}

/**
 * A pending order for one package on the caller's cards (admins: any card). `idempotencyKey` (the
 * Idempotency-Key header) makes a repeat of the same call answer the first order; with `pay` it is paid at once.
 */
export async function createOrder(
  deps: Deps,
  actor: Actor,
  input: CreateParsed,
  idempotencyKey: string | undefined,
): Promise<OrderDetail> {
  const buyer = ownerOfNew(actor);
  if (idempotencyKey) {
    const existing = await byIdempotencyKey(deps.db, buyer, idempotencyKey);
    if (existing) return replay(deps, actor, existing, input);
  }
  const now = deps.now();
  let id: number;
  try {
    id = await deps.db.transaction(async (tx) => {
      // FOR SHARE: a package edit waits for this order and then sees the package in use (60001).
      const [pkg] = await tx
        .select()
        .from(simPackages)
        .where(eq(simPackages.id, input.package_id))
        .for('share');
      if (!pkg) throw formError('package_id', 'unknown package');
      if (!pkg.onSale && !isAdmin(actor)) throw new AppError(60005, 400, 'The package is not on sale');
      const cards = await tx
        .select()
        .from(simCards)
        .where(and(inArray(simCards.iccid, input.iccids), cardScope(actor)));
      const found = new Set(cards.map((c) => c.iccid));
      const missing = input.iccids.filter((i) => !found.has(i));
      if (missing.length > 0) throw new AppError(60003, 400, undefined, { iccids: missing });
      const wrongOperator = cards.filter((c) => c.operator !== pkg.operator).map((c) => c.iccid);
      if (wrongOperator.length > 0) {
        throw new AppError(60005, 400, 'The package is for another operator', {
          iccids: wrongOperator,
          operator: pkg.operator,
        });
      }
      const kinds = cards.map((c) => kindOf(c, pkg.id));
      const [order] = await tx
        .insert(simOrders)
        .values({
          orderNo: `pending-${now.getTime()}-${Math.random().toString(36).slice(2)}`,
          uid: buyer,
          packageId: pkg.id,
          packageName: pkg.name,
          packageCode: pkg.code,
          kind: orderKind(kinds),
          cardCount: cards.length,
          unitPriceFen: pkg.priceFen,
          amountFen: pkg.priceFen * cards.length,
          idempotencyKey: idempotencyKey ?? null,
        })
        .returning({ id: simOrders.id });
      if (!order) throw new AppError(10109);
      await tx
        .update(simOrders)
        .set({ orderNo: orderNo(order.id, now) })
        .where(eq(simOrders.id, order.id));
      await tx
        .insert(simOrderCards)
        .values(
          cards.map((c, i) => ({ orderId: order.id, cardId: c.id, iccid: c.iccid, kind: kinds[i] ?? 'new' })),
        );
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'order_create',
        target: `order:${order.id}`,
        ip: actor.ip,
        detail: { package_id: pkg.id, iccids: input.iccids, amount_fen: pkg.priceFen * cards.length },
      });
      return order.id;
    });
  } catch (err) {
    // Two creates with one key raced: the loser answers the winner's order.
    if (idempotencyKey && isUniqueViolation(err)) {
      const existing = await byIdempotencyKey(deps.db, actor.uid, idempotencyKey);
      if (existing) return replay(deps, actor, existing, input);
    }
    throw err;
  }
  if (input.pay) return payOrder(deps, actor, id);
  return detailOf(deps.db, id);
}

// --- pay, complete -----------------------------------------------------------------------------------------------

/**
 * Extends every card of a paid order (inside the payment's transaction) and records each card's state before and
 * after, so a refund can take the extension back.
 */
async function applyOrder(tx: DbOrTx, order: SimOrderRow, now: Date): Promise<OrderKind> {
  const [pkg] = await tx.select().from(simPackages).where(eq(simPackages.id, order.packageId));
  if (!pkg) throw new AppError(10107);
  const items = await tx.select().from(simOrderCards).where(eq(simOrderCards.orderId, order.id));
  const cards = await tx
    .select()
    .from(simCards)
    .where(
      inArray(
        simCards.id,
        items.map((i) => i.cardId),
      ),
    )
    .orderBy(asc(simCards.id))
    .for('update');
  const kinds: OrderKind[] = [];
  for (const card of cards) {
    const kind = kindOf(card, pkg.id);
    kinds.push(kind);
    const next = extended(card, pkg, kind, now);
    await tx.update(simCards).set(next).where(eq(simCards.id, card.id));
    await tx
      .update(simOrderCards)
      .set({
        kind,
        beforePackageId: card.packageId,
        beforeAllowanceType: card.allowanceType,
        beforeAllowanceBytes: card.allowanceBytes,
        beforePeriodStart: card.periodStart,
        beforeExpiresAt: card.expiresAt,
        afterExpiresAt: next.expiresAt,
        afterAllowanceBytes: next.allowanceBytes,
        afterPeriodStart: next.periodStart,
      })
      .where(and(eq(simOrderCards.orderId, order.id), eq(simOrderCards.cardId, card.id)));
  }
  await refreshExhausted(
    tx,
    cards.map((c) => c.id),
    now,
  );
  return orderKind(kinds);
}

/**
 * What a card becomes when an order pays for it:
 * - `new` / `change`: the package starts now (allowance and validity from now);
 * - `renew` of a card still valid: validity extended from its expiry; a pool gets the package's flow added;
 * - `renew` of an expired card: starts again from now, like `new`.
 */
function extended(card: SimCardRow, pkg: SimPackageRow, kind: OrderKind, now: Date) {
  const flow = pkg.flowMb * MB;
  const valid = card.expiresAt !== null && card.expiresAt > now;
  if (kind !== 'renew' || !valid || card.allowanceBytes === null || card.periodStart === null) {
    return {
      packageId: pkg.id,
      allowanceType: pkg.type,
      allowanceBytes: flow,
      periodStart: now,
      expiresAt: addValidity(now, pkg.validityUnit, pkg.validityCount),
    };
  }
  return {
    packageId: pkg.id,
    allowanceType: pkg.type,
    allowanceBytes: pkg.type === 'pool' ? card.allowanceBytes + flow : card.allowanceBytes,
    periodStart: card.periodStart,
    expiresAt: addValidity(card.expiresAt ?? now, pkg.validityUnit, pkg.validityCount),
  };
}

/**
 * Pays a pending order from the buyer's balance: idempotent (an order already paid answers as it is and charges
 * nothing), 60002 when the balance does not cover it, 60004 for cancelled or refunded orders.
 */
export async function payOrder(deps: Deps, actor: Actor, id: number, payKey?: string): Promise<OrderDetail> {
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    // Only the buyer pays; an admin completes (completeOrder).
    const [order] = await tx
      .select()
      .from(simOrders)
      .where(and(eq(simOrders.id, id), eq(simOrders.uid, actingOnSelf(actor))))
      .for('update');
    if (!order) throw new AppError(10107);
    if (order.status === 'paid') return;
    if (order.status !== 'pending')
      throw new AppError(60004, 400, undefined, { status: order.status, action: 'pay' });
    await changeBalance(tx, {
      uid: order.uid,
      amountFen: -order.amountFen,
      kind: 'order',
      orderId: order.id,
      note: `${order.packageName} x ${order.cardCount}`,
      operatorUid: actor.uid,
    });
    const kind = await applyOrder(tx, order, now);
    await tx
      .update(simOrders)
      .set({ status: 'paid', paymentMethod: 'balance', paidAt: now, payKey: payKey ?? null, kind })
      .where(eq(simOrders.id, order.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'order_pay',
      target: `order:${order.id}`,
      ip: actor.ip,
      detail: { amount_fen: order.amountFen, idempotency_key: payKey ?? null },
    });
  });
  return detailOf(deps.db, id);
}

/** Admin: a pending order paid outside Cellhub; the cards are extended, no balance changes. */
export async function completeOrder(
  deps: Deps,
  actor: Actor,
  id: number,
  note: string,
): Promise<OrderDetail> {
  requireAdmin(actor);
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const order = await visibleOrder(tx, actor, id, true);
    if (order.status !== 'pending')
      throw new AppError(60004, 400, undefined, { status: order.status, action: 'complete' });
    const kind = await applyOrder(tx, order, now);
    await tx
      .update(simOrders)
      .set({ status: 'paid', paymentMethod: 'manual', paidAt: now, note, kind })
      .where(eq(simOrders.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'order_complete',
      target: `order:${id}`,
      ip: actor.ip,
      detail: { note, buyer: order.uid, amount_fen: order.amountFen },
    });
  });
  return detailOf(deps.db, id);
}

/** The buyer or an admin cancels a pending order. */
export async function cancelOrder(deps: Deps, actor: Actor, id: number): Promise<OrderDetail> {
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const order = await visibleOrder(tx, actor, id, true);
    if (order.status !== 'pending')
      throw new AppError(60004, 400, undefined, { status: order.status, action: 'cancel' });
    await tx.update(simOrders).set({ status: 'cancelled', cancelledAt: now }).where(eq(simOrders.id, id));
    await writeAudit(tx, { uid: actor.uid, action: 'order_cancel', target: `order:${id}`, ip: actor.ip });
  });
  return detailOf(deps.db, id);
}

// --- refund ----------------------------------------------------------------------------------------------------

const sameTime = (a: Date | null, b: Date | null) =>
  a === null ? b === null : b !== null && a.getTime() === b.getTime();

/**
 * Admin refund of a paid order: the amount goes back to the buyer's balance (orders paid from it; a manual
 * completion was paid outside, so nothing is credited), and each card's extension is taken back where it is
 * untouched: no later order changed the card, and for a renewal the extension has not started yet (and a pool's
 * added flow is still there), for a new or changed package none of its traffic has been used.
 */
export async function refundOrder(deps: Deps, actor: Actor, id: number, note: string): Promise<OrderDetail> {
  requireAdmin(actor);
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const order = await visibleOrder(tx, actor, id, true);
    if (order.status !== 'paid')
      throw new AppError(60004, 400, undefined, { status: order.status, action: 'refund' });
    if (order.paymentMethod === 'balance') {
      await changeBalance(tx, {
        uid: order.uid,
        amountFen: order.amountFen,
        kind: 'refund',
        orderId: order.id,
        note,
        operatorUid: actor.uid,
      });
    }
    const items = await tx.select().from(simOrderCards).where(eq(simOrderCards.orderId, id));
    const [pkg] = await tx.select().from(simPackages).where(eq(simPackages.id, order.packageId));
    const month = monthOf(now);
    const cards = await tx
      .select({ card: simCards, remaining: remainingSql(month) })
      .from(simCards)
      .where(
        inArray(
          simCards.id,
          items.map((i) => i.cardId),
        ),
      )
      .orderBy(asc(simCards.id))
      .for('update', { of: simCards });
    const byId = new Map(cards.map((c) => [c.card.id, c]));
    const reverted: string[] = [];
    const kept: string[] = [];
    for (const item of items) {
      const current = byId.get(item.cardId);
      const ok =
        current !== undefined &&
        pkg !== undefined &&
        untouched(item, current.card, current.remaining, pkg, now);
      if (ok) {
        await tx
          .update(simCards)
          .set({
            packageId: item.beforePackageId,
            allowanceType: item.beforeAllowanceType,
            allowanceBytes: item.beforeAllowanceBytes,
            periodStart: item.beforePeriodStart,
            expiresAt: item.beforeExpiresAt,
          })
          .where(eq(simCards.id, item.cardId));
        reverted.push(item.iccid);
      } else kept.push(item.iccid);
      await tx
        .update(simOrderCards)
        .set({ reverted: ok })
        .where(and(eq(simOrderCards.orderId, id), eq(simOrderCards.cardId, item.cardId)));
    }
    await refreshExhausted(
      tx,
      items.map((i) => i.cardId),
      now,
    );
    await tx.update(simOrders).set({ status: 'refunded', refundedAt: now, note }).where(eq(simOrders.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'order_refund',
      target: `order:${id}`,
      ip: actor.ip,
      detail: {
        note,
        buyer: order.uid,
        amount_fen: order.paymentMethod === 'balance' ? order.amountFen : 0,
        reverted,
        kept,
      },
    });
  });
  return detailOf(deps.db, id);
}

function untouched(
  item: SimOrderCardRow,
  card: SimCardRow,
  remaining: number | null,
  pkg: SimPackageRow,
  now: Date,
): boolean {
  const sameState =
    card.packageId === pkg.id &&
    sameTime(card.expiresAt, item.afterExpiresAt) &&
    sameTime(card.periodStart, item.afterPeriodStart) &&
    card.allowanceBytes === item.afterAllowanceBytes;
  if (!sameState) return false;
  const flow = pkg.flowMb * MB;
  if (item.kind === 'renew' && item.beforeExpiresAt !== null && item.beforeExpiresAt > now) {
    if (pkg.type === 'pool') return remaining !== null && remaining >= flow;
    return true;
  }
  if (item.kind === 'renew') return false;
  return remaining !== null && card.allowanceBytes !== null && remaining >= card.allowanceBytes;
}
