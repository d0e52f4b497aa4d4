/**
 * Internationalisation: zh-CN (default) and en-US. The provider also feeds Arco's ConfigProvider so built-in
 * component texts (pagination, date pickers, empty states) follow the same language.
 */
import { createContext, useCallback, useContext, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { ConfigProvider } from '@arco-design/web-react';
import arcoZhCN from '@arco-design/web-react/es/locale/zh-CN';
import arcoEnUS from '@arco-design/web-react/es/locale/en-US';
import { getLocale, setLocale as storeLocale, subscribeLocale, type Locale } from './locale-store';
import { format, lookup, type PageLocale, type TranslateVars } from './messages';

export type { Locale } from './locale-store';
export type { PageLocale, TranslateVars } from './messages';
export type Translate = (key: string, vars?: TranslateVars) => string;

const ARCO_LOCALES = { 'zh-CN': arcoZhCN, 'en-US': arcoEnUS } as const;

interface LocaleState {
  locale: Locale;
  setLocale: (locale: Locale) => void;
}

const LocaleContext = createContext<LocaleState | null>(null);

export function I18nProvider({ children }: { children: ReactNode }) {
  const locale = useSyncExternalStore(subscribeLocale, getLocale);
  const value = useMemo<LocaleState>(() => ({ locale, setLocale: storeLocale }), [locale]);
  return (
    <LocaleContext.Provider value={value}>
      <ConfigProvider locale={ARCO_LOCALES[locale]}>{children}</ConfigProvider>
    </LocaleContext.Provider>
  );
}

export function useLocaleState(): LocaleState {
  const ctx = useContext(LocaleContext);
  // Outside the provider (some unit tests) the stored locale still works; changes just do not re-render.
  return ctx ?? { locale: getLocale(), setLocale: storeLocale };
}

/** `t(key, vars?)` over the page's texts (if given) and the global ones of the active locale. */
export function useLocale(pageLocale?: PageLocale): Translate {
  const { locale } = useLocaleState();
  return useCallback(
    (key: string, vars?: TranslateVars) => format(lookup(key, locale, pageLocale), vars),
    [locale, pageLocale],
  );
}
