/**
 * Every detail and edit route of the table (a path with a `:param`) answers a record it cannot show the same way:
 * the shared result page with its way back, no form to fill in, and no toast on top. The API is mocked to refuse
 * each request with the code under test; a new detail route with a page is covered without being listed here.
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { APP_ROUTES, type RouteDef } from '@cellhub/contract/routes';
import { PAGE_LOADERS } from './pages';

const toasts = vi.hoisted(() => [] as { kind: string; content: string }[]);
vi.mock('../lib/toast', () => ({
  toast: (kind: string, content: string) => toasts.push({ kind, content }),
  loadToasts: () => Promise.resolve(),
}));

function leaves(defs: RouteDef[]): RouteDef[] {
  return defs.flatMap((d) => (d.children?.length ? leaves(d.children) : [d]));
}

const detailRoutes = leaves(APP_ROUTES).filter((r) => r.path.includes(':'));
/** Routes without a page of their own share the "unavailable" page, which asks the API nothing. */
const withPages = detailRoutes.filter((r) => PAGE_LOADERS[r.name]);

/** The URL of a route with each parameter set to a record that is not there (or not the caller's). */
const urlOf = (path: string) =>
  path.replace(/:([A-Za-z]+)/g, (_, name: string) => (name === 'sn' ? 'SN999999' : '999999'));

let refuseWith = 10107;
beforeEach(() => {
  toasts.length = 0;
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL) => {
      const url = input instanceof Request ? input.url : String(input);
      // The record the route names (and whatever hangs off it) is refused; lists the page also needs (pickers,
      // options) answer empty, as they would for a user who has none.
      const body = /999999/.test(url)
        ? { code: refuseWith, message: 'refused' }
        : { status: true, data: [], total: 0 };
      return Promise.resolve(
        new Response(JSON.stringify(body), {
          status: /999999/.test(url) ? 400 : 200,
          headers: { 'Content-Type': 'application/json' },
        }),
      );
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function open(route: RouteDef) {
  const Page = (await PAGE_LOADERS[route.name]!()).default;
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter([{ path: route.path, element: <Page /> }], {
    initialEntries: [urlOf(route.path)],
  });
  return render(
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

describe('detail and edit routes', () => {
  it('include every built detail and edit page', () => {
    expect(withPages.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'ProductEdit',
        'ProductDetail',
        'ProductPropertyAdd',
        'DeviceDetail',
        'ConfigTemplateDetail',
        'UserCommandEdit',
        'UserCommandDetail',
        'FirmwareEdit',
        'FirmwareDetail',
        'FirmwareVersionCreate',
        'FirmwareVersionEdit',
        'OtaTaskDetail',
        'CardDetail',
        'DeviceTriggerEdit',
        'AlertConfigEdit',
        'AlertContactEdit',
        'CardProviderEdit',
        'CardAdminPackageEdit',
      ]),
    );
  });

  for (const [code, problem, status] of [
    [10107, 'notFound', '404'],
    [10108, 'forbidden', '403'],
  ] as const) {
    describe(`answered ${code}`, () => {
      it.each(withPages.map((r) => [r.name, r] as const))(
        `%s shows the ${problem} result page, no form and no toast`,
        async (_name, route) => {
          refuseWith = code;
          const { container } = await open(route);
          const page = await screen.findByTestId('result-page', {}, { timeout: 5000 });
          expect(page.getAttribute('data-problem')).toBe(problem);
          expect(
            container.querySelector(`.arco-result-icon-${status}, .arco-result-is-${status}`),
          ).not.toBeNull();
          expect(screen.getAllByRole('button').length).toBeGreaterThan(0);
          expect(container.querySelector('form, .arco-form')).toBeNull();
          expect(container.querySelector('.arco-spin-loading')).toBeNull();
          // Whatever else the page asked for has answered by now; none of it may have toasted.
          await waitFor(() => expect(vi.mocked(fetch).mock.calls.length).toBeGreaterThan(0));
          expect(toasts).toEqual([]);
        },
      );
    });
  }

  it('answers an id that is no number with the result page, without a toast', async () => {
    refuseWith = 10107;
    const route = withPages.find((r) => r.name === 'UserCommandDetail')!;
    const Page = (await PAGE_LOADERS[route.name]!()).default;
    const router = createMemoryRouter([{ path: route.path, element: <Page /> }], {
      initialEntries: ['/device/user-command/detail/abc'],
    });
    render(
      <QueryClientProvider client={new QueryClient()}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    expect((await screen.findByTestId('result-page')).getAttribute('data-problem')).toBe('notFound');
    expect(toasts).toEqual([]);
  });
});
