/**
 * Visited pages for the tab bar. The default landing page is always the first tab and cannot be closed.
 * Kept in memory: a reload starts with a clean bar, as in the reference.
 */
import { useSyncExternalStore } from 'react';
import { DEFAULT_ROUTE_NAME, DEFAULT_ROUTE_PATH } from '@cellhub/contract/routes';

export interface TabItem {
  name: string;
  /** Path with query, to come back to the same view. */
  fullPath: string;
  locale: string;
}

export const HOME_TAB: TabItem = {
  name: DEFAULT_ROUTE_NAME,
  fullPath: DEFAULT_ROUTE_PATH,
  locale: 'menu.dashboard.workplace',
};

let tabs: TabItem[] = [HOME_TAB];
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function getTabs(): TabItem[] {
  return tabs;
}

export function subscribeTabs(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useTabs(): TabItem[] {
  return useSyncExternalStore(subscribeTabs, getTabs);
}

/** One tab per route name; opening another detail of the same route reuses the tab. */
export function visitTab(tab: TabItem): void {
  const i = tabs.findIndex((x) => x.name === tab.name);
  if (i === -1) tabs = [...tabs, tab];
  else if (tabs[i]!.fullPath !== tab.fullPath) tabs = tabs.map((x, j) => (j === i ? tab : x));
  else return;
  emit();
}

export type CloseMode = 'current' | 'left' | 'right' | 'others' | 'all';

/** Returns the tabs left open; the home tab always stays. */
export function closeTabs(name: string, mode: CloseMode): TabItem[] {
  const i = tabs.findIndex((x) => x.name === name);
  const keep = (x: TabItem, j: number): boolean => {
    if (x.name === HOME_TAB.name) return true;
    switch (mode) {
      case 'current':
        return j !== i;
      case 'left':
        return j >= i;
      case 'right':
        return j <= i;
      case 'others':
        return j === i;
      case 'all':
        return false;
    }
  };
  tabs = tabs.filter(keep);
  emit();
  return tabs;
}

export function resetTabs(): void {
  tabs = [HOME_TAB];
  emit();
}
