import { and, count, desc, eq, gt, inArray, lte } from 'drizzle-orm';
import type { DashboardSim } from '@cellhub/contract/sim';
import { ownerFilter } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { balances } from './balance.table';
import { cardScope } from './sim-common';
import { EXPIRING_DAYS } from './sim-cards.service';
import { simCards } from './sim-cards.table';
import { simOrders } from './sim-orders.table';

/**
 * The Workplace's SIM figures: the caller's balance, and orders and cards in the caller's scope (their own; admins
 * every user's).
 */
export async function simDashboard(deps: Deps, actor: Actor): Promise<DashboardSim> {
  const now = deps.now();
  const mine = ownerFilter(actor, simOrders.uid);
  const scope = cardScope(actor);
  const [[balance], [pending], [renewal], byOperator, [expiring]] = await Promise.all([
    deps.db.select({ fen: balances.balanceFen }).from(balances).where(eq(balances.uid, actor.uid)),
    deps.db
      .select({ n: count() })
      .from(simOrders)
      .where(and(mine, eq(simOrders.status, 'pending'))),
    deps.db
      .select({ n: count() })
      .from(simOrders)
      .where(and(mine, eq(simOrders.kind, 'renew'), inArray(simOrders.status, ['paid']))),
    deps.db
      .select({ operator: simCards.operator, total: count() })
      .from(simCards)
      .where(scope)
      .groupBy(simCards.operator)
      .orderBy(desc(count())),
    deps.db
      .select({ n: count() })
      .from(simCards)
      .where(
        and(
          scope,
          gt(simCards.expiresAt, now),
          lte(simCards.expiresAt, new Date(now.getTime() + EXPIRING_DAYS * 86_400_000)),
        ),
      ),
  ]);
  return {
    balance_fen: balance?.fen ?? 0,
    orders_pending: pending?.n ?? 0,
    orders_renewal: renewal?.n ?? 0,
    cards_total: byOperator.reduce((s, r) => s + r.total, 0),
    cards_by_operator: byOperator.map((r) => ({ operator: r.operator, total: r.total })),
    cards_expiring_30d: expiring?.n ?? 0,
  };
}
