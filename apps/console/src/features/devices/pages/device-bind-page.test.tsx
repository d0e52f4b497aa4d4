import type * as Arco from '@arco-design/web-react';
import { Message } from '@arco-design/web-react';
import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/request';
import { useBindDevice } from '../api';
import DeviceBindPage from './device-bind-page';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));
vi.mock('../api', () => ({ useBindDevice: vi.fn() }));

const mutateAsync = vi.fn();

describe('bind a device', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    localStorage.setItem('arco-locale', 'en-US');
    vi.mocked(useBindDevice).mockReturnValue({ mutateAsync, isPending: false } as never);
  });

  const submit = () => {
    fireEvent.change(screen.getByPlaceholderText('Serial number of the device'), {
      target: { value: 'SN1' },
    });
    fireEvent.change(screen.getByPlaceholderText('From the label, or given by the seller'), {
      target: { value: 'wrong' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Bind' }));
  };

  it('says a wrong secret once, beside the field, with no toast', async () => {
    mutateAsync.mockRejectedValue(new ApiError(10117, 'Device does not exist', 400));
    render(<DeviceBindPage />, { wrapper: MemoryRouter });
    submit();
    expect(await screen.findByText('Wrong serial number or secret')).toBeTruthy();
    expect(mutateAsync).toHaveBeenCalledWith({ sn: 'SN1', secret: 'wrong' });
    expect(Message.error).not.toHaveBeenCalled();
  });

  it('toasts other refusals, which have no field to sit beside', async () => {
    mutateAsync.mockRejectedValue(new ApiError(10104, 'Too many requests', 429));
    render(<DeviceBindPage />, { wrapper: MemoryRouter });
    submit();
    await vi.waitFor(() => expect(Message.error).toHaveBeenCalledWith('Too many requests'));
    expect(screen.queryByText('Wrong serial number or secret')).toBeNull();
  });
});
