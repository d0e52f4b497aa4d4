import { useEffect, useMemo } from 'react';
import { BrowserRouter, matchRoutes, useLocation, useRoutes } from 'react-router';
import { I18nProvider } from '../lib/i18n';
import { useSettings } from '../lib/settings';
import { CurrentRouteContext, currentFromMatches } from './current-route';
import { ErrorBoundary } from './error-boundary';
import { appRoutes } from './routes';

/** Theme and colour-weak apply to the whole document, the login page included (seed section 4). */
function useDocumentTheme() {
  const { theme, colorWeak } = useSettings();
  useEffect(() => {
    if (theme === 'dark') document.body.setAttribute('arco-theme', 'dark');
    else document.body.removeAttribute('arco-theme');
  }, [theme]);
  useEffect(() => {
    // On body rather than #root so popups rendered into body portals are inverted too.
    document.body.style.filter = colorWeak ? 'invert(80%)' : '';
  }, [colorWeak]);
}

function AppRoutes() {
  const location = useLocation();
  const element = useRoutes(appRoutes, location);
  const current = useMemo(() => currentFromMatches(matchRoutes(appRoutes, location)), [location]);
  return (
    <CurrentRouteContext.Provider value={current}>
      <ErrorBoundary key={location.pathname}>{element}</ErrorBoundary>
    </CurrentRouteContext.Provider>
  );
}

export function App() {
  useDocumentTheme();
  return (
    <I18nProvider>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </I18nProvider>
  );
}
