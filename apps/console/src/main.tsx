import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { matchRoutes } from 'react-router';
import { App } from './app/app';
import { currentFromMatches } from './app/current-route';
import { pageLoader } from './app/pages';
import { appRoutes, loadShell } from './app/routes';
import { isLoggedIn } from './lib/auth';
import { ensureLocale } from './lib/i18n';
import { onFirstInput } from './lib/idle';
import { getLocale } from './lib/locale-store';
import { loadErrorTable } from './lib/error-table';
import { loadToasts } from './lib/toast';
import './styles/global.css';

const locale = getLocale();
document.documentElement.lang = locale;

// Fetch the first page's chunk alongside the language pack instead of after the first render.
const first = currentFromMatches(matchRoutes(appRoutes, window.location));
if (first) void pageLoader(first.name)().catch(() => undefined);
// And the signed-in shell's, which the router would only ask for at the first render.
if (first && first.meta.requiresAuth !== false && isLoggedIn()) void loadShell().catch(() => undefined);

await ensureLocale(locale).catch(() => undefined);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// Toasts and the error code table load on first use. On the sign-in page every toast follows a click or a key
// press, so warming them at the first one has them here before anything is said.
onFirstInput(() => {
  void loadToasts().catch(() => undefined);
  void loadErrorTable();
});
