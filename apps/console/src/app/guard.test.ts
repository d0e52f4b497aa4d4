import { describe, expect, it } from 'vitest';
import {
  APP_ROUTES,
  DEFAULT_ROUTE_PATH,
  menuNamesForRole,
  walkRoutes,
  type RouteDef,
} from '@cellhub/contract/routes';
import { findFirstPermittedPath, guard, type GuardInput, type GuardTarget } from './guard';

const userRoute: GuardTarget = {
  name: 'DeviceDetail',
  path: '/device/detail/pk1/SN001',
  meta: { requiresAuth: true, roles: ['*'] },
  params: { productKey: 'pk1', sn: 'SN001' },
  query: { tab: 'config' },
};
const adminRoute: GuardTarget = {
  name: 'FirmwareList',
  path: '/firmware/list',
  meta: { requiresAuth: true, roles: ['admin'], locale: 'menu.firmware.list' },
};
const loginRoute: GuardTarget = { name: 'login', path: '/login', meta: { requiresAuth: false } };

const base = (over: Partial<GuardInput>): GuardInput => ({
  to: userRoute,
  signedIn: true,
  role: 'user',
  menuFromServer: false,
  serverMenu: undefined,
  ...over,
});

describe('guard: not signed in', () => {
  it('opens routes that need no sign-in', () => {
    expect(guard(base({ to: loginRoute, signedIn: false, role: undefined }))).toEqual({ type: 'allow' });
    const qr: GuardTarget = { name: 'DeviceQrcode', path: '/qrcode/d/SN1', meta: { requiresAuth: false } };
    expect(guard(base({ to: qr, signedIn: false, role: undefined }))).toEqual({ type: 'allow' });
  });

  it('opens paths without route meta (unknown paths show not-found)', () => {
    const unknown: GuardTarget = { path: '/nope' };
    expect(guard(base({ to: unknown, signedIn: false, role: undefined }))).toEqual({ type: 'allow' });
  });

  it('sends everything else to login with the route name, its params and query as redirect', () => {
    expect(guard(base({ signedIn: false, role: undefined }))).toEqual({
      type: 'login',
      query: { redirect: 'DeviceDetail', productKey: 'pk1', sn: 'SN001', tab: 'config' },
    });
  });

  it('never lets a query parameter replace the redirect name', () => {
    const to = { ...adminRoute, query: { redirect: 'evil' } };
    expect(guard(base({ to, signedIn: false, role: undefined }))).toEqual({
      type: 'login',
      query: { redirect: 'FirmwareList' },
    });
  });
});

describe('guard: signed in, role unknown', () => {
  it('asks for the user info', () => {
    expect(guard(base({ role: undefined }))).toEqual({ type: 'fetchUserInfo' });
  });

  it('signs out and goes to login when the user info fails', () => {
    expect(guard(base({ role: undefined, userInfoFailed: true }))).toEqual({
      type: 'logout',
      query: { redirect: 'DeviceDetail', productKey: 'pk1', sn: 'SN001', tab: 'config' },
    });
  });

  it('does not need the role for public routes', () => {
    expect(guard(base({ to: loginRoute, role: undefined }))).toEqual({ type: 'allow' });
  });
});

describe('guard: permissions from the route table', () => {
  it('allows a route open to any role', () => {
    expect(guard(base({}))).toEqual({ type: 'allow' });
  });

  it('allows a route that lists the role', () => {
    expect(guard(base({ to: adminRoute, role: 'admin' }))).toEqual({ type: 'allow' });
  });

  it('allows a signed-in route without roles', () => {
    const redirect: GuardTarget = { name: 'Redirect', path: '/redirect/x', meta: { requiresAuth: true } };
    expect(guard(base({ to: redirect }))).toEqual({ type: 'allow' });
  });

  it('sends a user opening an admin route to the first permitted route', () => {
    expect(guard(base({ to: adminRoute, role: 'user' }))).toEqual({
      type: 'redirect',
      path: DEFAULT_ROUTE_PATH,
      denied: { path: '/firmware/list', locale: 'menu.firmware.list' },
    });
  });

  it('shows not-found when no route at all is permitted', () => {
    const routes: RouteDef[] = [
      { path: '/a', name: 'a', meta: { requiresAuth: true, roles: ['admin'], locale: 'a' } },
    ];
    expect(guard(base({ to: adminRoute, role: 'user', routes }))).toEqual({ type: 'notFound' });
  });
});

