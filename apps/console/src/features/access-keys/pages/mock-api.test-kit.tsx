/**
 * The access-key page tests' API and render: `answer` maps `METHOD /path` (no query) to the `data` of an OK
 * envelope, a function of the parsed body, or a refusal; every call is recorded. Used only by the *.test.tsx here.
 */
import { render } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { vi } from 'vitest';

export type Answer =
  | { data: unknown; total?: number }
  | { refuse: number; message?: string; http?: number; details?: unknown }
  | ((body: unknown, url: URL) => { data: unknown; total?: number });

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

export function mockApi(answers: Record<string, Answer>): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input), 'http://localhost');
      const method = (init?.method ?? 'GET').toUpperCase();
      const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      calls.push({ method, path: url.pathname, query: url.searchParams, body });
      const found = answers[`${method} ${url.pathname}`];
      const json = (status: number, payload: unknown) =>
        Promise.resolve(
          new Response(JSON.stringify(payload), {
            status,
            headers: { 'Content-Type': 'application/json' },
          }),
        );
      if (!found) return json(404, { code: 10106, message: `no mock for ${method} ${url.pathname}` });
      if (typeof found === 'function') return json(200, { status: true, ...found(body, url) });
      if ('refuse' in found)
        return json(found.http ?? 400, {
          code: found.refuse,
          message: found.message ?? 'refused',
          details: found.details,
        });
      return json(200, { status: true, ...found });
    }),
  );
  return calls;
}

/** Renders `Page` at `url` under `path`, signed in (the user info query needs a token). */
export function renderPage(Page: ComponentType, path: string, url: string) {
  localStorage.setItem('token', 'test-token');
  localStorage.setItem('uid', '7');
  const router = createMemoryRouter(
    [
      { path, element: <Page /> },
      { path: '*', element: <div data-testid="elsewhere" /> },
    ],
    { initialEntries: [url] },
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

export const KEY = {
  access_key: 'AKABCDEFGHIJKLMNOPQRST',
  name: 'Nightly sync',
  scopes: ['devices:read', 'devices:control'],
  ip_allow: ['203.0.113.7', '10.0.0.0/8'],
  expires_at: null,
  enabled: true,
  verified: true,
  last_used_at: '2026-11-20T08:00:00.000Z',
  last_used_ip: '203.0.113.7',
  created_at: '2026-11-01T08:00:00.000Z',
  updated_at: '2026-11-01T08:00:00.000Z',
  owner: null,
};

export const ME = { uid: 7, username: 'alice', phone: '13800001111', email: '', role: 'user' };
