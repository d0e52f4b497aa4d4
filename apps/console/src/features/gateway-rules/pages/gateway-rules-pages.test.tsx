import type { GatewayRuleDetail } from '@cellhub/contract/gateway-rules';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseLines } from '../components/bind-modal';
import GatewayRuleDetailPage from './gateway-rule-detail-page';
import GatewayRuleListPage from './gateway-rule-list-page';

const stamp = '2026-01-01T00:00:00.000Z';
const rule: GatewayRuleDetail = {
  id: 4,
  name: 'Boiler room',
  gateway_sn: 'GW-1',
  gateway_name: 'Roof gateway',
  product_key: 'pkgw',
  product_name: 'Gateway',
  online: 1,
  sub_device_count: 2,
  createdat: stamp,
  updatedat: stamp,
  sub_devices: [
    {
      sn: 'SUB-1',
      name: 'Thermometer',
      address: '1',
      device_name: '',
      product_key: 'pksub',
      product_name: 'Sensor',
      online: 1,
      lastcommunicationat: stamp,
      bound_at: stamp,
    },
    {
      sn: 'SUB-2',
      name: '',
      address: '',
      device_name: 'Pump meter',
      product_key: 'pksub',
      product_name: 'Sensor',
      online: 0,
      lastcommunicationat: null,
      bound_at: stamp,
    },
  ],
};

let requests: { method: string; url: string; body: unknown }[];

function open(path: string, element: React.ReactNode, route: string, answers: (url: string) => unknown) {
  requests = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      const method = input instanceof Request ? input.method : (init?.method ?? 'GET');
      const raw = input instanceof Request ? await input.text() : init?.body;
      requests.push({ method, url, body: raw ? JSON.parse(String(raw)) : undefined });
      return new Response(JSON.stringify(answers(url)), { headers: { 'Content-Type': 'application/json' } });
    }),
  );
  const router = createMemoryRouter([{ path: route, element }], { initialEntries: [path] });
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

describe('bind lines', () => {
  it('read sn, address and name, and point at a bad line', () => {
    expect(parseLines('SUB-1, 1, Boiler thermometer\n\nSUB-2\tB7\nSUB-3 3')).toEqual({
      lines: [
        { sn: 'SUB-1', address: '1', name: 'Boiler thermometer' },
        { sn: 'SUB-2', address: 'B7', name: '' },
        { sn: 'SUB-3', address: '3', name: '' },
      ],
      bad: undefined,
    });
    expect(parseLines('SUB-1\nbad/sn').bad).toBe(2);
  });
});

describe('gateway rule pages', () => {
  it('list says what to do when there is no rule', async () => {
    open('/rule-setting/gate-way/list', <GatewayRuleListPage />, '/rule-setting/gate-way/list', () => ({
      status: true,
      data: [],
      total: 0,
    }));
    expect(await screen.findByText('No gateway rules yet: create one for a gateway device')).toBeTruthy();
  });

  it('detail shows the sub-devices with their state, and binds several with a result per sn', async () => {
    open(
      '/rule-setting/gate-way/detail/4',
      <GatewayRuleDetailPage />,
      '/rule-setting/gate-way/detail/:id',
      (url) =>
        /\/bind$/.test(url)
          ? {
              status: true,
              data: {
                results: [
                  { sn: 'SUB-3', code: 0, message: 'ok' },
                  { sn: 'DTU-1', code: 85004, message: 'The device is not a sub-device' },
                ],
                done: 1,
                failed: 1,
              },
            }
          : /candidates/.test(url)
            ? { status: true, data: [] }
            : { status: true, data: rule },
    );
    expect(await screen.findByText('Thermometer')).toBeTruthy();
    expect(screen.getByText('Pump meter')).toBeTruthy();
    expect(screen.getAllByText('Offline').length).toBe(1);
    fireEvent.click(screen.getByTestId('gw-bind'));
    fireEvent.change(await screen.findByTestId('gw-bind-lines'), {
      target: { value: 'SUB-3, 3, Flow\nDTU-1' },
    });
    fireEvent.click(screen.getByTestId('gw-bind-submit'));
    const result = await screen.findByTestId('gw-bind-result');
    expect(result.textContent).toContain('Result: 1 bound, 1 failed');
    expect(result.textContent).toContain('The device is not a sub-device (85004)');
    await waitFor(() =>
      expect(requests.find((r) => r.method === 'POST')?.body).toEqual({
        sub_devices: [
          { sn: 'SUB-3', address: '3', name: 'Flow' },
          { sn: 'DTU-1', address: '', name: '' },
        ],
      }),
    );
  });
});
