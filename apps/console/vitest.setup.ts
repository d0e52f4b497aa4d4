import { afterAll, afterEach } from 'vitest';
import { cleanup, configure } from '@testing-library/react';
import { ensureLocale } from './src/lib/i18n';

// findBy* and waitFor wait on a condition; on a loaded CI machine a lazy chunk (the code editor) can take more than
// the default second to arrive.
configure({ asyncUtilTimeout: 5_000 });

// Vitest runs without globals, so Testing Library cannot register its own cleanup.
afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
});

// Arco components leave short animation timers (trigger popups, date pickers) running after unmount; let them
// fire while jsdom still exists, instead of after the environment is torn down ("window is not defined").
afterAll(() => new Promise((resolve) => setTimeout(resolve, 400)));

// jsdom lacks matchMedia; Arco's Grid and responsive hooks call it on mount.
if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

// English is loaded on demand in the app; tests switch languages synchronously, so load it up front.
await ensureLocale('en-US');
