/** One day's figures of the dashboard trend. */
export interface DayFigures {
  /** Devices that connected or sent data that day. */
  online: number;
  messages: number;
}

/**
 * Figures of finished days per scope ('all' or a uid). The stats table is keyed by the database's current_date, so
 * a finished day no longer changes and a 30-day chart at 100,000 devices then reads only today's rows. Entries
 * expire anyway (`ttlMs`, 10 minutes) so ownership changes show within minutes; past `maxEntries` the cache starts
 * over rather than grow.
 *
 * One per running server, made with its deps (`deps.caches.dashboardDays`, lib/deps.ts).
 */
export class PastDayCache {
  private readonly entries = new Map<string, { at: number; figures: DayFigures }>();

  constructor(
    readonly ttlMs = 10 * 60_000,
    private readonly maxEntries = 20_000,
  ) {}

  get(scope: string, day: string, now: number): DayFigures | undefined {
    const hit = this.entries.get(`${scope}|${day}`);
    return hit && now - hit.at < this.ttlMs ? hit.figures : undefined;
  }

  set(scope: string, days: readonly (readonly [string, DayFigures])[], now: number): void {
    if (this.entries.size + days.length > this.maxEntries) this.entries.clear();
    for (const [day, figures] of days) this.entries.set(`${scope}|${day}`, { at: now, figures });
  }
}
