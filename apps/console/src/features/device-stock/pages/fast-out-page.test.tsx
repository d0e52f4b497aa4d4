import type * as Arco from '@arco-design/web-react';
import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/request';
import { checkSns, useGroupOptions, useShip, useShipment, useShipments } from '../api';
import FastOutPage from './fast-out-page';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));
vi.mock('../api', () => ({
  checkSns: vi.fn(),
  groupStockSns: vi.fn(),
  useGroupOptions: vi.fn(),
  useShip: vi.fn(),
  useShipment: vi.fn(),
  useShipments: vi.fn(),
}));

const mutateAsync = vi.fn();

describe('fast stock out', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    localStorage.setItem('arco-locale', 'en-US');
    vi.mocked(checkSns).mockImplementation(async (sns) =>
      sns.map((sn) => ({ sn, state: 'in_stock' as const, code: 0, product_name: 'DTU' })),
    );
    vi.mocked(useGroupOptions).mockReturnValue({ data: [], isLoading: false } as never);
    vi.mocked(useShip).mockReturnValue({ mutateAsync, isPending: false } as never);
    vi.mocked(useShipment).mockReturnValue({ data: undefined } as never);
    vi.mocked(useShipments).mockReturnValue({ data: { data: [], total: 0 }, isFetching: false } as never);
  });

  const scanAndShip = async (customer: string) => {
    render(<FastOutPage />, { wrapper: MemoryRouter });
    fireEvent.change(screen.getByPlaceholderText("The customer's username or phone number"), {
      target: { value: customer },
    });
    const scanner = screen.getByPlaceholderText('Scan a barcode, or type a serial number and press Enter');
    fireEvent.change(scanner, { target: { value: 'SN0001' } });
    fireEvent.keyDown(scanner, { key: 'Enter', keyCode: 13, code: 'Enter' });
    const ship = await screen.findByRole('button', { name: /Ship 1 devices/ });
    await vi.waitFor(() => expect((ship as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(ship);
  };

  it('says a disabled customer account beside its field and keeps the scanned lines', async () => {
    mutateAsync.mockRejectedValue(new ApiError(10103, 'This account has been disabled', 400));
    await scanAndShip('carol');
    expect(await screen.findByText('This account is disabled: nothing can be shipped to it')).toBeTruthy();
    expect(mutateAsync).toHaveBeenCalledWith({ customer: 'carol', sns: ['SN0001'], note: '' });
    expect(screen.getByText('SN0001')).toBeTruthy();
  });

  it('says an unknown account, and a shipment that went through with its count', async () => {
    mutateAsync.mockRejectedValueOnce(new ApiError(10107, 'No such customer account', 400));
    await scanAndShip('nobody');
    expect(await screen.findByText('No such account')).toBeTruthy();
    mutateAsync.mockResolvedValueOnce({
      shipment: {
        id: 1,
        customer: 'alice',
        customer_uid: 2,
        created_by: 'admin',
        count: 1,
        note: '',
        createdat: '',
      },
      shipped: 1,
      failed: 0,
      lines: [{ sn: 'SN0001', code: 0, result: 'shipped' }],
    });
    fireEvent.change(screen.getByPlaceholderText("The customer's username or phone number"), {
      target: { value: 'alice' },
    });
    fireEvent.click(screen.getByRole('button', { name: /Ship 1 devices/ }));
    expect(await screen.findByText(/1 shipped to alice, 0 failed/)).toBeTruthy();
  });
});
