/**
 * Live values of a scene, keyed by binding. Each widget listens to its own `{sn,key}` only, so a WebSocket message
 * that changes one variable wakes only the widgets bound to it; trends keep a short ring of points.
 */

export interface LiveValue {
  value: unknown;
  /** Epoch ms of the value (device time when known). */
  ts: number;
}

export interface TrendPoint {
  t: number;
  v: number;
}

type Listener = () => void;

export function bindingKey(sn: string, key: string): string {
  return `${sn}\u0000${key}`;
}

const MAX_POINTS = 2000;

export class SceneLiveStore {
  private readonly values = new Map<string, LiveValue>();
  private readonly online = new Map<string, boolean>();
  private readonly series = new Map<string, TrendPoint[]>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly deviceListeners = new Map<string, Set<Listener>>();
  private readonly clockListeners = new Set<Listener>();
  private clock = Date.now();

  /** Per-binding subscription (for useSyncExternalStore). */
  subscribe = (sn: string, key: string, l: Listener): (() => void) => {
    const k = bindingKey(sn, key);
    let set = this.listeners.get(k);
    if (!set) this.listeners.set(k, (set = new Set()));
    set.add(l);
    return () => set.delete(l);
  };

  subscribeDevice = (sn: string, l: Listener): (() => void) => {
    let set = this.deviceListeners.get(sn);
    if (!set) this.deviceListeners.set(sn, (set = new Set()));
    set.add(l);
    return () => set.delete(l);
  };

  /** A coarse clock (stale checks); ticks when `tick` is called. */
  subscribeClock = (l: Listener): (() => void) => {
    this.clockListeners.add(l);
    return () => this.clockListeners.delete(l);
  };

  now = (): number => this.clock;

  tick(now = Date.now()): void {
    this.clock = now;
    for (const l of this.clockListeners) l();
  }

  get(sn: string, key: string): LiveValue | undefined {
    return this.values.get(bindingKey(sn, key));
  }

  isOnline(sn: string): boolean | undefined {
    return this.online.get(sn);
  }

  points(sn: string, key: string): TrendPoint[] | undefined {
    return this.series.get(bindingKey(sn, key));
  }

  /** Sets values of one device; only listeners of changed bindings are called. */
  setValues(sn: string, values: Record<string, unknown>, ts: number): void {
    for (const [key, value] of Object.entries(values)) {
      const k = bindingKey(sn, key);
      const old = this.values.get(k);
      if (old && old.ts > ts) continue;
      this.values.set(k, { value, ts });
      if (typeof value === 'number') {
        const pts = this.series.get(k);
        if (pts) {
          pts.push({ t: ts, v: value });
          if (pts.length > MAX_POINTS) pts.splice(0, pts.length - MAX_POINTS);
        }
      }
      const set = this.listeners.get(k);
      if (set) for (const l of set) l();
    }
  }

  /** Starts keeping a trend for a binding, seeded with history (oldest first). */
  trackSeries(sn: string, key: string, history: TrendPoint[] = []): void {
    const k = bindingKey(sn, key);
    const cur = this.series.get(k) ?? [];
    const merged = [...history, ...cur].sort((a, b) => a.t - b.t);
    this.series.set(k, merged.slice(-MAX_POINTS));
    const set = this.listeners.get(k);
    if (set) for (const l of set) l();
  }

  setOnline(sn: string, online: boolean): void {
    if (this.online.get(sn) === online) return;
    this.online.set(sn, online);
    const set = this.deviceListeners.get(sn);
    if (set) for (const l of set) l();
  }
}

/** Points of the last `minutes` before `now`, as an SVG polyline `points` string in a w x h box. */
export function trendPolyline(
  points: readonly TrendPoint[] | undefined,
  minutes: number,
  now: number,
  w: number,
  h: number,
  min?: number,
  max?: number,
): string {
  if (!points?.length) return '';
  const from = now - minutes * 60_000;
  const pts = points.filter((p) => p.t >= from);
  if (!pts.length) return '';
  let lo = min ?? Math.min(...pts.map((p) => p.v));
  let hi = max ?? Math.max(...pts.map((p) => p.v));
  if (hi === lo) {
    hi += 1;
    lo -= 1;
  }
  const span = now - from;
  return pts
    .map((p) => {
      const x = ((p.t - from) / span) * w;
      const y = h - ((p.v - lo) / (hi - lo)) * h;
      return `${x.toFixed(1)},${Math.min(h, Math.max(0, y)).toFixed(1)}`;
    })
    .join(' ');
}
