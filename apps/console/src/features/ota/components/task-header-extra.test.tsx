import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import type { OtaTaskItem } from '@cellhub/contract/ota';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RealtimeStatus } from '../../../lib/realtime';
import { TaskHeaderExtra } from './task-header-extra';

const task: OtaTaskItem = {
  id: 42,
  uid: 2,
  owner: 'ada',
  name: 'rollout',
  description: '',
  product_key: 'pk01',
  product_name: 'DTU',
  firmware_id: 3,
  firmware_name: 'main',
  version_id: 4,
  version: '2.1.0',
  size: 2 * 1024 * 1024,
  status: 'inactive',
  pause_reason: null,
  plan_time: null,
  start_time: null,
  end_time: null,
  window_end: null,
  createdat: '2025-01-01T00:00:00.000Z',
  updatedat: '2025-01-01T00:00:00.000Z',
  device_count: 3,
  success_count: 0,
  fail_count: 0,
  upgrading_count: 0,
  pending_count: 3,
  skipped_count: 0,
  cancelled_count: 0,
};

const client = new QueryClient();
const header = (live: RealtimeStatus) => (
  <QueryClientProvider client={client}>
    <TaskHeaderExtra task={task} live={live} />
  </QueryClientProvider>
);

describe('task page header', () => {
  beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));

  it('keeps an open start confirmation while the live badge comes and goes', async () => {
    const view = render(header('connecting'));
    const start = screen.getByRole('button', { name: 'Start' });
    await act(async () => fireEvent.click(start));
    const text = 'Firmware 2.1.0 goes to 3 devices in waves, about 6 MB of cellular data.';
    expect(await screen.findByText(text)).toBeTruthy();

    for (const live of ['open', 'reconnecting', 'open'] as const) {
      await act(async () => view.rerender(header(live)));
      // The same button, not a new one: the actions were not mounted again, and the confirmation is still open.
      expect(screen.getByRole('button', { name: 'Start' })).toBe(start);
      expect(screen.getByText(text)).toBeTruthy();
    }
    expect(screen.getByText('Live')).toBeTruthy();
  });
});
