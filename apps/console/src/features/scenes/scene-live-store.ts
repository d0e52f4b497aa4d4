/**
 * Live values of a scene, keyed by binding. Each widget listens to its own `{sn,key}` only, so a WebSocket message
 * that changes one variable wakes only the widgets bound to it; trends keep a short ring of points.
 *
 * Values are stored at once, but listeners are woken through a scheduler: synchronously by default (tests), and in
 * the live view once per animation frame at most every FRAME_BATCH_MS (`frameScheduler`), so 40 device messages a
 * second become a few rendered frames a second instead of 40 (bench/scene.mjs: each frame that changes the SVG
 * costs style, layout and paint of the scene, far more than the few text nodes that changed).
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
/** Runs `flush` later (or now); called once per batch of changes. */
export type Scheduler = (flush: () => void) => void;

/** The live view's default batch: at most one render of changed widgets every 250 ms. */
export const FRAME_BATCH_MS = 500;

/** Wakes listeners in the next animation frame, no sooner than `minIntervalMs` after the previous wake-up. */
export function frameScheduler(minIntervalMs = FRAME_BATCH_MS): Scheduler {
  let last = -Infinity;
  return (flush) => {
    const run = () => {
      last = performance.now();
      flush();
    };
    const wait = last + minIntervalMs - performance.now();
    if (wait > 0) setTimeout(() => requestAnimationFrame(run), wait);
    else requestAnimationFrame(run);
  };
}

const immediately: Scheduler = (flush) => flush();

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
  private readonly pending = new Set<Listener>();
  private scheduled = false;
  private readonly schedule: Scheduler;

  constructor(options: { schedule?: Scheduler } = {}) {
    this.schedule = options.schedule ?? immediately;
  }

  private wake(set: Iterable<Listener> | undefined): void {
    if (!set) return;
    for (const l of set) this.pending.add(l);
    if (this.scheduled || this.pending.size === 0) return;
    this.scheduled = true;
    this.schedule(this.flush);
  }

  /** Wakes every listener with a change since the last flush (each once). */
  flush = (): void => {
    this.scheduled = false;
    const ls = [...this.pending];
    this.pending.clear();
    for (const l of ls) l();
  };

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
    this.wake(this.clockListeners);
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
    const woken: Listener[] = [];
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
      if (set) woken.push(...set);
    }
    this.wake(woken);
  }

  /** Starts keeping a trend for a binding, seeded with history (oldest first). */
  trackSeries(sn: string, key: string, history: TrendPoint[] = []): void {
    const k = bindingKey(sn, key);
    const cur = this.series.get(k) ?? [];
    const merged = [...history, ...cur].sort((a, b) => a.t - b.t);
    this.series.set(k, merged.slice(-MAX_POINTS));
    this.wake(this.listeners.get(k));
  }

  setOnline(sn: string, online: boolean): void {
    if (this.online.get(sn) === online) return;
    this.online.set(sn, online);
    this.wake(this.deviceListeners.get(sn));
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
