import { and, count, desc, eq, gte, inArray } from 'drizzle-orm';
import { type DashboardWorkplace, WORKPLACE_LIMIT } from '@cellhub/contract/dashboard';
import type { Actor, Deps } from '../../lib/deps';
import { listHistory } from '../alerts/alert-history.service';
import { visibleDevices } from '../devices/device-access';
import { devices } from '../devices/devices.table';
import { listTasks } from '../ota/ota.service';
import { products } from '../products/products.table';
import { listCards } from '../sim/sim-cards.service';

const DAY_MS = 86_400_000;
const page = { current: 1, per_page: WORKPLACE_LIMIT };

/** The start of "today": the browser's local midnight when given (at most 2 days back), else UTC midnight. */
export function startOfToday(now: Date, since: string | undefined): Date {
  const utc = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  if (!since) return utc;
  const at = new Date(since);
  if (at.getTime() > now.getTime() || now.getTime() - at.getTime() > 2 * DAY_MS) return utc;
  return at;
}

/** Devices the actor sees that are offline now and were heard from at or after `since`. */
async function offlineToday(
  deps: Deps,
  actor: Actor,
  since: Date,
): Promise<DashboardWorkplace['offline_today']> {
  const where = and(visibleDevices(actor), eq(devices.online, 0), gte(devices.lastcommunicationat, since));
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({
        sn: devices.sn,
        name: devices.name,
        productKey: devices.productKey,
        last: devices.lastcommunicationat,
      })
      .from(devices)
      .where(where)
      .orderBy(desc(devices.lastcommunicationat))
      .limit(WORKPLACE_LIMIT),
    deps.db.select({ n: count() }).from(devices).where(where),
  ]);
  const names = new Map<string, string>();
  if (rows.length > 0) {
    const keys = [...new Set(rows.map((r) => r.productKey))];
    for (const p of await deps.db
      .select({ key: products.productKey, name: products.name })
      .from(products)
      .where(inArray(products.productKey, keys)))
      names.set(p.key, p.name);
  }
  return {
    total: total?.n ?? 0,
    items: rows.map((r) => ({
      sn: r.sn,
      name: r.name,
      product_key: r.productKey,
      product_name: names.get(r.productKey) ?? r.productKey,
      last_seen: r.last ? r.last.toISOString() : null,
    })),
  };
}

/**
 * The Workplace's operations view in one answer: active alerts, running OTA tasks, SIM cards expiring or out of
 * traffic, devices that went offline today. Each list is the one its own page shows for the actor (the same
 * services and the same authorisation), cut to WORKPLACE_LIMIT rows with the full count.
 */
export async function dashboardWorkplace(
  deps: Deps,
  actor: Actor,
  query: { since?: string },
): Promise<DashboardWorkplace> {
  const since = startOfToday(deps.now(), query.since);
  const [alerts, ota, expiring, exhausted, offline] = await Promise.all([
    listHistory(deps, actor, { ...page, status: 'active' }),
    listTasks(deps, actor, { ...page, status: 'running' }),
    listCards(deps, actor, { ...page, flag: 'expiring' }),
    listCards(deps, actor, { ...page, flag: 'exhausted' }),
    offlineToday(deps, actor, since),
  ]);
  return {
    alerts: { total: alerts.total, items: alerts.items },
    ota: { total: ota.total, items: ota.items },
    sim_expiring: { total: expiring.total, items: expiring.items },
    sim_exhausted: { total: exhausted.total, items: exhausted.items },
    offline_today: offline,
    since: since.toISOString(),
  };
}
