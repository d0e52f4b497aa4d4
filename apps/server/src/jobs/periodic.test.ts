import { describe, expect, it, vi } from 'vitest';
import { startPeriodic } from './periodic';

const log = { warn: vi.fn() } as unknown as Parameters<typeof startPeriodic>[0]['log'];

describe('startPeriodic', () => {
  it('runs every interval, never overlapping, and stop waits for the run in progress', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let runs = 0;
    let inside = 0;
    let maxInside = 0;
    let finished = 0;
    const p = startPeriodic({
      name: 't',
      everyMs: 5,
      log,
      run: async () => {
        runs++;
        maxInside = Math.max(maxInside, ++inside);
        if (runs === 2) await held;
        inside--;
        finished++;
      },
    });
    await vi.waitFor(() => expect(runs).toBe(2));
    // Ticks keep coming while run 2 is held: none starts beside it.
    p.wake();
    p.wake();
    const stopped = p.stop();
    release();
    await stopped;
    expect(maxInside).toBe(1);
    expect(finished).toBe(runs);
  });

  it('logs a failing run and keeps going', async () => {
    let runs = 0;
    const warn = vi.fn();
    const p = startPeriodic({
      name: 'flaky',
      everyMs: 60_000,
      log: { warn } as unknown as Parameters<typeof startPeriodic>[0]['log'],
      run: () => {
        runs++;
        if (runs === 1) throw new Error('boom');
      },
    });
    p.wake();
    await vi.waitFor(() => expect(warn).toHaveBeenCalledTimes(1));
    p.wake();
    await vi.waitFor(() => expect(runs).toBe(2));
    await p.stop();
  });

  it('runNow() resolves after a run that started after the call, not the one in progress', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const started: number[] = [];
    let finished = 0;
    const p = startPeriodic({
      name: 't',
      everyMs: 60_000,
      log,
      run: async () => {
        started.push(started.length + 1);
        if (started.length === 1) await held;
        finished++;
      },
    });
    const first = p.runNow();
    await vi.waitFor(() => expect(started).toEqual([1]));
    // Asked for while run 1 is held: served by run 2, which starts only after run 1 ends.
    let secondDone = false;
    const second = p.runNow().then(() => (secondDone = true));
    release();
    await first;
    await second;
    expect(secondDone).toBe(true);
    expect(started).toEqual([1, 2]);
    expect(finished).toBe(2);
    await p.stop();
    // After stop there is no run to wait for.
    await p.runNow();
    expect(started).toEqual([1, 2]);
  });
});
