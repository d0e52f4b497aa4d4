import { and, count, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { DashboardOverview, DashboardTrend } from '@cellhub/contract/dashboard';
import { isAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { visibleDevices } from '../devices/device-access';
import { devices } from '../devices/devices.table';
import { products } from '../products/products.table';
import { deviceDailyStats } from '../telemetry/telemetry-stats.table';
import { simDashboard } from '../sim/sim-dashboard.service';
import type { DayFigures } from './past-day-cache';

/** The devices the caller may see (all for admins), as the authorisation layer says. */
const deviceScope = visibleDevices;

/**
 * Device counts in one pass over the caller's devices (devices_uid_idx for users); products are named
 * afterwards, so the aggregate never joins.
 */
export async function dashboardOverview(deps: Deps, actor: Actor): Promise<DashboardOverview> {
  const rows = await deps.db
    .select({
      productKey: devices.productKey,
      total: count(),
      online: sql<number>`(count(*) filter (where ${devices.online} = 1))::int`,
    })
    .from(devices)
    .where(deviceScope(actor))
    .groupBy(devices.productKey)
    .orderBy(desc(count()));
  const names = new Map<string, string>();
  if (rows.length > 0) {
    const found = await deps.db
      .select({ productKey: products.productKey, name: products.name })
      .from(products)
      .where(
        inArray(
          products.productKey,
          rows.map((r) => r.productKey),
        ),
      );
    for (const p of found) names.set(p.productKey, p.name);
  }
  let total = 0;
  let online = 0;
  for (const r of rows) {
    total += r.total;
    online += Number(r.online);
  }
  return {
    sim: await simDashboard(deps, actor),
    device_total: total,
    device_online: online,
    device_offline: total - online,
    by_product: rows.map((r) => ({
      product_key: r.productKey,
      product_name: names.get(r.productKey) ?? r.productKey,
      total: r.total,
      online: Number(r.online),
    })),
  };
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

async function databaseToday(deps: Deps): Promise<string> {
  const [row] = await deps.db.select({ today: sql<string>`current_date::text` }).from(sql`(select 1) as one`);
  return row?.today ?? isoDay(deps.now());
}

async function dayFigures(
  deps: Deps,
  actor: Actor,
  from: string,
  toExclusive: string | undefined,
): Promise<Map<string, DayFigures>> {
  const range = and(
    gte(deviceDailyStats.day, from),
    toExclusive ? lt(deviceDailyStats.day, toExclusive) : undefined,
  );
  const fields = {
    day: deviceDailyStats.day,
    online: count(),
    messages: sql<string>`coalesce(sum(${deviceDailyStats.messages}), 0)::bigint`,
  };
  const scope = deviceScope(actor);
  // Unscoped (admins) the figures need no join with devices.
  const rows =
    scope === undefined
      ? await deps.db.select(fields).from(deviceDailyStats).where(range).groupBy(deviceDailyStats.day)
      : await deps.db
          .select(fields)
          .from(deviceDailyStats)
          .innerJoin(devices, eq(devices.id, deviceDailyStats.deviceId))
          .where(and(range, scope))
          .groupBy(deviceDailyStats.day);
  return new Map(rows.map((r) => [r.day, { online: r.online, messages: Number(r.messages) }]));
}

/**
 * Per day of the range: devices that connected or sent data that day, and the messages received (device_daily_stats,
 * filled by ingest and connects).
 */
export async function dashboardTrend(deps: Deps, actor: Actor, range: number): Promise<DashboardTrend> {
  const today = await databaseToday(deps);
  const base = new Date(`${today}T00:00:00Z`);
  const days: string[] = [];
  for (let i = range - 1; i >= 0; i--) days.push(isoDay(new Date(base.getTime() - i * 86_400_000)));
  const scope = isAdmin(actor) ? 'all' : `u${actor.uid}`;
  // Finished days come from this server's cache (past-day-cache.ts) while they are fresh; today is always read.
  const cache = deps.caches.dashboardDays;
  const now = deps.now().getTime();
  const past = days.slice(0, -1);
  const cached = (day: string) => cache.get(scope, day, now);
  const missing = past.filter((d) => !cached(d));
  const fresh = await dayFigures(deps, actor, missing[0] ?? today, undefined);
  const zero: DayFigures = { online: 0, messages: 0 };
  if (missing.length > 0)
    cache.set(
      scope,
      missing.map((d) => [d, fresh.get(d) ?? zero] as const),
      now,
    );
  return {
    range,
    days: days.map((day) => {
      const f = day === today ? (fresh.get(day) ?? zero) : (cached(day) ?? fresh.get(day) ?? zero);
      return { day, online: f.online, messages: f.messages };
    }),
  };
}
