import type { FastifyBaseLogger } from 'fastify';

export interface Periodic {
  /** Runs the task soon (after the current run, if one is running). */
  wake(): void;
  /**
   * Runs the task now, or right after the run in progress, and resolves once that run has ended (failed runs
   * included: they are logged). For callers that must see its effect, like tests that moved the clock.
   */
  runNow(): Promise<void>;
  /** No more runs; waits for the one in progress. */
  stop(): Promise<void>;
}

/**
 * An in-process task every `everyMs`: a cache of this instance (the alert index), or a sweep whose state is all in
 * the database and that any instance may run at any time (the OTA dispatcher's plan times, timeouts and orphaned
 * sends, each claimed with SKIP LOCKED). Not a durable schedule: those are recurring jobs (queue.ts). Runs never
 * overlap: a tick or wake during a run asks for one more after it. A failing run is logged and the schedule goes on.
 * The first run is one interval after the start (`wake()` for one at once).
 */
export function startPeriodic(options: {
  name: string;
  everyMs: number;
  run: () => Promise<void> | void;
  log: FastifyBaseLogger;
}): Periodic {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  /** `runNow` callers waiting for a run that starts after their call. */
  let waiting: (() => void)[] = [];
  const tick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        const served = waiting;
        waiting = [];
        try {
          await options.run();
        } catch (err) {
          options.log.warn({ err }, `${options.name} failed`);
        }
        for (const done of served) done();
      } while (again && !stopped);
    })().finally(() => (running = undefined));
  };
  const timer = setInterval(tick, options.everyMs);
  timer.unref();
  return {
    wake: () => setImmediate(tick),
    runNow() {
      if (stopped) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        tick();
      });
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      // Asked for after the last run started: there will be no run for them.
      for (const done of waiting.splice(0)) done();
    },
  };
}
