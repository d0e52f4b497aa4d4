interface Entry {
  count: number;
  at: number;
}

/**
 * Recent device-list counts per visibility and filter set (never keyword searches, whose count rides on the search
 * itself). Counting the first 10,000 matches is most of the work of a list page at fleet scale; a console polling
 * the list, or many operators of one fleet, would repeat it every time. A count is reused for
 * `DEVICE_LIST_COUNT_CACHE_MS`; creating, importing, deleting, binding or unbinding devices through this instance
 * empties the cache at once. What it may miss for up to that long: changes made on another instance, and devices
 * going online or offline (the online filter's total). The rows of a page are always read fresh, and a page that is
 * not full gives the exact total on the spot.
 *
 * One per running server, made with its deps (`deps.caches.deviceCounts`, lib/deps.ts).
 */
export class DeviceCountCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 5000,
  ) {}

  get(key: string, now: number): number | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now - entry.at >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.count;
  }

  set(key: string, count: number, now: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { count, at: now });
  }

  clear(): void {
    this.entries.clear();
  }
}
