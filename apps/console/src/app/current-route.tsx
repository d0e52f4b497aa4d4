/**
 * The route of the table that matches the current URL, shared through context: the guard, menu, breadcrumb and
 * tab bar all read it from here instead of matching the URL again.
 */
import { createContext, useContext } from 'react';
import type { RouteMatch } from 'react-router';
import type { RouteMeta } from '@cellhub/contract/routes';

/** What each router entry carries from the contract table, in its `handle`. */
export interface RouteHandle {
  name: string;
  meta: RouteMeta;
}

export interface CurrentRoute extends RouteHandle {
  params: Record<string, string | undefined>;
}

export function isRouteHandle(h: unknown): h is RouteHandle {
  return typeof h === 'object' && h !== null && 'name' in h && 'meta' in h;
}

/** The innermost match that comes from the table. */
export function currentFromMatches(matches: RouteMatch[] | null): CurrentRoute | undefined {
  if (!matches) return undefined;
  for (let i = matches.length - 1; i >= 0; i--) {
    const m = matches[i]!;
    if (isRouteHandle(m.route.handle)) return { ...m.route.handle, params: m.params };
  }
  return undefined;
}

export const CurrentRouteContext = createContext<CurrentRoute | undefined>(undefined);

export function useCurrentRoute(): CurrentRoute | undefined {
  return useContext(CurrentRouteContext);
}
