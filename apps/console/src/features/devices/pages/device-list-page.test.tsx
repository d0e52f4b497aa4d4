/**
 * The device list shows "latest data" in the product's words with the rows: the names and units ride on the list
 * answer (`property_defs`), so the page asks for no product after the list answers (issue 13: one round trip
 * less before the content a user came for).
 */
import { cleanup, render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sampleDevice } from '../sample-device';
import DeviceListPage from './device-list-page';

const requested: string[] = [];

beforeEach(() => {
  requested.length = 0;
  localStorage.setItem('arco-locale', 'en-US');
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL) => {
      const url = new URL(input instanceof Request ? input.url : String(input), 'http://console.test');
      requested.push(url.pathname);
      const body =
        url.pathname === '/api/devices'
          ? {
              status: true,
              data: [sampleDevice({ sn: 'DTU-1', last_values: { hum: 45, temp: 21.5 } })],
              total: 1,
              total_exact: true,
              property_defs: {
                pk0001: [
                  { key: 'temp', name: '温度', name_us: 'Temperature', unit: '°C' },
                  { key: 'hum', name: '湿度', name_us: '', unit: '%' },
                ],
              },
            }
          : { status: true, data: [], total: 0 };
      return Promise.resolve(
        new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } }),
      );
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('device list latest data', () => {
  it("names the values in the product's words, in its order, from the list answer alone", async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <MemoryRouter>
          <DeviceListPage />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    // en-US: name_us where the product gives one, else the Chinese name; the product's order, not the device's.
    expect(await screen.findByText('Temperature 21.5 °C, 湿度 45 %')).toBeTruthy();
    expect(requested).toContain('/api/devices');
    expect(requested.filter((p) => p.startsWith('/api/products/'))).toEqual([]);
  });
});
