/**
 * Page tests' API and render, for any feature: `answer` maps `METHOD /path` (no query) to the `data` of an OK
 * envelope, a function of the parsed body, or a refusal; every call is recorded. Test support only.
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
