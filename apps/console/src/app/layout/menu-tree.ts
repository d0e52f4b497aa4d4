/**
 * The menu, breadcrumb and highlight rules over the contract's route table, kept pure so they are unit-tested.
 * The menu shows what the role may open, in `meta.order`, without hidden routes; with the server menu on, only
 * the names the server sent.
 */
import { APP_ROUTES, routeAllows, type Role, type RouteDef } from '@cellhub/contract/routes';

export interface MenuNode {
  name: string;
  path: string;
  locale: string;
  icon?: string;
  children?: MenuNode[];
}

export function buildMenu(
  role: Role | undefined,
  serverMenu?: readonly string[],
  routes: RouteDef[] = APP_ROUTES,
): MenuNode[] {
  const shows = (def: RouteDef) =>
    !def.meta.hideInMenu && routeAllows(def.meta, role) && (!serverMenu || serverMenu.includes(def.name));
  const sorted = routes
    .map((def, i) => ({ def, i }))
    .sort((a, b) => (a.def.meta.order ?? 0) - (b.def.meta.order ?? 0) || a.i - b.i)
    .map((x) => x.def);

  const out: MenuNode[] = [];
  for (const def of sorted) {
    if (!shows(def)) continue;
    const node: MenuNode = { name: def.name, path: def.path, locale: def.meta.locale, icon: def.meta.icon };
    if (def.children?.length) {
      const children = def.children
        .filter(shows)
        .map((c) => ({ name: c.name, path: c.path, locale: c.meta.locale, icon: c.meta.icon }));
      // A group whose children are all hidden has nothing to open.
      if (children.length === 0) continue;
      node.children = children;
    }
    out.push(node);
  }
  return out;
}

interface Located {
  route: RouteDef;
  parents: RouteDef[];
}

function locate(name: string, routes: RouteDef[], parents: RouteDef[] = []): Located | undefined {
  for (const r of routes) {
    if (r.name === name) return { route: r, parents };
    if (r.children) {
      const found = locate(name, r.children, [...parents, r]);
      if (found) return found;
    }
  }
  return undefined;
}

/** Menu keys for the current route: a hidden detail page highlights its `activeMenu` item and opens its group. */
export function menuSelection(
  name: string | undefined,
  routes: RouteDef[] = APP_ROUTES,
): { selectedKeys: string[]; openKeys: string[] } {
  if (!name) return { selectedKeys: [], openKeys: [] };
  const here = locate(name, routes);
  if (!here) return { selectedKeys: [], openKeys: [] };
  const active = here.route.meta.activeMenu ? (locate(here.route.meta.activeMenu, routes) ?? here) : here;
  return {
    selectedKeys: [active.route.name],
    openKeys: active.parents.map((p) => p.name),
  };
}

/** Breadcrumb items (locale keys), group first. */
export function breadcrumbTrail(name: string | undefined, routes: RouteDef[] = APP_ROUTES): string[] {
  if (!name) return [];
  const here = locate(name, routes);
  if (!here) return [];
  return [...here.parents.map((p) => p.meta.locale), here.route.meta.locale];
}

export function findRoute(name: string, routes: RouteDef[] = APP_ROUTES): RouteDef | undefined {
  return locate(name, routes)?.route;
}
