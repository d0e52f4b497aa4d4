/**
 * Internationalisation: zh-CN (default) and en-US. The provider also feeds Arco's configuration context so built-in
 * component texts (pagination, date pickers, form checks) follow the same language.
 */
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
// From the ConfigProvider module, not its context file: entering Arco's import cycle there keeps ConfigContext
// defined when the modules run unbundled (tests); the bundle keeps only the context (the package is side-effect free).
import { ConfigContext } from '@arco-design/web-react/es/ConfigProvider';
import { setConfigProviderProps } from '@arco-design/web-react/es/Modal/config';
import arcoZhCN from '@arco-design/web-react/es/locale/zh-CN';
import { getLocale, setLocale as storeLocale, subscribeLocale, type Locale } from './locale-store';
import { format, loadMessages, lookup, translate, type PageLocale, type TranslateVars } from './messages';
import { toast } from './toast';

export type { Locale } from './locale-store';
export type { PageLocale, TranslateVars } from './messages';
export type Translate = (key: string, vars?: TranslateVars) => string;

type ArcoLocale = typeof arcoZhCN;
const ARCO_LOCALES: Partial<Record<Locale, ArcoLocale>> = { 'zh-CN': arcoZhCN };

/**
 * Makes a locale usable: its global texts and Arco's pack. Call before switching (setLocale does) and once
 * before the first render (main.tsx), so no screen ever shows a half-translated frame.
 */
export async function ensureLocale(locale: Locale): Promise<void> {
  const arco = ARCO_LOCALES[locale]
    ? undefined
    : import('@arco-design/web-react/es/locale/en-US').then((m) => {
        ARCO_LOCALES[locale] = m.default;
      });
  await Promise.all([loadMessages(locale), arco]);
}

/** Never rejects: a language pack that cannot be downloaded keeps the current language and says so. */
async function switchLocale(locale: Locale): Promise<void> {
  try {
    await ensureLocale(locale);
  } catch {
    toast('error', translate('request.networkError'));
    return;
  }
  storeLocale(locale);
}

interface LocaleState {
  locale: Locale;
  setLocale: (locale: Locale) => Promise<void>;
}

const LocaleContext = createContext<LocaleState | null>(null);

/**
 * What Arco's ConfigProvider does for a locale, without it: ConfigProvider also imports Message and Notification
 * (to pass them a class prefix we never change), ~5 KB gzipped that the sign-in page would download for nothing.
 */
function ArcoLocaleProvider({ locale, children }: { locale: ArcoLocale; children: ReactNode }) {
  // Outside any provider this is Arco's default configuration (prefix, popup container, empty state …).
  const defaults = useContext(ConfigContext);
  const config = useMemo(() => ({ ...defaults, locale }), [defaults, locale]);
  useEffect(() => {
    // Modal.confirm and friends render outside the tree and read their button texts from here.
    setConfigProviderProps({ locale, prefixCls: 'arco' });
  }, [locale]);
  return <ConfigContext.Provider value={config}>{children}</ConfigContext.Provider>;
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const locale = useSyncExternalStore(subscribeLocale, getLocale);
  const value = useMemo<LocaleState>(() => ({ locale, setLocale: switchLocale }), [locale]);
  return (
    <LocaleContext.Provider value={value}>
      <ArcoLocaleProvider locale={ARCO_LOCALES[locale] ?? arcoZhCN}>{children}</ArcoLocaleProvider>
    </LocaleContext.Provider>
  );
}

export function useLocaleState(): LocaleState {
  const ctx = useContext(LocaleContext);
  // Outside the provider (some unit tests) the stored locale still works; changes just do not re-render.
  return ctx ?? { locale: getLocale(), setLocale: switchLocale };
}

/** `t(key, vars?)` over the page's texts (if given) and the global ones of the active locale. */
export function useLocale(pageLocale?: PageLocale): Translate {
  const { locale } = useLocaleState();
  return useCallback(
    (key: string, vars?: TranslateVars) => format(lookup(key, locale, pageLocale), vars),
    [locale, pageLocale],
  );
}
