import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useCountdown } from './use-countdown';

describe('useCountdown', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('counts down once a second and stops at zero', () => {
    const { result } = renderHook(() => useCountdown());
    expect(result.current[0]).toBe(0);
    act(() => result.current[1](3));
    expect(result.current[0]).toBe(3);
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(result.current[0]).toBe(2);
    act(() => {
      vi.advanceTimersByTime(5000);
    });
    expect(result.current[0]).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('restarts from the new value instead of running two timers', () => {
    const { result } = renderHook(() => useCountdown());
    act(() => result.current[1](10));
    act(() => {
      vi.advanceTimersByTime(4000);
    });
    act(() => result.current[1](5));
    expect(result.current[0]).toBe(5);
    expect(vi.getTimerCount()).toBe(1);
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(result.current[0]).toBe(4);
  });

  it('clears its timer on unmount', () => {
    const { result, unmount } = renderHook(() => useCountdown());
    act(() => result.current[1](30));
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });
});
