import type * as Arco from '@arco-design/web-react';
import {
  COMMAND_STATUSES,
  type CommandItem,
  type CommandStatus,
  type DeviceDetail,
} from '@cellhub/contract/devices';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { http } from '../../../../lib/request';
import CommandsPanel from './commands-panel';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));

const device = { sn: 'SN-1', product_key: 'pk01', online: 0 } as DeviceDetail;

const command = (status: CommandStatus, i: number): CommandItem => {
  const queued = ['pending', 'expired', 'cancelled'].includes(status);
  return {
    id: `c${i}`,
    sn: 'SN-1',
    type: 'hex',
    data: `0${i}`,
    status,
    code: status === 'replied' ? 0 : null,
    reply: null,
    uid: 2,
    sentat: '2025-01-01T00:00:00.000Z',
    repliedat: null,
    latency_ms: null,
    queuedat: queued ? '2025-01-01T00:00:00.000Z' : null,
    expiresat: queued ? '2025-01-02T00:00:00.000Z' : null,
  };
};

function renderPanel(rows: CommandItem[]) {
  vi.spyOn(http, 'list').mockResolvedValue({ data: rows, total: rows.length, totalExact: true });
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <CommandsPanel d={device} />
    </QueryClientProvider>,
  );
}

const rowOf = (id: string) => screen.getByTestId(`command-status-${id}`).closest('tr') as HTMLElement;

describe('commands panel', () => {
  beforeEach(() => {
    localStorage.setItem('arco-locale', 'en-US');
    vi.restoreAllMocks();
  });

  it('shows every state with its colour, and Cancel only on pending commands', async () => {
    renderPanel(COMMAND_STATUSES.map(command));
    await screen.findByTestId('command-status-c0');
    const label: Record<CommandStatus, string> = {
      pending: 'Pending',
      sent: 'Sent',
      replied: 'Replied',
      timeout: 'Timed out',
      failed: 'Failed',
      expired: 'Expired',
      cancelled: 'Cancelled',
    };
    COMMAND_STATUSES.forEach((status, i) => {
      const cell = screen.getByTestId(`command-status-c${i}`);
      expect(cell.textContent, status).toContain(label[status]);
      const cancel = within(rowOf(`c${i}`)).queryByRole('button', { name: 'Cancel' });
      expect(Boolean(cancel), status).toBe(status === 'pending');
    });
    // Colours: the queue's own states are told apart from the others.
    const dot = (id: string) =>
      screen.getByTestId(`command-status-${id}`).querySelector('.arco-badge-status-dot');
    expect(dot('c0')!.className).toContain('purple');
    expect(dot('c5')!.className).toContain('gold');
    expect(dot('c6')!.className).toContain('gray');
    // A pending command says until when it waits.
    expect(within(rowOf('c0')).getByText(/^until /)).toBeTruthy();
  });

  it('cancels a pending command only after the confirmation', async () => {
    const post = vi.spyOn(http, 'post').mockResolvedValue(command('cancelled', 0));
    renderPanel([command('pending', 0)]);
    const cancel = await screen.findByRole('button', { name: 'Cancel' });
    await act(async () => fireEvent.click(cancel));
    expect(await screen.findByText('Cancel this queued command? It will not be sent.')).toBeTruthy();
    expect(post).not.toHaveBeenCalled();
    const ok = document.querySelector('.arco-popconfirm .arco-btn-primary');
    await act(async () => fireEvent.click(ok!));
    await waitFor(() => expect(post).toHaveBeenCalledWith('/api/devices/SN-1/commands/c0/cancel', undefined));
  });

  it('sends with "fail now" by default, and with the queue and its hours when chosen', async () => {
    const post = vi.spyOn(http, 'post').mockResolvedValue(command('pending', 9));
    renderPanel([]);
    fireEvent.change(screen.getByTestId('command-data'), { target: { value: '0102' } });
    expect(screen.queryByTestId('command-ttl')).toBeNull();
    await act(async () => fireEvent.click(screen.getByTestId('command-send')));
    await waitFor(() => expect(post).toHaveBeenCalledTimes(1));
    expect(post.mock.calls[0]![1]).toEqual({ type: 'hex', data: '0102' });

    await act(async () => fireEvent.click(screen.getByText('Queue')));
    const ttl = (await screen.findByTestId('command-ttl')) as HTMLInputElement;
    expect(ttl.value).toBe('24');
    fireEvent.change(ttl, { target: { value: '2' } });
    fireEvent.blur(ttl);
    await act(async () => fireEvent.click(screen.getByTestId('command-send')));
    await waitFor(() => expect(post).toHaveBeenCalledTimes(2));
    expect(post.mock.calls[1]![1]).toEqual({
      type: 'hex',
      data: '0102',
      offline: 'queue',
      ttl_seconds: 7200,
    });
  });

  it('takes hex written in bytes ("a1 b2") and sends it without the blanks; 0x is still refused', async () => {
    const post = vi.spyOn(http, 'post').mockResolvedValue(command('replied', 8));
    renderPanel([]);
    fireEvent.change(screen.getByTestId('command-data'), { target: { value: 'a1 b2  0C' } });
    await act(async () => fireEvent.click(screen.getByTestId('command-send')));
    await waitFor(() => expect(post).toHaveBeenCalledTimes(1));
    expect(post.mock.calls[0]![1]).toEqual({ type: 'hex', data: 'a1b20C' });

    fireEvent.change(screen.getByTestId('command-data'), { target: { value: '0x a1' } });
    await act(async () => fireEvent.click(screen.getByTestId('command-send')));
    expect(await screen.findByText(/0x/)).toBeTruthy();
    expect(post).toHaveBeenCalledTimes(1);
  });
});
