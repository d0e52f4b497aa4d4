import { APP_ROUTES, type RouteDef } from '@cellhub/contract/routes';
import { matchPath } from 'react-router';

/** The leaf route of the table that matches a pathname, and the top-level group it belongs to. */
export function findRoute(pathname: string): { route: RouteDef; group: RouteDef } | undefined {
  for (const group of APP_ROUTES) {
    const leaves = group.children?.length ? group.children : [group];
    for (const route of leaves)
      if (matchPath({ path: route.path, end: true }, pathname)) return { route, group };
  }
  return undefined;
}
