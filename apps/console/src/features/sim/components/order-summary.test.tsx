import type { BalanceInfo, OrderDetail, PackageItem } from '@cellhub/contract/sim';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, http } from '../../../lib/request';
import { OrderSummary, type PickedCard } from './order-summary';

const pkg: PackageItem = {
  id: 7,
  name: 'CM 1GB monthly',
  code: 'CM1G',
  operator: 'china_mobile',
  type: 'monthly',
  validity_unit: 'month',
  validity_count: 1,
  flow_mb: 1024,
  price_fen: 1999,
  remark: '',
  on_sale: true,
  card_count: 0,
  order_count: 0,
  createdat: '2025-01-01T00:00:00.000Z',
  updatedat: '2025-01-01T00:00:00.000Z',
};

const inMonths = (m: number) => new Date(Date.now() + m * 30 * 86_400_000).toISOString();
const cards: PickedCard[] = [
  {
    iccid: '89860412345678901111',
    phone: '',
    operator: 'china_mobile',
    package_id: 7,
    package_name: 'CM',
    expiry: inMonths(2),
  },
  {
    iccid: '89860412345678902222',
    phone: '',
    operator: 'china_mobile',
    package_id: null,
    package_name: null,
    expiry: null,
  },
];
const balance = (fen: number): BalanceInfo => ({ uid: 2, balance_fen: fen, updatedat: null });

const paidOrder = { id: 1, order_no: 'SO1', status: 'paid', cards: [] } as unknown as OrderDetail;

function renderSummary(props: Partial<Parameters<typeof OrderSummary>[0]> = {}) {
  const onPaid = vi.fn();
  render(
    <QueryClientProvider client={new QueryClient()}>
      <OrderSummary pkg={pkg} cards={cards} balance={balance(5000)} onPaid={onPaid} {...props} />
    </QueryClientProvider>,
  );
  return onPaid;
}

const payButton = () => screen.getByRole('button', { name: /Pay ¥39.98 from balance/ });

/** Clicks the pay button, then (after `beforeOk`) the confirmation's primary button. */
async function payAndConfirm(beforeOk?: () => void) {
  // The previous confirmation has closed and left the page.
  await waitFor(() => expect(document.querySelectorAll('.arco-modal')).toHaveLength(0), { timeout: 3000 });
  await act(async () => fireEvent.click(payButton()));
  await waitFor(() => expect(document.querySelectorAll('.arco-modal')).toHaveLength(1));
  const modal = document.querySelector('.arco-modal') as HTMLElement;
  expect(modal.textContent).toContain(
    '¥39.98 will be taken from your balance for "CM 1GB monthly" on 2 card(s)',
  );
  beforeOk?.();
  // Arco's own button texts follow its config context, which tests do not load; the primary one is OK.
  await act(async () => fireEvent.click(modal.querySelector('.arco-btn-primary')!));
}

const keyOf = (call: unknown[]) =>
  (call[2] as { headers: Record<string, string> }).headers['Idempotency-Key'];

describe('order summary', () => {
  beforeEach(() => {
    localStorage.setItem('arco-locale', 'en-US');
    vi.restoreAllMocks();
  });

  it('shows the total in yuan, the balance after it and what happens to each card', () => {
    renderSummary();
    expect(screen.getByTestId('sim-order-total').textContent).toBe('¥39.98');
    expect(screen.getByText('¥10.02')).toBeTruthy();
    // The first card renews (same package), the second gets its first one.
    expect(screen.getByText('Renewal')).toBeTruthy();
    expect(screen.getAllByText('New').length).toBeGreaterThan(0);
    expect((payButton() as HTMLButtonElement).disabled).toBe(false);
  });

  it('pays only after the confirmation, creating and paying in one call with an Idempotency-Key', async () => {
    const post = vi.spyOn(http, 'post').mockResolvedValue(paidOrder);
    const onPaid = renderSummary();
    await payAndConfirm(() => expect(post).not.toHaveBeenCalled());
    await waitFor(() => expect(onPaid).toHaveBeenCalledWith(paidOrder));
    expect(post).toHaveBeenCalledTimes(1);
    expect(post.mock.calls[0]![0]).toBe('/api/orders');
    expect(post.mock.calls[0]![1]).toEqual({ package_id: 7, iccids: cards.map((c) => c.iccid), pay: true });
    expect(keyOf(post.mock.calls[0]!)).toMatch(/^[\x21-\x7e]{1,64}$/);
  });

  it('sends the same key again after a lost answer, and a new one after a refusal', async () => {
    const post = vi
      .spyOn(http, 'post')
      .mockRejectedValueOnce(new ApiError(0, 'network', 0))
      .mockRejectedValueOnce(
        new ApiError(60002, 'Insufficient balance', 400, { balance_fen: 100, amount_fen: 3998 }),
      )
      .mockResolvedValueOnce(paidOrder);
    const onPaid = renderSummary();
    await payAndConfirm();
    expect(await screen.findByTestId('sim-pay-refusal')).toBeTruthy();
    expect(screen.getByTestId('sim-pay-refusal').textContent).toContain('will not charge twice');
    await payAndConfirm();
    await waitFor(() =>
      expect(screen.getByTestId('sim-pay-refusal').textContent).toBe(
        'Insufficient balance: ¥1.00 available, ¥39.98 needed. Ask an admin to top up.',
      ),
    );
    await payAndConfirm();
    await waitFor(() => expect(onPaid).toHaveBeenCalled());
    const [first, second, third] = post.mock.calls.map(keyOf);
    expect(second).toBe(first);
    expect(third).not.toBe(second);
  });

  it('does not let a payment start that the balance cannot cover', () => {
    renderSummary({ balance: balance(3000) });
    expect((payButton() as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText(/Insufficient balance: ¥30.00 available, ¥39.98 needed/)).toBeTruthy();
  });

  it('does not let a package of another operator be bought for a card', () => {
    renderSummary({ pkg: { ...pkg, operator: 'china_unicom' } });
    expect((payButton() as HTMLButtonElement).disabled).toBe(true);
    expect(
      screen.getByText(/This package is for China Unicom cards only; 2 chosen card\(s\) do not fit/),
    ).toBeTruthy();
  });
});
