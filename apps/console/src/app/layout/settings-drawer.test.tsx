import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, updateSettings } from '../../lib/settings';
import { themeShades } from '../theme-color';
import { SettingsDrawer } from './settings-drawer';

function shownShades(): string[] {
  const list = screen.getByRole('list', {
    name: '10 gradient colors generated according to the theme color',
  });
  return [...list.querySelectorAll('li')].map((li) => li.style.backgroundColor);
}

/** jsdom reports inline colours as rgb(); the generator answers hex. */
const asRgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

describe('settings drawer theme colour', () => {
  afterEach(() => updateSettings({ ...DEFAULT_SETTINGS }));

  it('shows the shades the page actually uses: light ones in light, dark ones in dark', () => {
    localStorage.setItem('arco-locale', 'en-US');
    updateSettings({ globalSettings: true, theme: 'light', themeColor: '#722ED1' });
    render(<SettingsDrawer />);
    expect(shownShades()).toEqual(themeShades('#722ED1', 'light').map(asRgb));
    act(() => updateSettings({ theme: 'dark' }));
    expect(shownShades()).toEqual(themeShades('#722ED1', 'dark').map(asRgb));
  });
});
