/**
 * The theme colour (seed section 9: #165DFF and 10 generated shades). Arco reads its primary colour from the
 * `--arcoblue-1..10` variables (as "r,g,b"; `--primary-*` point at them), so overriding them on body recolours
 * every component. Inline values on body beat Arco's dark stylesheet, so the dark theme needs its own generated
 * scale (shade 1 a dark tint, shade 6 a lighter primary), re-applied whenever the theme switches.
 */
import { generate, getRgbStr } from '@arco-design/color';
import type { Theme } from '../lib/settings';

export function themeShades(color: string, theme: Theme): string[] {
  return generate(color, { list: true, dark: theme === 'dark' });
}

export function applyThemeColor(color: string, theme: Theme): void {
  let shades: string[];
  try {
    shades = themeShades(color, theme);
  } catch {
    return; // half-typed colour in the picker: keep the last valid one
  }
  shades.forEach((shade, i) => {
    document.body.style.setProperty(`--arcoblue-${i + 1}`, getRgbStr(shade));
  });
}
