import { describe, expect, it } from 'vitest';
import { act, render, renderHook, screen } from '@testing-library/react';
import { APP_ROUTES, PUBLIC_ROUTES, walkRoutes } from '@cellhub/contract/routes';
import zhCNBase from '../locale/zh-CN';
import zhCNShell from '../locale/zh-CN-shell';
import enUS from '../locale/en-US';
import { I18nProvider, useLocale, useLocaleState } from './i18n';
import { format } from './messages';

const zhCN = { ...zhCNBase, ...zhCNShell };

describe('global locale files', () => {
  it('keep every public route title in the Chinese pack the sign-in page downloads', () => {
    for (const r of walkRoutes(PUBLIC_ROUTES))
      expect(zhCNBase, r.meta.locale).toHaveProperty([r.meta.locale]);
  });

  it('split Chinese into the base and shell parts without a key in both', () => {
    const both = Object.keys(zhCNShell).filter((k) => k in zhCNBase);
    expect(both).toEqual([]);
  });

  it('translate every route title of the contract table in both languages', () => {
    for (const r of walkRoutes([...APP_ROUTES, ...PUBLIC_ROUTES])) {
      expect(zhCN, r.meta.locale).toHaveProperty([r.meta.locale]);
      expect(enUS, r.meta.locale).toHaveProperty([r.meta.locale]);
    }
  });

  it('have the same keys', () => {
    expect(Object.keys(zhCN).sort()).toEqual(Object.keys(enUS).sort());
  });
});

describe('useLocale', () => {
  const page = {
    'zh-CN': { 'p.hello': '你好，{name}', 'common.ok': '好的' },
    'en-US': { 'p.hello': 'Hello, {name}' },
  };

  it('defaults to zh-CN, merges the page texts over the global ones, and fills placeholders', () => {
    const { result } = renderHook(() => useLocale(page), { wrapper: I18nProvider });
    expect(result.current('p.hello', { name: 'Ann' })).toBe('你好，Ann');
    expect(result.current('common.ok')).toBe('好的');
    expect(result.current('common.cancel')).toBe('取消');
    expect(result.current('no.such.key')).toBe('no.such.key');
  });

  it('switches language, stores it under arco-locale and re-renders', async () => {
    function Probe() {
      const t = useLocale(page);
      const { setLocale } = useLocaleState();
      return (
        <button type="button" onClick={() => void setLocale('en-US')}>
          {t('p.hello', { name: 'Ann' })}
        </button>
      );
    }
    render(
      <I18nProvider>
        <Probe />
      </I18nProvider>,
    );
    expect(screen.getByRole('button').textContent).toBe('你好，Ann');
    await act(async () => screen.getByRole('button').click());
    expect(screen.getByRole('button').textContent).toBe('Hello, Ann');
    expect(localStorage.getItem('arco-locale')).toBe('en-US');
  });

  it('keeps unknown placeholders visible', () => {
    expect(format('{a} and {b}', { a: 1 })).toBe('1 and {b}');
  });
});
