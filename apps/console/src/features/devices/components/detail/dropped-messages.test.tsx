import type { DeviceDrops } from '@cellhub/contract/device-drops';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { http } from '../../../../lib/request';
import DroppedMessages from './dropped-messages';

function renderDrops(drops: DeviceDrops, fallback = 0) {
  const get = vi.spyOn(http, 'get').mockResolvedValue(drops);
  render(
    <QueryClientProvider client={new QueryClient()}>
      <DroppedMessages sn="SN-1" fallback={fallback} />
    </QueryClientProvider>,
  );
  return get;
}

describe('DroppedMessages', () => {
  beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));
  afterEach(() => vi.restoreAllMocks());

  it('shows the total and one tag per reason, from the device drops route', async () => {
    const get = renderDrops({
      total: 8,
      reasons: [
        { reason: 'rate_limit', count: 6, last_at: '2026-01-01T00:00:00.000Z' },
        { reason: 'too_large', count: 2, last_at: '2026-01-01T00:00:00.000Z' },
      ],
    });
    await waitFor(() =>
      expect(screen.getByTestId('device-dropped-rate_limit').textContent).toBe('Over the rate 6'),
    );
    expect(get).toHaveBeenCalledWith('/api/devices/SN-1/drops', { silent: true });
    expect(screen.getByTestId('device-dropped-total').textContent).toBe('8');
    expect(screen.getByTestId('device-dropped-too_large').textContent).toBe('Too large 2');
    expect(screen.queryByText(/Earlier, no reason/)).toBeNull();
  });

  it('shows drops counted before reasons were as a remainder', async () => {
    renderDrops(
      { total: 5, reasons: [{ reason: 'invalid', count: 2, last_at: '2026-01-01T00:00:00.000Z' }] },
      5,
    );
    await waitFor(() => expect(screen.getByText('Earlier, no reason 3')).toBeTruthy());
    expect(screen.getByTestId('device-dropped-invalid').textContent).toBe('Invalid 2');
  });
});
