/**
 * Balances and their ledger. Every change goes through changeBalance: the balance row is locked FOR UPDATE, the new
 * balance may not go below zero (60002; a CHECK constraint backs this up), and the ledger row with the running
 * balance is written in the same transaction as the change that caused it.
 */
import { and, count, desc, eq, ilike, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type {
  BalanceAccountItem,
  BalanceInfo,
  balanceAccountQuery,
  LedgerItem,
  LedgerKind,
  ledgerQuery,
  topupBody,
} from '@cellhub/contract/sim';
import type { DbOrTx } from '../../db/client';
import { AppError, formError } from '../../lib/app-error';
import { actingOnSelf, isAdmin, requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { users } from '../users/users.table';
import { balanceLedger, balances } from './balance.table';
import { simOrders } from './sim-orders.table';

/** Locks the user's balance row (creating it at 0 first) and answers the balance in fen. */
export async function lockBalance(tx: DbOrTx, uid: number): Promise<number> {
  await tx.insert(balances).values({ uid, balanceFen: 0 }).onConflictDoNothing();
  const [row] = await tx
    .select({ balanceFen: balances.balanceFen })
    .from(balances)
    .where(eq(balances.uid, uid))
    .for('update');
  return row?.balanceFen ?? 0;
}

export interface BalanceChange {
  uid: number;
  /** Signed fen: positive credits, negative debits. */
  amountFen: number;
  kind: LedgerKind;
  orderId?: number;
  note?: string;
  operatorUid: number | null;
}

/** Applies one change inside the caller's transaction; 60002 when it would take the balance below zero. */
export async function changeBalance(
  tx: DbOrTx,
  change: BalanceChange,
): Promise<{ balanceAfterFen: number; ledgerId: number }> {
  const balance = await lockBalance(tx, change.uid);
  const after = balance + change.amountFen;
  if (after < 0) {
    throw new AppError(60002, 400, undefined, { balance_fen: balance, amount_fen: -change.amountFen });
  }
  await tx.update(balances).set({ balanceFen: after }).where(eq(balances.uid, change.uid));
  const [ledger] = await tx
    .insert(balanceLedger)
    .values({
      uid: change.uid,
      kind: change.kind,
      amountFen: change.amountFen,
      balanceAfterFen: after,
      orderId: change.orderId ?? null,
      note: change.note ?? '',
      operatorUid: change.operatorUid,
    })
    .returning({ id: balanceLedger.id });
  return { balanceAfterFen: after, ledgerId: ledger?.id ?? 0 };
}

/** Whose balance an actor asks for: their own, or (admins) anyone's. Users asking for another uid get 10107. */
function subject(actor: Actor, uid: number | undefined): number {
  if (uid === undefined || uid === actor.uid) return actingOnSelf(actor);
  if (!isAdmin(actor)) throw new AppError(10107);
  return uid;
}

async function userExists(db: DbOrTx, uid: number): Promise<boolean> {
  const [u] = await db.select({ id: users.id }).from(users).where(eq(users.id, uid));
  return u !== undefined;
}

export async function getBalance(deps: Deps, actor: Actor, uid: number | undefined): Promise<BalanceInfo> {
  const who = subject(actor, uid);
  if (who !== actor.uid && !(await userExists(deps.db, who))) throw new AppError(10107);
  const [row] = await deps.db.select().from(balances).where(eq(balances.uid, who));
  return { uid: who, balance_fen: row?.balanceFen ?? 0, updatedat: row ? row.updatedat.toISOString() : null };
}

type LedgerQuery = z.infer<typeof ledgerQuery>;

/** Users: their own ledger. Admins: everyone's, or one user's with `uid`. Newest first. */
export async function listLedger(
  deps: Deps,
  actor: Actor,
  query: LedgerQuery,
): Promise<{ items: LedgerItem[]; total: number }> {
  const conditions: (SQL | undefined)[] = [];
  if (!isAdmin(actor)) conditions.push(eq(balanceLedger.uid, subject(actor, query.uid)));
  else if (query.uid !== undefined) conditions.push(eq(balanceLedger.uid, query.uid));
  if (query.kind) conditions.push(eq(balanceLedger.kind, query.kind));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ l: balanceLedger, orderNo: simOrders.orderNo })
      .from(balanceLedger)
      .leftJoin(simOrders, eq(simOrders.id, balanceLedger.orderId))
      .where(where)
      .orderBy(desc(balanceLedger.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(balanceLedger).where(where),
  ]);
  return {
    items: rows.map(({ l, orderNo }) => ({
      id: l.id,
      uid: l.uid,
      kind: l.kind,
      amount_fen: l.amountFen,
      balance_after_fen: l.balanceAfterFen,
      order_id: l.orderId,
      order_no: orderNo,
      note: l.note,
      operator_uid: l.operatorUid,
      createdat: l.createdat.toISOString(),
    })),
    total: total?.n ?? 0,
  };
}

type TopupParsed = z.infer<typeof topupBody>;

/** Admin top-up of a user's balance, with its ledger row and audit row in one transaction. */
export async function topup(deps: Deps, actor: Actor, input: TopupParsed): Promise<LedgerItem> {
  requireAdmin(actor);
  if (!(await userExists(deps.db, input.uid))) throw formError('uid', 'unknown user');
  const id = await deps.db.transaction(async (tx) => {
    const { ledgerId, balanceAfterFen } = await changeBalance(tx, {
      uid: input.uid,
      amountFen: input.amount_fen,
      kind: 'topup',
      note: input.note,
      operatorUid: actor.uid,
    });
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'balance_topup',
      target: `user:${input.uid}`,
      ip: actor.ip,
      detail: { amount_fen: input.amount_fen, balance_after_fen: balanceAfterFen, note: input.note },
    });
    return ledgerId;
  });
  const [row] = await deps.db.select().from(balanceLedger).where(eq(balanceLedger.id, id));
  if (!row) throw new AppError(10101);
  return {
    id: row.id,
    uid: row.uid,
    kind: row.kind,
    amount_fen: row.amountFen,
    balance_after_fen: row.balanceAfterFen,
    order_id: null,
    order_no: null,
    note: row.note,
    operator_uid: row.operatorUid,
    createdat: row.createdat.toISOString(),
  };
}

type AccountQuery = z.infer<typeof balanceAccountQuery>;

/** Admin: users with their balances (users without a balance row have 0), newest account first. */
export async function listAccounts(
  deps: Deps,
  actor: Actor,
  query: AccountQuery,
): Promise<{ items: BalanceAccountItem[]; total: number }> {
  requireAdmin(actor);
  const where = query.keyword ? ilike(users.username, likeKeyword(query.keyword)) : undefined;
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({
        uid: users.id,
        username: users.username,
        balanceFen: sql<number>`coalesce(${balances.balanceFen}, 0)`.mapWith(Number),
        updatedat: balances.updatedat,
      })
      .from(users)
      .leftJoin(balances, eq(balances.uid, users.id))
      .where(where)
      .orderBy(desc(users.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(users).where(where),
  ]);
  return {
    items: rows.map((r) => ({
      uid: r.uid,
      username: r.username,
      balance_fen: r.balanceFen,
      updatedat: r.updatedat ? r.updatedat.toISOString() : null,
    })),
    total: total?.n ?? 0,
  };
}
