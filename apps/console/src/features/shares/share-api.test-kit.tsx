/**
 * For the sharing DOM tests: a fetch that records every call and answers with `answer(call)`, and a page rendered
 * in a memory router (with stand-ins for the pages it leads to) and a fresh query client.
 */
import { render } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { vi } from 'vitest';

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

/** An answer with an HTTP status (a refusal); a plain value is answered 200. */
export const refuse = (code: number, message = 'refused', status = 400) => ({
  __status: status,
  code,
  message,
});

export const ok = (data: unknown) => ({ status: true, data });
export const list = (data: unknown[]) => ({ status: true, data, total: data.length });

export function mockApi(answer: (c: Call) => unknown): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input), 'http://console.test');
      const call: Call = {
        method: init?.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body: init?.body ? (JSON.parse(String(init.body)) as unknown) : undefined,
      };
      calls.push(call);
      const body = answer(call) as { __status?: number };
      const { __status: status = 200, ...rest } = body;
      return Promise.resolve(
        new Response(JSON.stringify(rest), { status, headers: { 'Content-Type': 'application/json' } }),
      );
    }),
  );
  return calls;
}

export function renderAt(path: string, routes: { path: string; element: ReactElement }[]) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter(
    [
      ...routes,
      { path: '/device/list', element: <p>device list page</p> },
      { path: '/device/detail/:productkey/:sn', element: <p>device detail page</p> },
      { path: '/myshare/list', element: <p>my shares page</p> },
    ],
    { initialEntries: [path] },
  );
  render(
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}
