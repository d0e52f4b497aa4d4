import { createContext, useContext, useSyncExternalStore } from 'react';
import { isStale } from '../scene-editor-model';
import { type SceneLiveStore, type LiveValue, type TrendPoint } from '../scene-live-store';

/** What a live widget reads: the store, each binding's cycle, and whether the viewer may write. */
export interface LiveContextValue {
  store: SceneLiveStore;
  /** `sn\u0000key` -> report cycle in seconds (null: unknown). */
  cycles: Map<string, number | null>;
  /** Devices the caller may write to. */
  control: (sn: string) => boolean;
  /** Writes a control widget's value; resolves to the device's answer text. */
  write?: (widgetId: string, value: number | boolean) => Promise<string>;
}

export const LiveContext = createContext<LiveContextValue | null>(null);

export function useLive(): LiveContextValue | null {
  return useContext(LiveContext);
}

const none = () => () => undefined;

/** The binding's latest value; re-renders only when this binding changes. */
export function useLiveValue(sn: string | undefined, key: string | undefined): LiveValue | undefined {
  const live = useLive();
  return useSyncExternalStore(live && sn && key ? (cb) => live.store.subscribe(sn, key, cb) : none, () =>
    live && sn && key ? live.store.get(sn, key) : undefined,
  );
}

/** Whether the binding's value is older than its cycle allows; re-renders only when that flips. */
export function useStale(sn: string | undefined, key: string | undefined, ts: number | undefined): boolean {
  const live = useLive();
  return useSyncExternalStore(live ? live.store.subscribeClock : none, () =>
    live && sn && key ? isStale(ts, live.cycles.get(`${sn}\u0000${key}`), live.store.now()) : false,
  );
}

export function useOnline(sn: string | undefined): boolean | undefined {
  const live = useLive();
  return useSyncExternalStore(live && sn ? (cb) => live.store.subscribeDevice(sn, cb) : none, () =>
    live && sn ? live.store.isOnline(sn) : undefined,
  );
}

/** Trend points; re-reads on each value of the binding and each clock tick (the window slides). */
export function useTrend(
  sn: string | undefined,
  key: string | undefined,
): { points?: TrendPoint[]; now: number } {
  const live = useLive();
  const v = useLiveValue(sn, key);
  const now = useSyncExternalStore(live ? live.store.subscribeClock : none, () => live?.store.now() ?? 0);
  void v;
  return { points: live && sn && key ? live.store.points(sn, key) : undefined, now };
}
