import type * as Arco from '@arco-design/web-react';
import type { InboxItem, InboxUnread } from '@cellhub/contract/inbox';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { http } from '../../lib/request';
import { MessageBox, messageLink } from './message-box';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));

const msg = (id: number, over: Partial<InboxItem>): InboxItem => ({
  id,
  kind: 'alert_raised',
  category: 'alert',
  params: {},
  target_type: null,
  target_key: null,
  created_at: '2026-01-01T00:00:00.000Z',
  read_at: null,
  ...over,
});

const ALERT = msg(3, {
  params: { alert_id: 7, trigger_name: 'too hot', sn: 'SN001', device_name: 'Boiler', value: '41' },
  target_type: 'alert',
  target_key: '7',
});
const OTA = msg(2, {
  kind: 'ota_finished',
  category: 'ota',
  params: { task_id: 42, task_name: 'night', succeeded: 3, failed: 1, skipped: 0, reason: 'window_ended' },
  target_type: 'ota_task',
  target_key: '42',
  read_at: '2026-01-01T00:05:00.000Z',
});

function Where() {
  return <div data-testid="where">{useLocation().pathname}</div>;
}

function show() {
  return render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={['/dashboard/workplace']}>
        <MessageBox />
        <Routes>
          <Route path="*" element={<Where />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

function serve(lists: Partial<Record<string, InboxItem[] | Error>>, unread: InboxUnread) {
  vi.spyOn(http, 'get').mockImplementation(async (url) => {
    if (url === '/api/inbox/unread') return unread as never;
    throw new Error(`unexpected ${url}`);
  });
  return vi.spyOn(http, 'list').mockImplementation(async (_url, params) => {
    const got = lists[String(params?.category)] ?? [];
    if (got instanceof Error) throw got;
    return { data: got as never[], total: got.length };
  });
}

describe('message box', () => {
  beforeEach(() => {
    localStorage.setItem('arco-locale', 'en-US');
    vi.restoreAllMocks();
  });

  it('shows unread counts per tab and words each kind in the chosen language', async () => {
    serve({ alert: [ALERT], ota: [OTA] }, { total: 2, alert: 1, ota: 0, sim: 1 });
    show();
    expect(await screen.findByText('Alert: too hot')).toBeTruthy();
    expect(screen.getByText('Device Boiler raised it with value 41')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('inbox-tab-alert').textContent).toBe('Alerts (1)'));
    expect(screen.getByTestId('inbox-tab-sim').textContent).toBe('SIM (1)');
    expect(screen.getByTestId('inbox-tab-ota').textContent).toBe('OTA');
    fireEvent.click(screen.getByText('OTA'));
    expect(await screen.findByText('OTA task "night" finished')).toBeTruthy();
    expect(screen.getByText('3 succeeded, 1 failed, 0 skipped (its time window ended)')).toBeTruthy();
    // A read message offers no "mark read".
    expect(screen.queryByRole('button', { name: 'Mark read' })).toBeNull();
  });

  it('marks a message read and opens what it is about; marks a whole tab read', async () => {
    serve({ alert: [ALERT] }, { total: 1, alert: 1, ota: 0, sim: 0 });
    const post = vi.spyOn(http, 'post').mockResolvedValue({ read: 1 } as never);
    show();
    fireEvent.click(await screen.findByRole('button', { name: 'Mark read' }));
    await waitFor(() => expect(post).toHaveBeenCalledWith('/api/inbox/3/read'));
    expect(screen.getByTestId('where').textContent).toBe('/dashboard/workplace');
    fireEvent.click(screen.getByText('Alert: too hot'));
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/alert/device-trigger/list'));
    fireEvent.click(screen.getByRole('button', { name: 'Mark all as read' }));
    await waitFor(() => expect(post).toHaveBeenCalledWith('/api/inbox/read', { category: 'alert' }));
  });

  it('says when a tab is empty (mark all disabled) and when loading failed', async () => {
    serve({ alert: [], sim: new Error('down') }, { total: 0, alert: 0, ota: 0, sim: 0 });
    show();
    expect(await screen.findByText('No alert messages')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Mark all as read' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    fireEvent.click(screen.getByText('SIM'));
    expect(await screen.findByText('Could not load messages')).toBeTruthy();
  });

  it('speaks Chinese by default', async () => {
    localStorage.setItem('arco-locale', 'zh-CN');
    serve(
      {
        sim: [
          msg(5, {
            kind: 'sim_data_low',
            category: 'sim',
            params: { iccid: '8986001', phone: '', remaining_mb: 12.5, percent: 10 },
            target_type: 'sim_card',
            target_key: '8986001',
          }),
        ],
      },
      { total: 1, alert: 0, ota: 0, sim: 1 },
    );
    show();
    expect(await screen.findByText('暂无告警消息')).toBeTruthy();
    fireEvent.click(screen.getByText(/物联网卡/));
    expect(await screen.findByText('物联网卡 8986001 流量不足 10%')).toBeTruthy();
    expect(screen.getByText('剩余流量 12.5 MB，请续费或更换套餐')).toBeTruthy();
  });

  it('words a share received and opens the device, or the shared list for several', async () => {
    const one = msg(6, {
      kind: 'share_received',
      params: { from: 'alice', count: 1, right: 'control', sn: 'SN9', device_name: 'Pump' },
      target_type: 'device',
      target_key: 'SN9',
    });
    serve({ alert: [one] }, { total: 1, alert: 1, ota: 0, sim: 0 });
    vi.spyOn(http, 'post').mockResolvedValue({ read: 1 } as never);
    show();
    expect(await screen.findByText('alice shared 1 device(s) with you')).toBeTruthy();
    expect(screen.getByText('Device Pump, control right')).toBeTruthy();
    fireEvent.click(screen.getByText('alice shared 1 device(s) with you'));
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/device/detail/-/SN9'));
    const many = { kind: 'share_received' as const, target_type: null, target_key: null };
    expect(messageLink(many)).toBe('/myshare/list?tab=incoming');
  });

  it('words a disabled script with its failing line and opens the script', async () => {
    const m = msg(7, {
      kind: 'script_disabled',
      params: {
        script_id: 4,
        script_name: 'Decoder',
        version: 2,
        failures: 20,
        error: 'RangeError: bad',
        line: 3,
      },
      target_type: 'script',
      target_key: '4',
    });
    serve({ alert: [m] }, { total: 1, alert: 1, ota: 0, sim: 0 });
    vi.spyOn(http, 'post').mockResolvedValue({ read: 1 } as never);
    show();
    expect(await screen.findByText('Script "Decoder" was disabled')).toBeTruthy();
    expect(screen.getByText('It failed 20 times in a row, line 3: RangeError: bad')).toBeTruthy();
    fireEvent.click(screen.getByText('Script "Decoder" was disabled'));
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/script/detail/4'));
  });
});
