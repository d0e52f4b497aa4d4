import { describe, expect, it } from 'vitest';
import { isValidElement } from 'react';
import { SUBGROUP_REDIRECTS } from '@cellhub/contract/routes';
import type { RouteHandle } from './current-route';
import { subgroupRedirects } from './routes';

describe('sub-group redirects', () => {
  it('sends /alert/device-trigger, /alert/config and /alert/contact to their lists as the alert group', () => {
    const objects = subgroupRedirects();
    expect(objects.map((o) => o.path)).toEqual(['/alert/device-trigger', '/alert/config', '/alert/contact']);
    objects.forEach((o, i) => {
      expect((o.handle as RouteHandle).name).toBe('alert');
      expect(isValidElement(o.element)).toBe(true);
      expect((o.element as { props: { to: string; replace: boolean } }).props).toEqual({
        to: SUBGROUP_REDIRECTS[i]!.to,
        replace: true,
      });
    });
  });
});

describe('the route of a URL', () => {
  it('names a new config template "create" in the breadcrumb, an existing one "detail"', async () => {
    const { matchRoutes } = await import('react-router');
    const { appRoutes } = await import('./routes');
    const { currentFromMatches } = await import('./current-route');
    const { breadcrumbTrail } = await import('./layout/menu-tree');
    const trail = (path: string) =>
      breadcrumbTrail(currentFromMatches(matchRoutes(appRoutes, path))?.name).at(-1);
    expect(trail('/device/config-template/new')).toBe('menu.device.configTemplateCreate');
    expect(trail('/device/config-template/12')).toBe('menu.device.configTemplateDetail');
  });
});
