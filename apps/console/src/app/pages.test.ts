import { describe, expect, it } from 'vitest';
import { APP_ROUTES, NOT_FOUND_ROUTE_NAME, PUBLIC_ROUTES, walkRoutes } from '@cellhub/contract/routes';
import { PAGE_LOADERS, pageLoader } from './pages';

describe('page map', () => {
  const names = new Set([...walkRoutes([...APP_ROUTES, ...PUBLIC_ROUTES])].map((r) => r.name));

  it('names only routes of the contract table', () => {
    for (const name of Object.keys(PAGE_LOADERS)) {
      if (name === NOT_FOUND_ROUTE_NAME) continue;
      expect(names, name).toContain(name);
    }
  });

  it('gives every leaf route a page', () => {
    for (const r of walkRoutes([...APP_ROUTES, ...PUBLIC_ROUTES])) {
      if (r.children?.length) continue;
      expect(typeof pageLoader(r.name)).toBe('function');
    }
  });
});
