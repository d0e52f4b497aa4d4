import { afterEach, describe, expect, it } from 'vitest';
import { applyThemeColor, themeShades } from './theme-color';

/** Relative brightness 0..255 of an "r,g,b" or "#rrggbb" colour, enough to tell a light shade from a dark one. */
function brightness(color: string): number {
  const [r, g, b] = color.startsWith('#')
    ? [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16))
    : color.split(',').map((n) => Number(n.trim()));
  return 0.299 * r! + 0.587 * g! + 0.114 * b!;
}

const bodyVar = (i: number) => document.body.style.getPropertyValue(`--arcoblue-${i}`);

describe('theme colour shades', () => {
  afterEach(() => document.body.removeAttribute('style'));

  it('keeps the chosen colour as shade 6 in the light theme, light to dark', () => {
    const shades = themeShades('#165DFF', 'light');
    expect(shades).toHaveLength(10);
    expect(shades[5]!.toLowerCase()).toBe('#165dff');
    expect(brightness(shades[0]!)).toBeGreaterThan(brightness(shades[9]!));
  });

  it('turns the scale round in the dark theme: shade 1 is a dark tint, shade 6 a lighter primary', () => {
    const light = themeShades('#165DFF', 'light');
    const dark = themeShades('#165DFF', 'dark');
    expect(dark).toHaveLength(10);
    expect(brightness(dark[0]!)).toBeLessThan(brightness(dark[9]!));
    expect(brightness(dark[0]!)).toBeLessThan(brightness(light[0]!) / 2);
    expect(brightness(dark[5]!)).toBeGreaterThan(brightness(light[5]!));
  });

  it('gives the default blue the same dark shades as Arco’s own dark palette', () => {
    // Arco's dark theme stylesheet: --arcoblue-1: 0,13,77 … --arcoblue-6: 60,126,255.
    applyThemeColor('#165DFF', 'dark');
    expect(bodyVar(1).replace(/\s/g, '')).toBe('0,13,77');
    expect(bodyVar(6).replace(/\s/g, '')).toBe('60,126,255');
  });

  it('re-applies on a theme switch, so tinted backgrounds (--arcoblue-1) follow the theme', () => {
    applyThemeColor('#722ED1', 'light');
    const lightTint = bodyVar(1);
    expect(brightness(lightTint)).toBeGreaterThan(200);
    applyThemeColor('#722ED1', 'dark');
    expect(brightness(bodyVar(1))).toBeLessThan(80);
    applyThemeColor('#722ED1', 'light');
    expect(bodyVar(1)).toBe(lightTint);
  });

  it('keeps the last valid shades while the picker holds a half-typed colour', () => {
    applyThemeColor('#722ED1', 'dark');
    const before = [1, 6, 10].map(bodyVar);
    applyThemeColor('#72', 'dark');
    expect([1, 6, 10].map(bodyVar)).toEqual(before);
  });
});
