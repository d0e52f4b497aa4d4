import { describe, expect, it } from 'vitest';
import { APP_ROUTES, menuNamesForRole, type RouteDef } from '@cellhub/contract/routes';
import { breadcrumbTrail, buildMenu, menuSelection } from './menu-tree';

const names = (nodes: ReturnType<typeof buildMenu>) => nodes.map((n) => n.name);

describe('buildMenu', () => {
  it('orders groups by meta.order and leaves out hidden groups', () => {
    const menu = names(buildMenu('admin'));
    expect(menu[0]).toBe('dashboard');
    expect(menu).not.toContain('visualization');
    expect(menu).not.toContain('list');
    expect(menu).not.toContain('user');
    expect(menu.indexOf('product')).toBeLessThan(menu.indexOf('device'));
    expect(menu.indexOf('scene')).toBeLessThan(menu.indexOf('application'));
    expect(menu.slice(-2)).toEqual(['hw', 'system']);
  });

  it('filters groups and leaves by role', () => {
    const user = buildMenu('user');
    expect(names(user)).not.toContain('firmware');
    expect(names(user)).not.toContain('system');
    expect(names(user)).not.toContain('application');
    expect(names(user)).toContain('device');
    const exception = user.find((n) => n.name === 'exception')!;
    expect(exception.children!.map((c) => c.name)).toEqual(['404', '500']);
    const admin = buildMenu('admin');
    expect(admin.find((n) => n.name === 'exception')!.children!.map((c) => c.name)).toEqual([
      '403',
      '404',
      '500',
    ]);
    expect(names(admin)).toContain('system');
  });

  it('shows the admin the profile and result pages (the seed hides only /list, /form, /visualization, /share, /user/setting)', () => {
    const admin = buildMenu('admin');
    expect(admin.find((n) => n.name === 'profile')!.children!.map((c) => c.name)).toEqual(['Basic']);
    expect(admin.find((n) => n.name === 'result')!.children!.map((c) => c.name)).toEqual([
      'Success',
      'Error',
    ]);
    expect(names(buildMenu('user'))).not.toContain('profile');
    expect(names(buildMenu('user'))).not.toContain('result');
  });

  it("keeps admin groups out of a user's menu built from the server's list, which names their open pages", () => {
    const user = names(buildMenu('user', menuNamesForRole('user')));
    expect(user).not.toContain('application');
    expect(user).not.toContain('cardAdmin');
    expect(user).not.toContain('script');
    expect(user).toEqual(names(buildMenu('user')));
  });

  it('leaves out hidden leaves (detail pages)', () => {
    const device = buildMenu('user').find((n) => n.name === 'device')!;
    expect(device.children!.map((c) => c.name)).not.toContain('DeviceDetail');
    expect(device.children!.map((c) => c.name)).toContain('DeviceList');
  });

  it('keeps only what the server menu lists', () => {
    const menu = buildMenu('admin', ['dashboard', 'Workplace', 'device', 'DeviceList', 'DeviceCreate']);
    expect(menu).toEqual([
      expect.objectContaining({
        name: 'dashboard',
        children: [expect.objectContaining({ name: 'Workplace' })],
      }),
      expect.objectContaining({
        name: 'device',
        children: [
          expect.objectContaining({ name: 'DeviceList' }),
          expect.objectContaining({ name: 'DeviceCreate' }),
        ],
      }),
    ]);
  });

  it('drops a group whose children are all hidden from this role', () => {
    const routes: RouteDef[] = [
      {
        path: '/g',
        name: 'g',
        meta: { requiresAuth: true, roles: ['*'], locale: 'g' },
        children: [{ path: '/g/a', name: 'A', meta: { requiresAuth: true, roles: ['admin'], locale: 'a' } }],
      },
    ];
    expect(buildMenu('user', undefined, routes)).toEqual([]);
    expect(buildMenu('admin', undefined, routes)).toHaveLength(1);
  });

  it('shows no admin route while the role is unknown', () => {
    const menu = names(buildMenu(undefined));
    expect(menu).toContain('device');
    expect(menu).not.toContain('firmware');
  });
});

describe('menuSelection', () => {
  it('selects the leaf and opens its group', () => {
    expect(menuSelection('DeviceList')).toEqual({ selectedKeys: ['DeviceList'], openKeys: ['device'] });
  });

  it('highlights the activeMenu item for hidden detail pages', () => {
    expect(menuSelection('DeviceDetail')).toEqual({ selectedKeys: ['DeviceList'], openKeys: ['device'] });
    expect(menuSelection('CommandEdit')).toEqual({ selectedKeys: ['CommandGroup'], openKeys: ['product'] });
  });

  it('selects nothing for unknown names', () => {
    expect(menuSelection('Nope')).toEqual({ selectedKeys: [], openKeys: [] });
    expect(menuSelection(undefined)).toEqual({ selectedKeys: [], openKeys: [] });
  });
});

describe('breadcrumbTrail', () => {
  it('lists the group then the page', () => {
    expect(breadcrumbTrail('DeviceDetail')).toEqual(['menu.device', 'menu.device.detail']);
    expect(breadcrumbTrail('Share')).toEqual(['menu.share']);
    expect(breadcrumbTrail('Nope', APP_ROUTES)).toEqual([]);
  });
});
