import type { CommandGroupDetail } from '@cellhub/contract/command-groups';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import enUS from '../locale/en-US';
import GroupCommandEditPage from './group-command-edit-page';

const stamp = '2026-01-01T00:00:00.000Z';
const group: CommandGroupDetail = {
  id: 3,
  product_key: 'pkfleet',
  product_name: 'Fleet DTU',
  name: 'Modbus',
  description: '',
  command_count: 0,
  createdat: stamp,
  updatedat: stamp,
  commands: [],
};

let posted: unknown[];

function open() {
  posted = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      const method = input instanceof Request ? input.method : (init?.method ?? 'GET');
      if (method === 'POST') posted.push(url);
      const body = /\/api\/command-groups\/3$/.test(url)
        ? { status: true, data: group }
        : { status: true, data: { id: 9 } };
      return Promise.resolve(
        new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } }),
      );
    }),
  );
  const router = createMemoryRouter(
    [
      { path: '/product/command_group/detail/:id/command/create', element: <GroupCommandEditPage /> },
      { path: '/product/command_group/detail/:id', element: <p>group page</p> },
    ],
    { initialEntries: ['/product/command_group/detail/3/command/create'] },
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('predefined command form', () => {
  it('checks the definition in the browser before anything is sent', async () => {
    open();
    fireEvent.change(await screen.findByTestId('cmd-name'), { target: { value: 'Read' } });
    const data = screen.getByTestId('cmd-data');
    fireEvent.change(data, { target: { value: '0x01{{addr}}' } });
    fireEvent.click(screen.getByTestId('cmd-save'));
    expect(await screen.findByText(enUS['problem.unknown_param'].replace('{name}', 'addr'))).toBeTruthy();
    fireEvent.click(screen.getByTestId('cmd-add-param'));
    fireEvent.change(await screen.findByTestId('cmd-param-0-name'), { target: { value: 'addr' } });
    fireEvent.change(data, { target: { value: '0{{addr}}' } });
    fireEvent.click(screen.getByTestId('cmd-save'));
    // An odd number of literal digits: the rendered command would have an odd length.
    expect(await screen.findByText(enUS['problem.hex_odd_length'])).toBeTruthy();
    fireEvent.change(screen.getByTestId('cmd-reply'), { target: { value: '(a+)+' } });
    fireEvent.change(data, { target: { value: '01{{addr}}' } });
    fireEvent.click(screen.getByTestId('cmd-save'));
    expect(await screen.findByText(enUS['problem.pattern_unsafe'])).toBeTruthy();
    expect(posted).toEqual([]);
    fireEvent.change(screen.getByTestId('cmd-reply'), { target: { value: '^01' } });
    fireEvent.click(screen.getByTestId('cmd-save'));
    await waitFor(() =>
      expect(posted).toEqual([expect.stringMatching(/\/api\/command-groups\/3\/commands$/)]),
    );
    expect(await screen.findByText('group page')).toBeTruthy();
  });
});
