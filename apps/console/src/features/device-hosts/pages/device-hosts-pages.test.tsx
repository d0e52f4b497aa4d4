import type { DeviceHostDetail, DeviceHostItem } from '@cellhub/contract/device-hosts';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import DeviceHostDetailPage from './device-host-detail-page';
import DeviceHostListPage from './device-host-list-page';

const stamp = '2026-01-01T00:00:00.000Z';
const host: DeviceHostItem = {
  id: 4,
  name: 'Field TCP',
  protocol: 'tcp',
  bind: '0.0.0.0',
  port: 20001,
  enabled: true,
  register_by: 'imei',
  register_format: 'hex',
  register_pattern: '^AA55(\\d{15})F$',
  heartbeat_format: 'text',
  heartbeat_data: 'PING',
  heartbeat_interval: 60,
  idle_timeout: 180,
  remark: '',
  address: 'iot.example.com:20001',
  state: 'listening',
  error: null,
  connected: 1,
  createdat: stamp,
  updatedat: stamp,
};
const detail: DeviceHostDetail = {
  ...host,
  counters: {
    connections: 3,
    registrations: 2,
    refused: 1,
    bytes_in: 1234,
    bytes_out: 56,
    frames_in: 40,
    frames_out: 2,
    heartbeats: 7,
    timeouts: 0,
    errors: 0,
  },
  devices: [
    {
      sn: 'DTU-1',
      product_key: 'pk1',
      remote: '10.0.0.9:40000',
      since: stamp,
      last_seen: stamp,
      bytes_in: 1200,
      bytes_out: 56,
      frames_in: 40,
      heartbeats: 7,
    },
  ],
  refused_registrations: [
    { at: stamp, remote: '10.0.0.8:1234', reason: 'unknown', id: '861234567890123', packet: 'AA55' },
  ],
};

let requests: { method: string; url: string; body?: unknown }[];

function open(path: string, list: DeviceHostItem[] = [host]) {
  requests = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      const method = input instanceof Request ? input.method : (init?.method ?? 'GET');
      requests.push({ method, url, body: init?.body ? JSON.parse(String(init.body)) : undefined });
      const body = /\/api\/device-hosts\/4$/.test(url)
        ? { status: true, data: method === 'GET' ? detail : host }
        : { status: true, data: list, total: list.length };
      return Promise.resolve(
        new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } }),
      );
    }),
  );
  const router = createMemoryRouter(
    [
      { path: '/rule-setting/device-host/list', element: <DeviceHostListPage /> },
      { path: '/rule-setting/device-host/detail/:id', element: <DeviceHostDetailPage /> },
    ],
    { initialEntries: [path] },
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

describe('device host pages', () => {
  it('lists hosts with address, state and connected devices; the switch disables one', async () => {
    open('/rule-setting/device-host/list');
    expect(await screen.findByText('Field TCP')).toBeTruthy();
    expect(screen.getByText('iot.example.com:20001')).toBeTruthy();
    expect(screen.getByText('Listening')).toBeTruthy();
    fireEvent.click(screen.getByRole('switch', { name: 'Disable' }));
    await waitFor(() =>
      expect(requests).toContainEqual({
        method: 'PUT',
        url: expect.stringContaining('/api/device-hosts/4'),
        body: { enabled: false },
      }),
    );
  });

  it('shows an empty state that opens the create form', async () => {
    open('/rule-setting/device-host/list', []);
    expect(await screen.findByText('No device hosts yet')).toBeTruthy();
    const buttons = screen.getAllByRole('button', { name: /New device host/ });
    fireEvent.click(buttons[buttons.length - 1]!);
    expect(await screen.findByTestId('dh-form')).toBeTruthy();
  });

  it('details settings, counters, connected devices and refused registrations', async () => {
    open('/rule-setting/device-host/detail/4');
    expect(await screen.findByText('DTU-1')).toBeTruthy();
    expect(within(screen.getByTestId('dh-counters')).getByText('1,234')).toBeTruthy();
    expect(screen.getByText('10.0.0.9:40000')).toBeTruthy();
    expect(within(screen.getByTestId('dh-refused')).getByText('No such device')).toBeTruthy();
    expect(within(screen.getByTestId('dh-settings')).getByText('^AA55(\\d{15})F$')).toBeTruthy();
  });
});
