import type { ProductDetail } from '@cellhub/contract/products';
import { cleanup, render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import zhCN from '../locale/zh-CN';
import ProductDetailPage from './product-detail-page';

const product = (access: ProductDetail['access']): ProductDetail =>
  ({
    id: 1,
    name: 'Fleet DTU',
    product_key: 'pkfleet',
    nodetype: 'direct',
    protocol: 'mqtt',
    dataformat: 'json',
    product_code: '',
    description: '',
    mqtt_interval: 60,
    property_interval: 60,
    config_post_size: 1024,
    iot_platform_id: null,
    iot_platform_name: '',
    iot_platform_type: null,
    uid: 1,
    device_count: 1,
    config_version_different: 0,
    createdat: '2026-01-01T00:00:00.000Z',
    updatedat: '2026-01-01T00:00:00.000Z',
    product_secret: access === 'manage' ? 'secret-of-the-owner' : '',
    properties: [
      {
        key: 'temp',
        name: '温度',
        name_us: 'Temperature',
        charttype: 'line',
        datatype: 'number',
        unit: '°C',
        cycles: 0,
      },
    ],
    iot_platform_config: {},
    device_config: {},
    access,
  }) as ProductDetail;

function open(access: ProductDetail['access'], tab: 'overview' | 'properties') {
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL) => {
      const url = input instanceof Request ? input.url : String(input);
      const body = /\/api\/products\/pkfleet$/.test(url)
        ? { status: true, data: product(access) }
        : { status: true, data: [], total: 0 };
      return Promise.resolve(
        new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } }),
      );
    }),
  );
  const router = createMemoryRouter(
    [{ path: '/product/detail/:productKey', element: <ProductDetailPage /> }],
    {
      initialEntries: [`/product/detail/pkfleet?tab=${tab}`],
    },
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('product detail', () => {
  it('is read-only for a user who reads it through her device: no actions, no secret, no platform or config', async () => {
    open('view', 'overview');
    expect((await screen.findAllByText('Fleet DTU')).length).toBeGreaterThan(0);
    expect(screen.queryByText(zhCN['product.secret'])).toBeNull();
    expect(screen.queryByRole('button', { name: new RegExp(zhCN['product.edit']) })).toBeNull();
    expect(screen.queryByRole('button', { name: new RegExp(zhCN['product.delete']) })).toBeNull();
    expect(screen.queryByText(zhCN['product.tab.platform'])).toBeNull();
    expect(screen.queryByText(zhCN['product.tab.config'])).toBeNull();
    cleanup();
    open('view', 'properties');
    expect(await screen.findByText('温度')).toBeTruthy();
    expect(screen.queryByRole('button', { name: new RegExp(zhCN['product.prop.add']) })).toBeNull();
    expect(screen.queryByRole('button', { name: new RegExp(zhCN['product.edit']) })).toBeNull();
  });

  it('offers its owner every action and the secret', async () => {
    open('manage', 'overview');
    expect((await screen.findAllByText('Fleet DTU')).length).toBeGreaterThan(0);
    expect(screen.getByText(zhCN['product.secret'])).toBeTruthy();
    expect(
      screen.getAllByRole('button', { name: new RegExp(zhCN['product.delete']) }).length,
    ).toBeGreaterThan(0);
    expect(screen.getByText(zhCN['product.tab.platform'])).toBeTruthy();
    cleanup();
    open('manage', 'properties');
    expect(await screen.findByText('温度')).toBeTruthy();
    expect(screen.getByRole('button', { name: new RegExp(zhCN['product.prop.add']) })).toBeTruthy();
  });
});
