import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, getSettings, resetSettings, settingsForCopy, updateSettings } from './settings';

beforeEach(() => resetSettings());

describe('settings store', () => {
  it('starts from the defaults of seed section 9', () => {
    expect(getSettings()).toMatchObject({
      theme: 'light',
      themeColor: '#165DFF',
      menuWidth: 220,
      device: 'desktop',
      navbar: true,
      menu: true,
      footer: true,
      tabBar: false,
      menuFromServer: false,
      colorWeak: false,
    });
  });

  it('persists preferences in sessionStorage', () => {
    updateSettings({ theme: 'dark', menuWidth: 260 });
    const stored = JSON.parse(sessionStorage.getItem('cellhub-app-settings')!) as Record<string, unknown>;
    expect(stored).toMatchObject({ theme: 'dark', menuWidth: 260 });
    expect(localStorage.getItem('cellhub-app-settings')).toBeNull();
  });

  it('copies preferences only, not the open drawer or the fetched menu', () => {
    updateSettings({ globalSettings: true, serverMenu: ['a'], tabBar: true });
    const copy = settingsForCopy();
    expect(copy).not.toHaveProperty('globalSettings');
    expect(copy).not.toHaveProperty('serverMenu');
    expect(copy.tabBar).toBe(true);
    expect(Object.keys(copy).sort()).toEqual(
      Object.keys(DEFAULT_SETTINGS)
        .filter((k) => !['globalSettings', 'serverMenu', 'device', 'hideMenu'].includes(k))
        .sort(),
    );
  });
});
