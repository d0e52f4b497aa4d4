import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { OrderKind, OrderStatus, PackageType } from '@cellhub/contract/sim';
import { createdat, tstz, updatedat } from '../../db/columns';
import { users } from '../users/users.table';
import { simCards } from './sim-cards.table';
import { simPackages } from './sim-packages.table';

/**
 * Orders: one package bought for one or more cards. Amounts in integer fen. The package's name, code and price are
 * copied at order time. `idempotency_key` (unique per buyer) makes a repeated create answer the same order.
 */
export const simOrders = pgTable(
  'sim_orders',
  {
    id: serial('id').primaryKey(),
    orderNo: text('order_no').notNull(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id),
    packageId: integer('package_id')
      .notNull()
      .references(() => simPackages.id),
    packageName: text('package_name').notNull(),
    packageCode: text('package_code').notNull(),
    kind: text('kind').$type<OrderKind>().notNull(),
    status: text('status').$type<OrderStatus>().notNull().default('pending'),
    cardCount: integer('card_count').notNull(),
    unitPriceFen: integer('unit_price_fen').notNull(),
    amountFen: bigint('amount_fen', { mode: 'number' }).notNull(),
    paymentMethod: text('payment_method').$type<'balance' | 'manual'>(),
    idempotencyKey: text('idempotency_key'),
    payKey: text('pay_key'),
    note: text('note').notNull().default(''),
    paidAt: tstz('paid_at'),
    refundedAt: tstz('refunded_at'),
    cancelledAt: tstz('cancelled_at'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    uniqueIndex('sim_orders_order_no_uq').on(t.orderNo),
    uniqueIndex('sim_orders_idempotency_uq').on(t.uid, t.idempotencyKey),
    index('sim_orders_uid_idx').on(t.uid, t.id),
    index('sim_orders_status_idx').on(t.status, t.id),
    index('sim_orders_package_idx').on(t.packageId),
  ],
);
export type SimOrderRow = typeof simOrders.$inferSelect;

/**
 * The cards of an order, with each card's state before payment (to take the extension back on refund) and the
 * expiry and allowance it got.
 */
export const simOrderCards = pgTable(
  'sim_order_cards',
  {
    orderId: integer('order_id')
      .notNull()
      .references(() => simOrders.id, { onDelete: 'cascade' }),
    cardId: integer('card_id')
      .notNull()
      .references(() => simCards.id),
    iccid: text('iccid').notNull(),
    kind: text('kind').$type<OrderKind>().notNull(),
    beforePackageId: integer('before_package_id'),
    beforeAllowanceType: text('before_allowance_type').$type<PackageType>(),
    beforeAllowanceBytes: bigint('before_allowance_bytes', { mode: 'number' }),
    beforePeriodStart: tstz('before_period_start'),
    beforeExpiresAt: tstz('before_expires_at'),
    afterExpiresAt: tstz('after_expires_at'),
    afterAllowanceBytes: bigint('after_allowance_bytes', { mode: 'number' }),
    afterPeriodStart: tstz('after_period_start'),
    /** Set by a refund: whether the extension was taken back. */
    reverted: boolean('reverted'),
  },
  (t) => [primaryKey({ columns: [t.orderId, t.cardId] }), index('sim_order_cards_card_idx').on(t.cardId)],
);
export type SimOrderCardRow = typeof simOrderCards.$inferSelect;
