import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RealtimeStatus } from '../../../lib/realtime';
import { otaTask } from '../task-fixture.test-kit';
import { TaskHeaderExtra } from './task-header-extra';

const task = otaTask();

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
