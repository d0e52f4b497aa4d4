import { describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { JobWorker, type JobKind } from './worker';

/**
 * JobWorker.adopt: jobs claimed outside `claim` (rows a kind wrote already taken) run in the worker's slots, in
 * order, before the next claim round; a graceful stop releases those not started; a stopped worker refuses them.
 */

const log = { warn: () => undefined, error: () => undefined } as unknown as FastifyBaseLogger;

interface Gate {
  promise: Promise<void>;
  open: () => void;
}
const gate = (): Gate => {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
};

function kindWith(gates: Map<string, Gate>) {
  const started: string[] = [];
  const released: string[] = [];
  let claims = 0;
  const kind: JobKind<string> = {
    name: 'adopt_test',
    claim: () => {
      claims++;
      return Promise.resolve([]);
    },
    run: async (job) => {
      started.push(job);
      await gates.get(job)?.promise;
    },
    release: (jobs) => {
      released.push(...jobs);
      return Promise.resolve();
    },
  };
  return { kind, started, released, claims: () => claims };
}

describe('JobWorker.adopt', () => {
  it('runs adopted jobs in the free slots, the rest in order as slots free', async () => {
    const gates = new Map(['a', 'b', 'c', 'd'].map((k) => [k, gate()]));
    const k = kindWith(gates);
    const worker = new JobWorker(k.kind, { log, concurrency: 2, pollMs: 0 });
    worker.start();
    expect(worker.adopt(['a', 'b', 'c', 'd'])).toBe(true);
    expect(k.started).toEqual(['a', 'b']);
    expect(worker.active).toBe(2);
    gates.get('b')!.open();
    await Promise.resolve();
    await new Promise((r) => setImmediate(r));
    expect(k.started).toEqual(['a', 'b', 'c']);
    for (const g of gates.values()) g.open();
    await worker.settle();
    expect(k.started).toEqual(['a', 'b', 'c', 'd']);
    expect(worker.stats.adopted).toBe(4);
    expect(worker.stats.succeeded).toBe(4);
    await worker.stop();
  });

  it('releases adopted jobs not started at a graceful stop, and refuses jobs once stopped', async () => {
    const gates = new Map(['a', 'b', 'c'].map((k) => [k, gate()]));
    const k = kindWith(gates);
    const worker = new JobWorker(k.kind, { log, concurrency: 1, pollMs: 0 });
    worker.start();
    worker.adopt(['a', 'b', 'c']);
    const stopping = worker.stop();
    gates.get('a')!.open();
    await stopping;
    expect(k.started).toEqual(['a']);
    expect(k.released).toEqual(['b', 'c']);
    expect(worker.adopt(['d'])).toBe(false);
    expect(k.started).toEqual(['a']);
  });

  it('drops waiting adopted jobs when abandoned (their leases run out)', async () => {
    const gates = new Map(['a', 'b'].map((k) => [k, gate()]));
    const k = kindWith(gates);
    const worker = new JobWorker(k.kind, { log, concurrency: 1, pollMs: 0 });
    worker.start();
    worker.adopt(['a', 'b']);
    worker.abandon();
    gates.get('a')!.open();
    await new Promise((r) => setImmediate(r));
    expect(k.started).toEqual(['a']);
    expect(k.released).toEqual([]);
  });
});
