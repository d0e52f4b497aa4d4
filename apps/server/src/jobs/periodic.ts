import type { FastifyBaseLogger } from 'fastify';

export interface Periodic {
  /** Runs the task soon (after the current run, if one is running). */
  wake(): void;
  /** No more runs; waits for the one in progress. */
  stop(): Promise<void>;
}

/**
 * An in-process task every `everyMs` (not durable: for caches of this instance, like the alert index; durable
 * schedules are recurring jobs, queue.ts). Runs never overlap: a tick or wake during a run asks for one more after
 * it. A failing run is logged and the schedule goes on. The first run is one interval after the start.
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
  const tick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await options.run();
        } catch (err) {
          options.log.warn({ err }, `${options.name} failed`);
        }
      } while (again && !stopped);
    })().finally(() => (running = undefined));
  };
  const timer = setInterval(tick, options.everyMs);
  timer.unref();
  return {
    wake: () => setImmediate(tick),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
