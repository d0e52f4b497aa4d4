import type { TemplateDetail, TemplateItem } from '@cellhub/contract/data-templates';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import enUS from '../locale/en-US';
import DataTemplateDetailPage from './data-template-detail-page';
import DataTemplateListPage from './data-template-list-page';

const stamp = '2026-01-01T00:00:00.000Z';
const item: TemplateItem = {
  id: 7,
  uid: 2,
  owner: 'alice',
  name: 'Boiler room',
  type: 'modbus_rtu',
  remark: 'Two meters',
  collect_mode: 'dtu',
  slave_count: 1,
  variable_count: 1,
  device_count: 0,
  createdat: stamp,
  updatedat: stamp,
};
const detail: TemplateDetail = {
  ...item,
  products: [],
  slaves: [
    {
      id: 11,
      template_id: 7,
      name: 'Meter',
      address: 1,
      serial_port: 'rs485',
      position: 0,
      variables: [
        {
          id: 21,
          slave_id: 11,
          name: 'Temperature',
          tag: 'temp',
          unit: '°C',
          register_type: 'holding',
          register_address: 1,
          data_format: 'int16',
          byte_order: 'AB',
          decimals: 1,
          access: 'r',
          capture_formula: 'x*0.1',
          control_formula: '',
          report_method: 'cycle',
          sampling_cycle_s: 60,
          function_code: 3,
          position: 0,
        },
      ],
    },
  ],
};

let calls: { method: string; url: string; body?: unknown }[];
let listItems: TemplateItem[];

function start(path: string) {
  calls = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      const method = input instanceof Request ? input.method : (init?.method ?? 'GET');
      const raw = init?.body;
      calls.push({ method, url, body: typeof raw === 'string' ? JSON.parse(raw) : undefined });
      let body: unknown = { status: true, data: null };
      if (method === 'GET' && /\/api\/data-templates\?/.test(url))
        body = { status: true, data: listItems, total: listItems.length };
      else if (method === 'GET' && /\/api\/data-templates\/7$/.test(url))
        body = { status: true, data: detail };
      else if (method === 'GET' && /\/devices/.test(url)) body = { status: true, data: [], total: 0 };
      else if (method === 'POST' && /\/api\/data-templates$/.test(url))
        body = { status: true, data: { ...detail, id: 8 } };
      else if (method === 'POST')
        body = { status: true, data: { ...detail.slaves[0]!.variables[0], id: 30 } };
      return Promise.resolve(
        new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } }),
      );
    }),
  );
  const router = createMemoryRouter(
    [
      { path: '/scene/data-template/list', element: <DataTemplateListPage /> },
      { path: '/scene/data-template/detail/:id', element: <DataTemplateDetailPage /> },
    ],
    { initialEntries: [path] },
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

beforeEach(() => {
  localStorage.setItem('arco-locale', 'en-US');
  listItems = [item];
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('data template list', () => {
  it('lists templates, searches by keyword and shows the empty state', async () => {
    start('/scene/data-template/list');
    expect(await screen.findByText('Boiler room')).toBeTruthy();
    expect(screen.getByText(enUS['dt.mode.dtu'])).toBeTruthy();
    listItems = [];
    fireEvent.change(screen.getByTestId('dt-keyword'), { target: { value: 'none' } });
    fireEvent.click(screen.getByRole('button', { name: /search|查询/i }));
    expect(await screen.findByText(enUS['dt.empty'])).toBeTruthy();
    await waitFor(() =>
      expect(calls.some((c) => c.method === 'GET' && c.url.includes('keyword=none'))).toBe(true),
    );
  });

  it('creates a template from the list page and opens it', async () => {
    const router = start('/scene/data-template/list');
    await screen.findByText('Boiler room');
    fireEvent.click(screen.getByRole('button', { name: enUS['dt.create'] }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: /OK|确定/ }));
    expect(await within(dialog).findByText(enUS['dt.form.name.required'])).toBeTruthy();
    fireEvent.change(within(dialog).getByTestId('dt-name'), { target: { value: 'Pump' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /OK|确定/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/scene/data-template/detail/8'));
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.body).toMatchObject({ name: 'Pump', type: 'modbus_rtu', collect_mode: 'dtu' });
  });
});

describe('variable form', () => {
  it('refuses what the server would (80003, 80004, 80005) before sending, then sends', async () => {
    start('/scene/data-template/detail/7');
    expect(await screen.findByText('Temperature')).toBeTruthy();
    fireEvent.click(screen.getByTestId('dt-add-variable'));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByTestId('dt-var-name'), { target: { value: 'Flow' } });
    fireEvent.change(within(dialog).getByTestId('dt-var-tag'), { target: { value: 'flow' } });
    const address =
      within(dialog).getByTestId('dt-var-address').querySelector('input') ??
      within(dialog).getByTestId('dt-var-address');
    fireEvent.change(address, { target: { value: '70000' } });
    fireEvent.change(within(dialog).getByTestId('dt-var-capture'), { target: { value: 'x*' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /OK|确定/ }));
    expect(await within(dialog).findByText(enUS['dt.problem.register_range'])).toBeTruthy();
    expect(within(dialog).getByText(/Invalid formula/)).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    fireEvent.change(address, { target: { value: '5' } });
    fireEvent.change(within(dialog).getByTestId('dt-var-capture'), { target: { value: 'x*0.5' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /OK|确定/ }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1));
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.url).toMatch(/\/api\/data-templates\/7\/slaves\/11\/variables$/);
    expect(post.body).toMatchObject({
      name: 'Flow',
      tag: 'flow',
      register_address: 5,
      capture_formula: 'x*0.5',
    });
  });
});
