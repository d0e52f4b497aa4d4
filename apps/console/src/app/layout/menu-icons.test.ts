import { APP_ROUTES } from '@cellhub/contract/routes';
import { describe, expect, it } from 'vitest';
import { hasMenuIcon } from './menu-icons';

describe('menu icons', () => {
  it('has an Arco icon for every icon the route table names', () => {
    for (const route of APP_ROUTES) {
      if (!route.meta.icon) continue;
      expect(hasMenuIcon(route.meta.icon), `${route.name}: ${route.meta.icon}`).toBe(true);
    }
  });
});
