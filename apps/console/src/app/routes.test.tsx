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
