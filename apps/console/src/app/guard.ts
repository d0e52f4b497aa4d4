/**
 * The route guard of seed section 6, as a pure function over the route table so every branch is unit-tested.
 * A thin component (route-guard.tsx) feeds it the router state and carries out the action it returns.
 */
import {
  APP_ROUTES,
  REDIRECT_ROUTE_NAME,
  WHITE_LIST,
  routeAllows,
  type Role,
  type RouteDef,
  type RouteMeta,
} from '@cellhub/contract/routes';

export interface GuardTarget {
  /** Route name from the table; undefined for paths the table does not know. */
  name?: string;
  path: string;
  meta?: Pick<RouteMeta, 'requiresAuth' | 'roles'> & { locale?: string };
  /** Path parameters (`:sn` …); carried to the login page so the same page can be reopened after sign-in. */
  params?: Record<string, string | undefined>;
  query?: Record<string, string>;
}

/** The guard's view of where the router is going: the matched table route (if any) and the URL. */
export function guardTarget(
  current: Pick<GuardTarget, 'name' | 'meta' | 'params'> | undefined,
  location: { pathname: string; search: string },
): GuardTarget {
  return {
    name: current?.name,
    path: location.pathname,
    meta: current?.meta,
    params: current?.params,
    query: Object.fromEntries(new URLSearchParams(location.search)),
  };
}

export interface GuardInput {
  to: GuardTarget;
  signedIn: boolean;
  /** Undefined while the user info is not loaded. */
  role: Role | undefined;
  /** The user info request failed. */
  userInfoFailed?: boolean;
  menuFromServer: boolean;
  /** Names from POST /api/user/menu; undefined until loaded. */
  serverMenu: readonly string[] | undefined;
  routes?: RouteDef[];
}

export type GuardAction =
  | { type: 'allow' }
  /** Go to /login with these query parameters (`redirect` = the intended route name). */
  | { type: 'login'; query: Record<string, string> }
  | { type: 'fetchUserInfo' }
  /** User info failed: sign out, then the same as `login`. */
  | { type: 'logout'; query: Record<string, string> }
  | { type: 'fetchServerMenu' }
  /** No access: the first route the role may open; `denied` is the refused route, for the notice on arrival. */
  | { type: 'redirect'; path: string; denied: { path: string; locale?: string } }
  | { type: 'notFound' };

/** Reachable with the server menu on, whatever it says. The redirect route is plumbing, not a page. */
const ALWAYS_IN_MENU = new Set<string>([...WHITE_LIST, REDIRECT_ROUTE_NAME]);

function loginQuery(to: GuardTarget): Record<string, string> {
  const query: Record<string, string> = { redirect: to.name ?? to.path };
  for (const [k, v] of Object.entries(to.params ?? {})) if (v !== undefined && k !== '*') query[k] = v;
  for (const [k, v] of Object.entries(to.query ?? {})) if (k !== 'redirect') query[k] = v;
  return query;
}

function isPublic(to: GuardTarget): boolean {
  return !to.meta || !to.meta.requiresAuth;
}

/** Breadth-first, like the reference's search of the route tree: a whole level before the next, so groups first. */
export function findFirstPermittedPath(routes: RouteDef[], role: Role): string | undefined {
  const queue = [...routes];
  while (queue.length) {
    const r = queue.shift()!;
    if (r.meta.requiresAuth && r.meta.roles?.length && routeAllows(r.meta, role) && !r.path.includes(':')) {
      if (!r.children?.length) return r.path;
      const children = r.children.filter((c) => routeAllows(c.meta, role) && !c.path.includes(':'));
      const viaRedirect = children.find((c) => c.path === r.redirect);
      const target = viaRedirect ?? children[0];
      if (target) return target.path;
    }
    if (r.children) queue.push(...r.children);
  }
  return undefined;
}

export function guard(input: GuardInput): GuardAction {
  const { to, signedIn, role } = input;
  const routes = input.routes ?? APP_ROUTES;

  // Routes that need no sign-in (login, register, the device QR page, not-found) open for everyone.
  if (isPublic(to)) return { type: 'allow' };

  if (!signedIn) return { type: 'login', query: loginQuery(to) };

  if (role === undefined) {
    return input.userInfoFailed ? { type: 'logout', query: loginQuery(to) } : { type: 'fetchUserInfo' };
  }

  const allowed = routeAllows(to.meta!, role);

  if (input.menuFromServer) {
    const whitelisted = to.name !== undefined && ALWAYS_IN_MENU.has(to.name);
    if (!input.serverMenu && !whitelisted) return { type: 'fetchServerMenu' };
    const inMenu = whitelisted || (to.name !== undefined && (input.serverMenu ?? []).includes(to.name));
    return inMenu && allowed ? { type: 'allow' } : { type: 'notFound' };
  }

  if (allowed) return { type: 'allow' };
  const first = findFirstPermittedPath(routes, role);
  return first
    ? { type: 'redirect', path: first, denied: { path: to.path, locale: to.meta?.locale } }
    : { type: 'notFound' };
}

export function loginUrl(query: Record<string, string>): string {
  return `/login?${new URLSearchParams(query).toString()}`;
}
