/** Workplace figures (seed /dashboard/workplace): the caller's devices, or every device for admins. */
import { z } from 'zod';
import { text } from './text';
import { dashboardSim, simCardItem } from './sim';
import { alertHistoryItem } from './alerts';
import { otaTaskItem } from './ota';

export const dashboardOverview = z.object({
  device_total: z.number().int(),
  device_online: z.number().int(),
  device_offline: z.number().int(),
  /** Devices per product, largest first. */
  by_product: z.array(
    z.object({
      product_key: text(),
      product_name: text(),
      total: z.number().int(),
      online: z.number().int(),
    }),
  ),
  /** Balance, pending and renewal orders, SIM cards by operator and expiring soon (sim.ts). */
  sim: dashboardSim,
});
export type DashboardOverview = z.infer<typeof dashboardOverview>;

export const TREND_RANGES = ['7', '15', '30'] as const;
export const dashboardTrendQuery = z.object({ range: z.enum(TREND_RANGES).default('7') });
export type DashboardTrendQuery = z.infer<typeof dashboardTrendQuery>;

export const dashboardTrendDay = z.object({
  /** Calendar day (UTC) as YYYY-MM-DD. */
  day: text(),
  /** Devices that were online at some time that day. */
  online: z.number().int(),
  /** Messages received from devices that day. */
  messages: z.number().int(),
});
export const dashboardTrend = z.object({
  range: z.number().int(),
  /** Oldest first, ending today; days without figures are zeros. */
  days: z.array(dashboardTrendDay),
});
export type DashboardTrend = z.infer<typeof dashboardTrend>;

// --- the Workplace's operations view (GET /api/dashboard/workplace) ----------------------------------------------

/** How many rows each block lists (its `total` counts them all). */
export const WORKPLACE_LIMIT = 8;

export const dashboardWorkplaceQuery = z.object({
  /**
   * Start of "today" for the offline block, as the browser's local midnight (ISO 8601 with offset); the start of the
   * current UTC day when absent. At most 2 days back.
   */
  since: z.iso.datetime({ offset: true }).optional(),
});
export type DashboardWorkplaceQuery = z.input<typeof dashboardWorkplaceQuery>;

const block = <T extends z.ZodType>(item: T) => z.object({ total: z.number().int(), items: z.array(item) });

/** A device that went offline today (its last message came after `since` and it is offline now). */
export const workplaceOfflineDevice = z.object({
  sn: text(),
  name: text(),
  product_key: text(),
  product_name: text(),
  /** When it was last heard (ISO 8601). */
  last_seen: text().nullable(),
});
export type WorkplaceOfflineDevice = z.infer<typeof workplaceOfflineDevice>;

export const dashboardWorkplace = z.object({
  /** Active alerts, newest first. */
  alerts: block(alertHistoryItem),
  /** Running OTA tasks with their per-device counts, newest first. */
  ota: block(otaTaskItem),
  /** Cards expiring within 30 days (the listed ones soonest first). */
  sim_expiring: block(simCardItem),
  /** Cards that used up their traffic. */
  sim_exhausted: block(simCardItem),
  offline_today: block(workplaceOfflineDevice),
  /** Start of "today" used for `offline_today`. */
  since: text(),
});
export type DashboardWorkplace = z.infer<typeof dashboardWorkplace>;
