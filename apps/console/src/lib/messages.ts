/**
 * Message lookup shared by React (useLocale) and plain modules (the request layer). The Chinese texts every screen
 * needs are bundled; the signed-in shell's Chinese texts arrive with the shell (addMessages), and English with
 * Arco's English pack loads on demand, so the sign-in page of a Chinese session stays small.
 */
import zhCN from '../locale/zh-CN';
import { FALLBACK_LOCALE, getLocale, type Locale } from './locale-store';

export type Messages = Record<string, string>;
/** A feature's own texts, merged over the global ones. */
export type PageLocale = Record<Locale, Messages>;
export type TranslateVars = Record<string, string | number>;

const GLOBAL_MESSAGES: Partial<Record<Locale, Messages>> = { 'zh-CN': { ...zhCN } };

/** Adds texts to a locale's global ones; a lazily loaded part of the app calls it when its module runs. */
export function addMessages(locale: Locale, messages: Messages): void {
  GLOBAL_MESSAGES[locale] = { ...GLOBAL_MESSAGES[locale], ...messages };
}

const LOADED = new Set<Locale>(['zh-CN']);

/** Loads the global texts of a locale; resolves at once when they are already here. */
export async function loadMessages(locale: Locale): Promise<void> {
  if (LOADED.has(locale)) return;
  if (locale === 'en-US') addMessages('en-US', (await import('../locale/en-US')).default);
  LOADED.add(locale);
}

export function hasMessages(locale: Locale): boolean {
  return LOADED.has(locale);
}

/** Replaces `{name}` placeholders; unknown placeholders stay visible so a missing variable is noticed. */
export function format(template: string, vars?: TranslateVars): string {
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : whole,
  );
}

export function lookup(key: string, locale: Locale, page?: PageLocale): string {
  return (
    page?.[locale]?.[key] ??
    GLOBAL_MESSAGES[locale]?.[key] ??
    page?.[FALLBACK_LOCALE]?.[key] ??
    GLOBAL_MESSAGES[FALLBACK_LOCALE]?.[key] ??
    key
  );
}

/** For code outside React; reads the active locale at call time. */
export function translate(key: string, vars?: TranslateVars, page?: PageLocale): string {
  return format(lookup(key, getLocale(), page), vars);
}