describe('guard: menu from the server', () => {
  const on = (over: Partial<GuardInput>) => base({ menuFromServer: true, ...over });

  it('loads the server menu first', () => {
    expect(guard(on({ serverMenu: undefined }))).toEqual({ type: 'fetchServerMenu' });
  });

  it('does not wait for the menu on whitelisted routes', () => {
    const redirect: GuardTarget = { name: 'Redirect', path: '/redirect/x', meta: { requiresAuth: true } };
    expect(guard(on({ to: redirect, serverMenu: undefined }))).toEqual({ type: 'allow' });
  });

  it('allows a permitted route that is in the menu', () => {
    expect(guard(on({ serverMenu: ['device', 'DeviceDetail'] }))).toEqual({ type: 'allow' });
  });

  it('shows not-found for a route missing from the menu, even when the role allows it', () => {
    expect(guard(on({ serverMenu: ['device', 'DeviceList'] }))).toEqual({ type: 'notFound' });
  });

  it('shows not-found for a route in the menu that the role may not open', () => {
    expect(guard(on({ to: adminRoute, serverMenu: ['FirmwareList'] }))).toEqual({ type: 'notFound' });
  });

  it("opens every page the seed opens to a user with the server's own menu for users", () => {
    const serverMenu = menuNamesForRole('user');
    const byName = new Map([...walkRoutes()].map((r) => [r.name, r]));
    for (const name of ['ApplicationList', 'ApplicationCreate', 'ApplicationVersion', 'CardAdminPackage']) {
      const r = byName.get(name)!;
      const to: GuardTarget = { name, path: r.path, meta: r.meta };
      expect(guard(on({ to, serverMenu })), name).toEqual({ type: 'allow' });
    }
    for (const name of ['CardAdminPackageCreate', 'FirmwareList', 'ApplicationList']) {
      const r = byName.get(name)!;
      const to: GuardTarget = { name, path: r.path, meta: r.meta };
      const expected = name === 'ApplicationList' ? 'allow' : 'notFound';
      expect(guard(on({ to, serverMenu })).type, name).toBe(expected);
    }
  });

  it('shows not-found when the menu failed to load (empty)', () => {
    expect(guard(on({ serverMenu: [] }))).toEqual({ type: 'notFound' });
  });
});

describe('findFirstPermittedPath', () => {
  const leaf = (path: string, name: string, roles: ('admin' | 'user' | '*')[], extra = {}): RouteDef => ({
    path,
    name,
    meta: { requiresAuth: true, roles, locale: name, ...extra },
  });

  it('searches level by level and resolves a group to its permitted redirect child', () => {
    const routes: RouteDef[] = [
      { ...leaf('/admin', 'admin', ['admin']), children: [leaf('/admin/x', 'X', ['admin'])] },
      {
        ...leaf('/g', 'g', ['*']),
        redirect: '/g/b',
        children: [leaf('/g/a', 'A', ['*']), leaf('/g/b', 'B', ['*'])],
      },
    ];
    expect(findFirstPermittedPath(routes, 'user')).toBe('/g/b');
    expect(findFirstPermittedPath(routes, 'admin')).toBe('/admin/x');
  });

  it('skips a redirect child the role may not open, and routes with parameters', () => {
    const routes: RouteDef[] = [
      {
        ...leaf('/g', 'g', ['*']),
        redirect: '/g/403',
        children: [leaf('/g/403', 'F', ['admin']), leaf('/g/d/:id', 'D', ['*']), leaf('/g/404', 'N', ['*'])],
      },
    ];
    expect(findFirstPermittedPath(routes, 'user')).toBe('/g/404');
  });

  it('finds a permitted leaf below a group the role may not open', () => {
    const routes: RouteDef[] = [
      { ...leaf('/app', 'app', ['admin']), children: [leaf('/app/list', 'L', ['*'])] },
    ];
    expect(findFirstPermittedPath(routes, 'user')).toBe('/app/list');
  });

  it('lands users and admins on the Workplace with the real table', () => {
    expect(findFirstPermittedPath(APP_ROUTES, 'user')).toBe(DEFAULT_ROUTE_PATH);
    expect(findFirstPermittedPath(APP_ROUTES, 'admin')).toBe(DEFAULT_ROUTE_PATH);
  });
});
