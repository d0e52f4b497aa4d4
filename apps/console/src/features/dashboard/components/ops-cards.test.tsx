import type * as Arco from '@arco-design/web-react';
import type { AlertHistoryItem } from '@cellhub/contract/alerts';
import type { DashboardWorkplace } from '@cellhub/contract/dashboard';
import type { SimCardItem } from '@cellhub/contract/sim';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { http } from '../../../lib/request';
import { otaTask } from '../../ota/task-fixture.test-kit';
import { AlertsBlock, OfflineBlock, type OpsState, OtaBlock, SimBlock } from './ops-cards';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));

const alert = (id: number, acked = false): AlertHistoryItem => ({
  id,
  trigger_id: 1,
  trigger_name: `too hot ${id}`,
  uid: 2,
  sn: `SN00${id}`,
  device_name: `Boiler ${id}`,
  product_key: 'pk01',
  key: 'temp',
  property_name: '温度',
  property_name_us: 'Temperature',
  type: 4,
  a: null,
  b: 30,
  status: 'active',
  raised_at: '2026-01-01T00:00:00.000Z',
  raised_value: 41,
  recovered_at: null,
  recovered_value: null,
  push_count: 0,
  acknowledged_at: acked ? '2026-01-01T00:01:00.000Z' : null,
  acknowledged_by: acked ? 'ada' : null,
});

const task = otaTask({
  name: 'night rollout',
  size: 1024,
  status: 'running',
  createdat: '2026-01-01T00:00:00.000Z',
  updatedat: '2026-01-01T00:00:00.000Z',
  device_count: 4,
  success_count: 2,
  fail_count: 1,
  upgrading_count: 1,
  pending_count: 0,
});

const card = (iccid: string, expiry: string | null): SimCardItem =>
  ({ iccid, expiry, flags: [] }) as unknown as SimCardItem;

const empty: DashboardWorkplace = {
  alerts: { total: 0, items: [] },
  ota: { total: 0, items: [] },
  sim_expiring: { total: 0, items: [] },
  sim_exhausted: { total: 0, items: [] },
  offline_today: { total: 0, items: [] },
  since: '2026-01-01T00:00:00.000Z',
};

const filled: DashboardWorkplace = {
  alerts: { total: 12, items: [alert(1), alert(2, true)] },
  ota: { total: 1, items: [task] },
  sim_expiring: {
    total: 3,
    items: [card('89860000000000000011', new Date(Date.now() + 5 * 86_400_000).toISOString())],
  },
  sim_exhausted: { total: 1, items: [card('89860000000000000022', null)] },
  offline_today: {
    total: 1,
    items: [{ sn: 'SN009', name: 'Pump', product_key: 'pk02', product_name: 'Pumps', last_seen: null }],
  },
  since: '2026-01-01T00:00:00.000Z',
};

const state = (s: Partial<OpsState>): OpsState => ({
  data: undefined,
  isLoading: false,
  isError: false,
  refetch: vi.fn(),
  ...s,
});

function show(node: ReactNode) {
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter>{node}</MemoryRouter>
    </QueryClientProvider>,
  );
}

const all = (s: OpsState) => (
  <>
    <AlertsBlock state={s} />
    <OtaBlock state={s} />
    <SimBlock state={s} />
    <OfflineBlock state={s} />
  </>
);

describe('Workplace operations blocks', () => {
  beforeEach(() => {
    localStorage.setItem('arco-locale', 'en-US');
    vi.restoreAllMocks();
  });

  it('show a skeleton while loading', () => {
    const { container } = show(all(state({ isLoading: true })));
    expect(container.querySelectorAll('.arco-skeleton')).toHaveLength(4);
  });

  it('say what failed and retry', () => {
    const s = state({ isError: true });
    show(all(s));
    expect(screen.getAllByText('Could not load')).toHaveLength(4);
    fireEvent.click(within(screen.getByTestId('ops-alerts')).getByRole('button', { name: 'Retry' }));
    expect(s.refetch).toHaveBeenCalledTimes(1);
  });

  it('say each block is empty, in the chosen language', () => {
    const zh = show(all(state({ data: empty })));
    localStorage.setItem('arco-locale', 'zh-CN');
    zh.unmount();
    show(all(state({ data: empty })));
    expect(screen.getByText('没有活动告警')).toBeTruthy();
    expect(screen.getByText('今天没有设备离线')).toBeTruthy();
    cleanup();
    show(all(state({ data: filled })));
    expect(within(screen.getByTestId('ops-alerts')).getByText('too hot 1 · 温度 41')).toBeTruthy();
    cleanup();
    localStorage.setItem('arco-locale', 'en-US');
    show(all(state({ data: empty })));
    for (const text of [
      'No active alerts',
      'No OTA task is running',
      'No card expiring soon or out of data',
      'No device went offline today',
    ])
      expect(screen.getByText(text)).toBeTruthy();
  });

  it('list the rows with their counts and links to the pages they open', () => {
    show(all(state({ data: filled })));
    const alerts = screen.getByTestId('ops-alerts');
    expect(within(alerts).getByText('12')).toBeTruthy();
    expect(within(alerts).getByText('Boiler 1').closest('a')?.getAttribute('href')).toBe(
      '/device/detail/pk01/SN001',
    );
    expect(
      within(alerts)
        .getByText(/too hot 1/)
        .closest('a')
        ?.getAttribute('href'),
    ).toBe('/alert/device-trigger/list?tab=history');
    expect(within(alerts).getByText('Acknowledged')).toBeTruthy();
    // The property in the chosen language: English name in en-US (Chinese in zh-CN, below).
    expect(within(alerts).getByText('too hot 1 · Temperature 41')).toBeTruthy();

    const ota = screen.getByTestId('ops-ota');
    expect(within(ota).getByText('night rollout').closest('a')?.getAttribute('href')).toBe('/ota/task/42');
    expect(within(ota).getByText('75%')).toBeTruthy();
    expect(
      within(ota).getByText(/2 succeeded · 1 failed · 1 upgrading · 0 waiting \/ 4 devices/),
    ).toBeTruthy();

    const sim = screen.getByTestId('ops-sim');
    expect(within(sim).getByText('4')).toBeTruthy();
    expect(within(sim).getByText('3 expiring within 30 days, 1 out of data')).toBeTruthy();
    expect(within(sim).getByText('Out of data')).toBeTruthy();
    expect(within(sim).getByText('Expires in 5 d')).toBeTruthy();
    expect(within(sim).getByText('89860000000000000011').closest('a')?.getAttribute('href')).toBe(
      '/card/detail/89860000000000000011',
    );

    const offline = screen.getByTestId('ops-offline');
    expect(within(offline).getByText('Pump').closest('a')?.getAttribute('href')).toBe(
      '/device/detail/pk02/SN009',
    );
  });

  it('acknowledge an alert through the alert API', async () => {
    const post = vi.spyOn(http, 'post').mockResolvedValue(alert(1, true));
    show(<AlertsBlock state={state({ data: filled })} />);
    fireEvent.click(screen.getByRole('button', { name: 'Acknowledge' }));
    await waitFor(() => expect(post).toHaveBeenCalledWith('/api/alert/history/1/ack'));
  });
});
