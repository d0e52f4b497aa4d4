import type * as Arco from '@arco-design/web-react';
import { OTA_TASK_STATUSES, type OtaTaskStatus } from '@cellhub/contract/ota';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { http } from '../../../lib/request';
import { otaTask } from '../task-fixture.test-kit';
import { TaskActions } from './task-actions';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));

const task = (status: OtaTaskStatus) => otaTask({ status });

function renderActions(status: OtaTaskStatus) {
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <TaskActions task={task(status)} />
    </QueryClientProvider>,
  );
}

const enabled = () =>
  screen
    .getAllByRole('button')
    .filter((b) => !(b as HTMLButtonElement).disabled)
    .map((b) => b.textContent);

describe('task actions', () => {
  beforeEach(() => {
    localStorage.setItem('arco-locale', 'en-US');
    vi.restoreAllMocks();
  });

  // Seed section 4 as docs/ota.md's table says it: each state enables exactly its actions.
  const expected: Record<OtaTaskStatus, string[]> = {
    inactive: ['Start', 'Cancel task', 'Delete'],
    running: ['Pause', 'Cancel task'],
    paused: ['Resume', 'Cancel task'],
    done: ['Delete'],
    cancelled: ['Delete'],
  };
  for (const status of OTA_TASK_STATUSES) {
    it(`enables ${expected[status].join(', ')} for a ${status} task`, () => {
      renderActions(status);
      expect(enabled()).toEqual(expected[status]);
    });
  }

  it('starts only after the confirmation, which names the devices and the data volume', async () => {
    const post = vi.spyOn(http, 'post').mockResolvedValue({ ...task('running') });
    renderActions('inactive');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Start' })));
    expect(post).not.toHaveBeenCalled();
    expect(
      await screen.findByText('Firmware 2.1.0 goes to 3 devices in waves, about 6 MB of cellular data.'),
    ).toBeTruthy();
    // Arco's own button texts follow its config context, which tests do not load; the primary one is OK.
    const ok = document.querySelector('.arco-popconfirm .arco-btn-primary');
    expect(ok).toBeTruthy();
    await act(async () => fireEvent.click(ok!));
    await waitFor(() => expect(post).toHaveBeenCalledWith('/api/ota/tasks/42/start'));
  });

  it('pauses a running task at once', async () => {
    const post = vi.spyOn(http, 'post').mockResolvedValue({ ...task('paused') });
    renderActions('running');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Pause' })));
    await waitFor(() => expect(post).toHaveBeenCalledWith('/api/ota/tasks/42/pause'));
  });
});
