import type { UserCommandItem } from '@cellhub/contract/user-commands';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../test/app';
import { likeKeyword } from './paging';

describe('likeKeyword', () => {
  it('wraps the keyword in % and matches its own %, _ and \\ literally', () => {
    expect(likeKeyword('gw')).toBe('%gw%');
    expect(likeKeyword('50%_a\\b')).toBe('%50\\%\\_a\\\\b%');
  });
});

// ownedPage and countPerId through a list that uses them: /api/user-commands.
describe('ownedPage', () => {
  let t: TestApp;
  let admin: string;
  let a: { uid: number; token: string };
  let b: { uid: number; token: string };
  const list = async (token: string, query: string) => {
    const res = await t.inject({ method: 'GET', url: `/api/user-commands?${query}`, token });
    expect(res.statusCode).toBe(200);
    return res.json() as { data: UserCommandItem[]; total: number };
  };

  beforeAll(async () => {
    t = await buildTestApp();
    admin = await t.adminToken();
    a = await t.createUser();
    b = await t.createUser();
    for (const [token, name] of [
      [a.token, 'page 1'],
      [a.token, 'page 2'],
      [a.token, 'page 3 100%'],
      [b.token, 'page 4'],
    ] as const) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/user-commands',
        token,
        payload: { name, type: 'string', data: 'AT' },
      });
      expect(res.statusCode).toBe(200);
    }
  });
  afterAll(() => t.close());

  it('pages the caller’s rows newest first and totals the whole filter', async () => {
    const first = await list(a.token, 'current=1&per_page=2');
    expect(first.total).toBe(3);
    expect(first.data.map((c) => c.name)).toEqual(['page 3 100%', 'page 2']);
    expect(first.data.every((c) => c.runs === 0)).toBe(true);
    const second = await list(a.token, 'current=2&per_page=2');
    expect(second).toMatchObject({ total: 3, data: [{ name: 'page 1' }] });
  });

  it('lets the admin see every owner’s rows, and a keyword’s % match only itself', async () => {
    expect((await list(admin, 'current=1&per_page=10&keyword=page')).total).toBeGreaterThanOrEqual(4);
    expect((await list(b.token, 'current=1&per_page=10')).data.map((c) => c.name)).toEqual(['page 4']);
    expect((await list(a.token, 'current=1&per_page=10&keyword=%25')).data.map((c) => c.name)).toEqual([
      'page 3 100%',
    ]);
  });
});
