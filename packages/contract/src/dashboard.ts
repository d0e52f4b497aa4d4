/** Workplace figures (seed /dashboard/workplace): the caller's devices, or every device for admins. */
import { z } from 'zod';
import { text } from './text';
import { dashboardSim } from './sim';

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
