import { DEFAULT_ROUTE_PATH, walkRoutes } from '@cellhub/contract/routes';

/**
 * Where to go after signing in. The guard sends people to `/login?redirect=<route name>&<its query>`; the route
 * name is looked up in the route table, path parameters (`:sn`) are filled from the query of the same name and
 * the rest stays as the query. Anything unknown lands on the Workplace, so a crafted link cannot send a freshly
 * signed-in user off-site.
 */
export function resolveRedirect(search: URLSearchParams): string {
  const name = search.get('redirect');
  if (!name) return DEFAULT_ROUTE_PATH;
  const query = new URLSearchParams(search);
  query.delete('redirect');

  let path: string | undefined;
  for (const r of walkRoutes()) {
    if (r.name === name && !r.children?.length) {
      path = r.path;
      break;
    }
  }
  if (!path) return DEFAULT_ROUTE_PATH;

  let missing = false;
  const filled = path.replace(/:([A-Za-z]+)/g, (_m, key: string) => {
    const v = query.get(key);
    if (v === null) {
      missing = true;
      return '';
    }
    query.delete(key);
    return encodeURIComponent(v);
  });
  if (missing) return DEFAULT_ROUTE_PATH;
  const qs = query.toString();
  return qs ? `${filled}?${qs}` : filled;
}
