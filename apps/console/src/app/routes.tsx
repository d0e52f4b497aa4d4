/**
 * The route objects, generated from the contract's route table: public routes, the signed-in routes inside the
 * lazily loaded shell, group paths redirecting to their first child, `/redirect/*`, and not-found for the rest.
 * Pages and the shell load on demand, so /login downloads neither the layout nor the other pages.
 */
import { lazy, Suspense } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import {
  APP_ROUTES,
  NOT_FOUND_ROUTE_NAME,
  PUBLIC_ROUTES,
  REDIRECT_ROUTE_NAME,
  SUBGROUP_REDIRECTS,
  type RouteDef,
  type RouteMeta,
} from '@cellhub/contract/routes';
import type { RouteHandle } from './current-route';
import { FullPageLoading } from './full-page-loading';
import { LazyPage } from './lazy-page';
import { PublicGuard } from './public-guard';

/** The signed-in shell's chunk; main.tsx starts it with the first page's when the first page is behind sign-in. */
export const loadShell = () => import('./layout/protected-shell');
const Shell = lazy(loadShell);
const RedirectPage = lazy(() => import('./redirect-page'));

const handleOf = (name: string, meta: RouteMeta): RouteHandle => ({ name, meta });

/** Flattens a group: its own path redirects, its children are siblings (all paths are absolute). */
export function routeObjects(defs: RouteDef[]): RouteObject[] {
  const out: RouteObject[] = [];
  for (const def of defs) {
    if (def.children?.length) {
      out.push({
        path: def.path,
        handle: handleOf(def.name, def.meta),
        element: <Navigate to={def.redirect ?? def.children[0]!.path} replace />,
      });
      out.push(...routeObjects(def.children));
    } else {
      out.push({
        path: def.path,
        handle: handleOf(def.name, def.meta),
        element: <LazyPage name={def.name} />,
      });
    }
  }
  return out;
}

/** Sub-group paths (`/alert/config`) redirect to their list; the guard sees them as their group. */
export function subgroupRedirects(defs: RouteDef[] = APP_ROUTES): RouteObject[] {
  return SUBGROUP_REDIRECTS.map((r) => {
    const group = defs.find((d) => d.name === r.group)!;
    return {
      path: r.path,
      handle: handleOf(group.name, group.meta),
      element: <Navigate to={r.to} replace />,
    };
  });
}

const REDIRECT_META: RouteMeta = { requiresAuth: true, hideInMenu: true, locale: 'menu.redirect' };
const NOT_FOUND_META: RouteMeta = { requiresAuth: false, locale: 'menu.notFound' };

export const appRoutes: RouteObject[] = [
  {
    element: <PublicGuard />,
    children: [
      { path: '/', element: <Navigate to="/login" replace /> },
      ...routeObjects(PUBLIC_ROUTES),
      {
        element: (
          <Suspense fallback={<FullPageLoading />}>
            <Shell />
          </Suspense>
        ),
        children: [
          ...routeObjects(APP_ROUTES),
          ...subgroupRedirects(),
          {
            path: '/redirect/*',
            handle: handleOf(REDIRECT_ROUTE_NAME, REDIRECT_META),
            element: (
              <Suspense fallback={null}>
                <RedirectPage />
              </Suspense>
            ),
          },
          // Inside the shell so a signed-in user keeps the menus; signed out it renders on its own.
          {
            path: '*',
            handle: handleOf(NOT_FOUND_ROUTE_NAME, NOT_FOUND_META),
            element: <LazyPage name="notFound" />,
          },
        ],
      },
    ],
  },
];
