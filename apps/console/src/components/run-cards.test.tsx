import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveRunCard, RunHistoryCard, TargetsCard } from './run-cards';

// The device picker asks the API for devices only when its list opens; an idle client is enough.
function withQueries(node: ReactNode) {
  return <QueryClientProvider client={new QueryClient()}>{node}</QueryClientProvider>;
}

describe('run cards', () => {
  beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));

  it('runs on the chosen targets from the targets card', async () => {
    const onRun = vi.fn();
    render(
      withQueries(
        <TargetsCard
          title="Send to devices"
          hint={<p>pick some</p>}
          targets={['SN-1']}
          onTargets={() => undefined}
          placeholder="devices"
          onlineText="online"
          offlineText="offline"
          action={{ label: 'Send', icon: null, loading: false, onRun }}
        />,
      ),
    );
    expect(screen.getByText('Send to devices')).toBeTruthy();
    expect(screen.getByText('pick some')).toBeTruthy();
    expect(screen.getByText('SN-1')).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Send' })));
    expect(onRun).toHaveBeenCalledTimes(1);
  });

  it('shows the live badge only while the run is followed', () => {
    const { rerender } = render(
      <LiveRunCard title="Results" following live liveText="Live">
        <p>results</p>
      </LiveRunCard>,
    );
    expect(screen.getByText('Live')).toBeTruthy();
    expect(screen.getByText('results')).toBeTruthy();
    rerender(
      <LiveRunCard title="Results" following={false} live liveText="Live">
        <p>results</p>
      </LiveRunCard>,
    );
    expect(screen.queryByText('Live')).toBeNull();
  });

  it('pages through earlier runs ten at a time', async () => {
    const onPage = vi.fn();
    const rows = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, at: `run ${i + 1}` }));
    render(
      <RunHistoryCard
        title="History"
        columns={[{ title: 'At', dataIndex: 'at' }]}
        data={rows}
        total={25}
        page={1}
        onPage={onPage}
      />,
    );
    expect(screen.getByText('run 10')).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByText('3')));
    expect(onPage).toHaveBeenCalledWith(3);
  });
});
