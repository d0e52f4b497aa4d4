import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../lib/request';
import { createWechatTicket, pollWechatTicket } from './api';
import { QR_POLL_INTERVAL_MS, useQrLogin } from './use-qr-login';

vi.mock('./api', () => ({ createWechatTicket: vi.fn(), pollWechatTicket: vi.fn() }));

const create = vi.mocked(createWechatTicket);
const poll = vi.mocked(pollWechatTicket);
const notScanned = () => new ApiError(20124, 'Not scanned', 400);

async function tick(ms = QR_POLL_INTERVAL_MS) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

describe('useQrLogin', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
    create.mockResolvedValue({ ticket: 't1', qr_url: 'https://open.example/qr?t=t1', expires_at: '' });
  });
  afterEach(() => vi.useRealTimers());

  it('keeps polling every 2 s while the code is not scanned, then signs in', async () => {
    poll.mockRejectedValueOnce(notScanned()).mockRejectedValueOnce(notScanned());
    poll.mockResolvedValueOnce({ token: 'tok', uid: 1, issuper: true });
    const onSuccess = vi.fn();
    const { result } = renderHook(() => useQrLogin(onSuccess));
    await tick(0);
    expect(result.current.phase).toBe('waiting');
    expect(result.current.qrUrl).toBe('https://open.example/qr?t=t1');
    expect(poll).not.toHaveBeenCalled();

    await tick();
    expect(poll).toHaveBeenCalledTimes(1);
    expect(result.current.phase).toBe('waiting');
    await tick();
    expect(poll).toHaveBeenCalledTimes(2);
    await tick();
    expect(poll).toHaveBeenCalledTimes(3);
    expect(poll).toHaveBeenLastCalledWith('t1');
    expect(onSuccess).toHaveBeenCalledWith({ token: 'tok', uid: 1, issuper: true });
    expect(result.current.phase).toBe('done');
  });

  it('stops on 20122 and shows the expired state; refresh asks for a new ticket', async () => {
    poll
      .mockRejectedValueOnce(notScanned())
      .mockRejectedValueOnce(new ApiError(20122, 'Ticket expired', 400));
    const { result } = renderHook(() => useQrLogin(vi.fn()));
    await tick(0);
    await tick();
    await tick();
    expect(result.current.phase).toBe('expired');
    await tick(QR_POLL_INTERVAL_MS * 5);
    expect(poll).toHaveBeenCalledTimes(2);

    create.mockResolvedValueOnce({ ticket: 't2', qr_url: 'https://open.example/qr?t=t2', expires_at: '' });
    poll.mockRejectedValue(notScanned());
    act(() => result.current.refresh());
    await tick(0);
    expect(result.current.phase).toBe('waiting');
    await tick();
    expect(poll).toHaveBeenLastCalledWith('t2');
  });

  it('maps 20123 to invalid and 20128 to failed', async () => {
    poll.mockRejectedValueOnce(new ApiError(20123, 'Ticket invalid', 400));
    const a = renderHook(() => useQrLogin(vi.fn()));
    await tick(0);
    await tick();
    expect(a.result.current.phase).toBe('invalid');
    a.unmount();

    poll.mockRejectedValueOnce(new ApiError(20128, 'QR login code failed', 400));
    const b = renderHook(() => useQrLogin(vi.fn()));
    await tick(0);
    await tick();
    expect(b.result.current.phase).toBe('failed');
  });

  it('stops polling when unmounted', async () => {
    poll.mockRejectedValue(notScanned());
    const { unmount } = renderHook(() => useQrLogin(vi.fn()));
    await tick(0);
    await tick();
    unmount();
    await tick(QR_POLL_INTERVAL_MS * 3);
    expect(poll).toHaveBeenCalledTimes(1);
  });
});

describe('useQrLogin without WeChat configured', () => {
  beforeEach(() => vi.clearAllMocks());

  it('says it is not configured (20128 on creation) instead of offering a refresh that cannot help', async () => {
    create.mockRejectedValue(new ApiError(20128, 'WeChat sign-in is not configured', 400));
    const { result } = renderHook(() => useQrLogin(vi.fn()));
    await vi.waitFor(() => expect(result.current.phase).toBe('not_configured'));
  });

  it('keeps "unavailable" (with its refresh) for a ticket that could not be made at all', async () => {
    create.mockRejectedValue(new ApiError(0, 'Network error', 0));
    const { result } = renderHook(() => useQrLogin(vi.fn()));
    await vi.waitFor(() => expect(result.current.phase).toBe('unavailable'));
  });
});
