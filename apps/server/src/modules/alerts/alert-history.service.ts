import { and, count, desc, eq, gte, inArray, isNotNull, isNull, lt, type SQL } from 'drizzle-orm';
import type { AlertHistoryItem, alertHistoryQuery } from '@cellhub/contract/alerts';
import type { z } from 'zod';
import type { Actor, Deps } from '../../lib/deps';
import { findVisibleOwned, ownerFilter } from '../../lib/authz';
import { writeAudit } from '../audit/audit.service';
import { users } from '../users/users.table';
import { propertyNames, type PropertyNames } from './alert-triggers.service';
import { alertHistory, type AlertHistoryRow, unboxValue } from './alerts.table';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toItem(
  r: AlertHistoryRow,
  ackBy: string | null,
  names: Map<string, PropertyNames>,
): AlertHistoryItem {
  const named = r.key ? names.get(`${r.productKey}\u0000${r.key}`) : undefined;
  return {
    id: r.id,
    trigger_id: r.triggerId,
    trigger_name: r.triggerName,
    uid: r.uid,
    sn: r.sn,
    device_name: r.deviceName,
    product_key: r.productKey,
    key: r.key,
    property_name: r.key ? (named?.name ?? r.key) : '',
    property_name_us: named?.nameUs ?? '',
    type: r.type,
    a: r.a,
    b: r.b,
    status: r.status,
    raised_at: r.raisedAt.toISOString(),
    raised_value: unboxValue(r.raisedValue),
    recovered_at: iso(r.recoveredAt),
    recovered_value: unboxValue(r.recoveredValue),
    push_count: r.pushCount,
    acknowledged_at: iso(r.acknowledgedAt),
    acknowledged_by: ackBy,
  };
}

const namesOf = (deps: Deps, rows: AlertHistoryRow[]) =>
  propertyNames(
    deps.db,
    rows.flatMap((r) => (r.key ? [{ productKey: r.productKey, key: r.key }] : [])),
  );

const select = (deps: Deps) =>
  deps.db
    .select({ h: alertHistory, ackBy: users.username })
    .from(alertHistory)
    .leftJoin(users, eq(users.id, alertHistory.acknowledgedBy));

export async function listHistory(
  deps: Deps,
  actor: Actor,
  query: z.infer<typeof alertHistoryQuery>,
): Promise<{ items: AlertHistoryItem[]; total: number }> {
  const c: (SQL | undefined)[] = [ownerFilter(actor, alertHistory.uid)];
  if (query.status) c.push(eq(alertHistory.status, query.status));
  if (query.acknowledged === 1) c.push(isNotNull(alertHistory.acknowledgedAt));
  if (query.acknowledged === 0) c.push(isNull(alertHistory.acknowledgedAt));
  if (query.trigger_id !== undefined) c.push(eq(alertHistory.triggerId, query.trigger_id));
  if (query.sn) c.push(eq(alertHistory.sn, query.sn));
  if (query.from) c.push(gte(alertHistory.raisedAt, new Date(query.from)));
  if (query.to) c.push(lt(alertHistory.raisedAt, new Date(query.to)));
  const where = and(...c);
  const [rows, [total]] = await Promise.all([
    select(deps)
      .where(where)
      .orderBy(desc(alertHistory.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(alertHistory).where(where),
  ]);
  const names = await namesOf(
    deps,
    rows.map((r) => r.h),
  );
  return { items: rows.map((r) => toItem(r.h, r.ackBy, names)), total: total?.n ?? 0 };
}

/** Acknowledging says "someone is on it"; it neither recovers the alert nor stops its pushes. Idempotent. */
export async function acknowledgeAlert(deps: Deps, actor: Actor, id: number): Promise<AlertHistoryItem> {
  const row = await findVisibleOwned(deps.db, actor, alertHistory, id, 10107);
  if (!row.acknowledgedAt) await acknowledge(deps, actor, [row.id]);
  const [r] = await select(deps).where(eq(alertHistory.id, row.id));
  return toItem(r!.h, r!.ackBy, await namesOf(deps, [r!.h]));
}

/** Acknowledges those of `ids` the actor may see that are not acknowledged yet; answers how many. */
export async function acknowledgeAlerts(deps: Deps, actor: Actor, ids: number[]): Promise<number> {
  return acknowledge(deps, actor, ids);
}

async function acknowledge(deps: Deps, actor: Actor, ids: number[]): Promise<number> {
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const done = await tx
      .update(alertHistory)
      .set({ acknowledgedAt: now, acknowledgedBy: actor.uid })
      .where(
        and(
          inArray(alertHistory.id, ids),
          isNull(alertHistory.acknowledgedAt),
          ownerFilter(actor, alertHistory.uid),
        ),
      )
      .returning({ id: alertHistory.id });
    if (done.length > 0) {
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'alert_ack',
        target: done.length === 1 ? `alert:${done[0]!.id}` : 'alert:*',
        ip: actor.ip,
        detail: { ids: done.map((d) => d.id) },
      });
    }
    return done.length;
  });
}
