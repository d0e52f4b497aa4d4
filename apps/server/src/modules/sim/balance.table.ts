import { sql } from 'drizzle-orm';
import { bigint, bigserial, check, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import type { LedgerKind } from '@cellhub/contract/sim';
import { createdat, updatedat } from '../../db/columns';
import { users } from '../users/users.table';
import { simOrders } from './sim-orders.table';

/**
 * One balance per user, in integer fen. Every change locks the row (`FOR UPDATE`) and writes a ledger row in the
 * same transaction; the CHECK is the last guard against a negative balance.
 */
export const balances = pgTable(
  'balances',
  {
    uid: integer('uid')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    balanceFen: bigint('balance_fen', { mode: 'number' }).notNull().default(0),
    updatedat: updatedat(),
  },
  (t) => [check('balances_not_negative', sql`${t.balanceFen} >= 0`)],
);

/** Every change of a balance with the balance right after it (a running balance). */
export const balanceLedger = pgTable(
  'balance_ledger',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<LedgerKind>().notNull(),
    amountFen: bigint('amount_fen', { mode: 'number' }).notNull(),
    balanceAfterFen: bigint('balance_after_fen', { mode: 'number' }).notNull(),
    orderId: integer('order_id').references(() => simOrders.id),
    note: text('note').notNull().default(''),
    /** Who made the change; no foreign key: the trail outlives accounts. */
    operatorUid: integer('operator_uid'),
    createdat: createdat(),
  },
  (t) => [index('balance_ledger_uid_idx').on(t.uid, t.id)],
);
