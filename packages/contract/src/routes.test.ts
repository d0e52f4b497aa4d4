import { describe, expect, it } from 'vitest';
import { APP_ROUTES, SUBGROUP_REDIRECTS, menuNamesForRole, routeAllows, walkRoutes } from './routes';

describe('route table', () => {
  it('has unique names', () => {
    const names = [...walkRoutes()].map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('puts groups in the seed menu order', () => {
    // The table itself is written in an order close to the menu; the menu sorts it. Every group, in order.
    const groups = new Set(APP_ROUTES.map((r) => r.name));
    expect(menuNamesForRole('admin').filter((name) => groups.has(name))).toEqual([
      'dashboard',
      'visualization',
      'list',
      'form',
      'profile',
      'result',
      'exception',
      'user',
      'product',
      'device',
      'firmware',
      'ota',
      'card',
      'Share',
      'scene',
      'application',
      'ruleSetting',
      'accesskey',
      'alert',
      'dataTransmit',
      'myshare',
      'script',
      'deviceAdmin',
      'cardAdmin',
      'platform',
      'productive',
      'hw',
      'system',
    ]);
    const orders = APP_ROUTES.map((r) => r.meta.order ?? 0).sort((a, b) => a - b);
    expect([orders[0], orders.at(-1)]).toEqual([0, 99]);
  });

  it('answers access as seed section 6 says', () => {
    expect(routeAllows({ requiresAuth: false }, undefined)).toBe(true);
    expect(routeAllows({ requiresAuth: true }, 'user')).toBe(true);
    expect(routeAllows({ requiresAuth: true, roles: ['*'] }, 'user')).toBe(true);
    expect(routeAllows({ requiresAuth: true, roles: ['admin'] }, 'user')).toBe(false);
    expect(routeAllows({ requiresAuth: true, roles: ['admin'] }, 'admin')).toBe(true);
    expect(routeAllows({ requiresAuth: true, roles: ['admin'] }, undefined)).toBe(false);
  });

  it('gives users no admin areas in the server menu', () => {
    const user = menuNamesForRole('user');
    const admin = menuNamesForRole('admin');
    for (const adminOnly of [
      'firmware',
      'FirmwareList',
      'platform',
      'system',
      'SystemSetting',
      'cardAdmin',
      'application',
    ])
      expect(user).not.toContain(adminOnly);
    for (const name of [
      'dashboard',
      'Workplace',
      'DeviceList',
      'FirmwareList',
      'SystemSetting',
      'CardAdminPackage',
    ])
      expect(admin).toContain(name);
    expect(user).toContain('DeviceList');
    expect(user).toContain('CardList');
    expect(user).not.toContain('CardOrder');
  });

  it('names the pages a role may open inside a group it may not (seed: application, card-admin package)', () => {
    const user = menuNamesForRole('user');
    for (const name of ['ApplicationList', 'ApplicationCreate', 'ApplicationVersion', 'CardAdminPackage'])
      expect(user).toContain(name);
    for (const name of ['ScriptList', 'ScriptCreate', 'ScriptEdit', 'ScriptDetail'])
      expect(user).toContain(name);
    for (const name of ['CardAdminPackageCreate', 'CardAdminCard', 'CardProvider'])
      expect(user).not.toContain(name);
  });

  it('hides in the menu exactly what the seed hides at group level', () => {
    const hiddenGroups = APP_ROUTES.filter((r) => r.meta.hideInMenu)
      .map((r) => r.path)
      .sort();
    // Seed section 2: /list, /form, /visualization, /share and /user/setting are hidden; /user has only setting.
    // /dashboard/monitor is ours (admin only, hidden).
    expect(hiddenGroups).toEqual(['/form', '/list', '/share', '/user', '/visualization']);
    const byPath = new Map([...walkRoutes()].map((r) => [r.path, r]));
    for (const path of ['/profile/basic', '/result/success', '/result/error']) {
      expect(byPath.get(path)?.meta.hideInMenu).toBeFalsy();
      expect(byPath.get(path)?.meta.roles).toEqual(['admin']);
    }
  });

  it('redirects each alert sub-group to its list', () => {
    const paths = new Set([...walkRoutes()].map((r) => r.path));
    expect(SUBGROUP_REDIRECTS.map((r) => [r.path, r.to])).toEqual([
      ['/alert/device-trigger', '/alert/device-trigger/list'],
      ['/alert/config', '/alert/config/list'],
      ['/alert/contact', '/alert/contact/list'],
    ]);
    for (const r of SUBGROUP_REDIRECTS) {
      expect(paths.has(r.to)).toBe(true);
      expect(paths.has(r.path)).toBe(false);
    }
  });
});
