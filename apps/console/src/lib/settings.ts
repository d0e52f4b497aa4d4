/**
 * App settings (seed sections 3 and 9): layout switches, theme, the server menu. Changes apply at once and last
 * for the browser session (sessionStorage); "Copy Settings" gives the JSON to make them permanent.
 */
import { useSyncExternalStore } from 'react';

export type Theme = 'light' | 'dark';
export type Device = 'desktop' | 'mobile';

export interface AppSettings {
  theme: Theme;
  colorWeak: boolean;
  navbar: boolean;
  menu: boolean;
  topMenu: boolean;
  hideMenu: boolean;
  menuCollapse: boolean;
  footer: boolean;
  themeColor: string;
  menuWidth: number;
  device: Device;
  tabBar: boolean;
  menuFromServer: boolean;
  /** Route names from POST /api/user/menu; undefined until fetched. */
  serverMenu?: string[];
  /** Whether the settings drawer is open. */
  globalSettings: boolean;
}

export const DEFAULT_SETTINGS: AppSettings = {
  theme: 'light',
  colorWeak: false,
  navbar: true,
  menu: true,
  topMenu: false,
  hideMenu: false,
  menuCollapse: false,
  footer: true,
  themeColor: '#165DFF',
  menuWidth: 220,
  device: 'desktop',
  tabBar: false,
  menuFromServer: false,
  serverMenu: undefined,
  globalSettings: false,
};

const STORAGE_KEY = 'cellhub-app-settings';
/** Fields that describe this tab's moment, not a preference worth copying or restoring. */
const TRANSIENT: (keyof AppSettings)[] = ['globalSettings', 'serverMenu', 'device', 'hideMenu'];

type Listener = () => void;
const listeners = new Set<Listener>();
let current: AppSettings = load();

function load(): AppSettings {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return { ...DEFAULT_SETTINGS };
    const parsed = JSON.parse(raw) as Partial<AppSettings>;
    const merged = { ...DEFAULT_SETTINGS };
    for (const key of Object.keys(DEFAULT_SETTINGS) as (keyof AppSettings)[]) {
      if (TRANSIENT.includes(key)) continue;
      if (key in parsed && typeof parsed[key] === typeof DEFAULT_SETTINGS[key]) {
        (merged as Record<string, unknown>)[key] = parsed[key];
      }
    }
    return merged;
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

export function getSettings(): AppSettings {
  return current;
}

export function updateSettings(patch: Partial<AppSettings>): void {
  current = { ...current, ...patch };
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(current));
  } catch {
    // Storage full or blocked: the settings still apply for this page.
  }
  listeners.forEach((l) => l());
}

/** Back to the defaults; used on sign-out for the server menu, and by tests. */
export function resetSettings(): void {
  current = { ...DEFAULT_SETTINGS };
  sessionStorage.removeItem(STORAGE_KEY);
  listeners.forEach((l) => l());
}

/** The settings as "Copy Settings" hands them out: preferences only. */
export function settingsForCopy(s: AppSettings = current): Partial<AppSettings> {
  const out: Partial<AppSettings> = { ...s };
  for (const key of TRANSIENT) delete out[key];
  return out;
}

export function subscribeSettings(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSettings(): AppSettings {
  return useSyncExternalStore(subscribeSettings, getSettings);
}
