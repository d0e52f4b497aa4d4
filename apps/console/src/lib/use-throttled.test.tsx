import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useThrottled } from './use-throttled';

describe('useThrottled', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('passes the first value at once, then the newest at most once per interval', () => {
    const { result, rerender } = renderHook(({ v, scope }) => useThrottled(v, 5000, scope), {
      initialProps: { v: 1, scope: 'a' },
    });
    expect(result.current).toBe(1);
    // A second passes: a new value waits for the end of the interval.
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    rerender({ v: 2, scope: 'a' });
    expect(result.current).toBe(1);
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    rerender({ v: 3, scope: 'a' });
    expect(result.current).toBe(1);
    act(() => {
      vi.advanceTimersByTime(2999);
    });
    expect(result.current).toBe(1);
    // Five seconds after the first: the newest, not the one in between.
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(result.current).toBe(3);
    // Nothing new: nothing pending.
    expect(vi.getTimerCount()).toBe(0);
    // After a quiet interval a change passes at once.
    act(() => {
      vi.advanceTimersByTime(6000);
    });
    rerender({ v: 4, scope: 'a' });
    expect(result.current).toBe(4);
  });

  it('shows the first value that is not undefined at once (the first fetch)', () => {
    const { result, rerender } = renderHook(({ v }) => useThrottled<number | undefined>(v, 5000, 'a'), {
      initialProps: { v: undefined as number | undefined },
    });
    expect(result.current).toBeUndefined();
    act(() => {
      vi.advanceTimersByTime(300);
    });
    rerender({ v: 7 });
    expect(result.current).toBe(7);
  });

  it('shows the first value of a new scope at once (another property, another range)', () => {
    const { result, rerender } = renderHook(({ v, scope }) => useThrottled(v, 5000, scope), {
      initialProps: { v: 'temp 24h', scope: 'temp/24h' },
    });
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    rerender({ v: 'temp 24h live', scope: 'temp/24h' });
    expect(result.current).toBe('temp 24h');
    rerender({ v: 'hum 24h', scope: 'hum/24h' });
    expect(result.current).toBe('hum 24h');
    // The pending value of the old scope never shows.
    act(() => {
      vi.advanceTimersByTime(10_000);
    });
    expect(result.current).toBe('hum 24h');
  });
});
