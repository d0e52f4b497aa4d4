import { describe, expect, it } from 'vitest';
import { APP_ROUTES, menuNamesForRole, routeAllows, walkRoutes } from './routes';

describe('route table', () => {
  it('has unique names', () => {
    const names = [...walkRoutes()].map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('puts groups in the seed menu order', () => {
    const order = APP_ROUTES.map((r) => r.meta.order ?? 0);
    const sorted = [...order].sort((a, b) => a - b);
    // The table itself is written in an order close to the menu; the menu sorts it.
    expect(menuNamesForRole('admin').indexOf('dashboard')).toBe(0);
    expect(sorted[0]).toBe(0);
    expect(sorted.at(-1)).toBe(99);
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
});
