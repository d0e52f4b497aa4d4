import { act, fireEvent, render, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockApi } from '../lib/mock-api.test-kit';
import ProductSelect, { PRODUCT_PICK_PAGE } from './product-select';

afterEach(() => vi.unstubAllGlobals());

/** A fleet of 300 products, searched and paged as the server does (name or ProductKey contains the keyword). */
const FLEET = Array.from({ length: 300 }, (_, i) => ({
  id: i + 1,
  name: `Gateway ${String(i + 1).padStart(3, '0')}`,
  product_key: `pk_fleet_${String(i + 1).padStart(3, '0')}`,
}));

function serveFleet() {
  return mockApi({
    'GET /api/products': (_body, url) => {
      const keyword = (url.searchParams.get('keyword') ?? '').toLowerCase();
      const current = Number(url.searchParams.get('current') ?? 1);
      const perPage = Number(url.searchParams.get('per_page') ?? 20);
      const hits = FLEET.filter(
        (p) => p.name.toLowerCase().includes(keyword) || p.product_key.includes(keyword),
      );
      return { data: hits.slice((current - 1) * perPage, current * perPage), total: hits.length };
    },
  });
}

function renderSelect(props: Parameters<typeof ProductSelect>[0]) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  localStorage.setItem('token', 'test-token');
  const view = render(
    <QueryClientProvider client={client}>
      <ProductSelect data-testid="pick" placeholder="Product" {...props} />
    </QueryClientProvider>,
  );
  return view;
}

const openList = async (container: HTMLElement) => {
  await act(async () => fireEvent.click(container.querySelector('.arco-select-view')!));
};
const optionNamed = (text: string) =>
  [...document.querySelectorAll('.arco-select-option')].find((o) => o.textContent === text)!;
const optionTexts = () => [...document.querySelectorAll('.arco-select-option')].map((o) => o.textContent);

describe('ProductSelect', () => {
  it('finds the 250th of 300 products by typing, searching on the server', async () => {
    const calls = serveFleet();
    const onChange = vi.fn();
    const { container } = renderSelect({ onChange });
    await openList(container);
    await waitFor(() => expect(optionTexts().length).toBe(PRODUCT_PICK_PAGE));
    // The first page does not hold it.
    expect(optionTexts()).not.toContain('Gateway 250 (pk_fleet_250)');
    const input = container.querySelector('input')!;
    await act(async () => fireEvent.change(input, { target: { value: 'gateway 250' } }));
    await waitFor(() => expect(optionTexts()).toEqual(['Gateway 250 (pk_fleet_250)']));
    expect(calls.some((c) => c.path === '/api/products' && c.query.get('keyword') === 'gateway 250')).toBe(
      true,
    );
    await act(async () => fireEvent.click(optionNamed('Gateway 250 (pk_fleet_250)')));
    expect(onChange).toHaveBeenCalledWith('pk_fleet_250');
  });

  it('finds a product by its ProductKey', async () => {
    serveFleet();
    const { container } = renderSelect({});
    await openList(container);
    const input = container.querySelector('input')!;
    await act(async () => fireEvent.change(input, { target: { value: 'pk_fleet_299' } }));
    await waitFor(() => expect(optionTexts()).toEqual(['Gateway 299 (pk_fleet_299)']));
  });

  it('loads the next page when the list is scrolled to its end', async () => {
    const calls = serveFleet();
    const { container } = renderSelect({});
    await openList(container);
    await waitFor(() => expect(optionTexts().length).toBe(PRODUCT_PICK_PAGE));
    const list = document.querySelector('.arco-select-popup-inner') as HTMLElement;
    // jsdom has no layout: give the list a size that says "scrolled to the end".
    Object.defineProperty(list, 'scrollHeight', { configurable: true, value: 1000 });
    Object.defineProperty(list, 'clientHeight', { configurable: true, value: 200 });
    list.scrollTop = 800;
    await act(async () => fireEvent.scroll(list));
    // (The list is virtual past a length, so the rendered options do not tell how many are loaded.)
    await waitFor(() =>
      expect(calls.filter((c) => c.path === '/api/products').map((c) => c.query.get('current'))).toEqual([
        '1',
        '2',
      ]),
    );
  });

  it("shows a chosen product's name although it is not on the loaded page", async () => {
    serveFleet();
    const { container } = renderSelect({
      value: 'pk_fleet_280',
      known: [{ product_key: 'pk_fleet_280', name: 'Gateway 280' }],
    });
    await waitFor(() => expect(container.textContent).toContain('Gateway 280 (pk_fleet_280)'));
  });

  it('picks several products in multiple mode, searching each', async () => {
    serveFleet();
    const onChange = vi.fn();
    const { container } = renderSelect({ multiple: true, value: ['pk_fleet_001'], onChange });
    await openList(container);
    const input = container.querySelector('input')!;
    await act(async () => fireEvent.change(input, { target: { value: 'Gateway 251' } }));
    await waitFor(() => expect(optionTexts()).toContain('Gateway 251 (pk_fleet_251)'));
    await act(async () => fireEvent.click(optionNamed('Gateway 251 (pk_fleet_251)')));
    expect(onChange).toHaveBeenCalledWith(['pk_fleet_001', 'pk_fleet_251']);
  });
});
