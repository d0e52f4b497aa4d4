import { describe, expect, it } from 'vitest';
import { BatchQueue, BatchQueueFullError, BatchQueueStoppedError } from './batch-queue';

/** A promise the test settles by hand: a batch that blocks until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Resolves once `check()` holds (a positive sentinel, not a sleep). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setImmediate(r));
  expect(check()).toBe(true);
}

describe('BatchQueue', () => {
  it('runs items added together as one batch and gives each its own result', async () => {
    const batches: number[][] = [];
    const q = new BatchQueue<number, string>({
      name: 't',
      maxBatch: 100,
      maxDelayMs: 5,
      maxQueued: 100,
      run: async (items) => {
        batches.push([...items]);
        return items.map((n) => `#${n}`);
      },
    });
    const results = await Promise.all([q.add(1), q.add(2), q.add(3)]);
    expect(results).toEqual(['#1', '#2', '#3']);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('splits at maxBatch and keeps batches in order, one at a time', async () => {
    const batches: number[][] = [];
    let overlapping = 0;
    let maxOverlap = 0;
    const q = new BatchQueue<number>({
      name: 't',
      maxBatch: 2,
      maxDelayMs: 0,
      maxQueued: 100,
      run: async (items) => {
        maxOverlap = Math.max(maxOverlap, ++overlapping);
        await new Promise((r) => setImmediate(r));
        batches.push([...items]);
        overlapping--;
      },
    });
    await Promise.all([1, 2, 3, 4, 5].map((n) => q.add(n)));
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
    expect(maxOverlap).toBe(1);
  });

  it('runs up to `concurrency` batches at once', async () => {
    const g = gate();
    const q = new BatchQueue<number>({
      name: 't',
      maxBatch: 1,
      maxDelayMs: 0,
      maxQueued: 100,
      concurrency: 2,
      run: () => g.promise,
    });
    const all = Promise.all([q.add(1), q.add(2), q.add(3)]);
    await until(() => q.active === 2);
    expect(q.size).toBe(1);
    g.open();
    await all;
  });

  it('rejects only the items of the batch that failed', async () => {
    const errors: unknown[] = [];
    const q = new BatchQueue<number>({
      name: 't',
      maxBatch: 2,
      maxDelayMs: 0,
      maxQueued: 100,
      run: async (items) => {
        if (items.includes(3)) throw new Error('boom');
      },
      onError: (err) => errors.push(err),
    });
    const settled = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => q.add(n)));
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect(errors).toHaveLength(1);
    expect(q.stats).toMatchObject({ batches: 2, failures: 1 });
  });

  it('rejects a batch whose run returned the wrong number of results', async () => {
    const q = new BatchQueue<number, number>({
      name: 't',
      maxBatch: 10,
      maxDelayMs: 0,
      maxQueued: 10,
      run: async () => [1],
    });
    await expect(Promise.all([q.add(1), q.add(2)])).rejects.toThrow(/1 results for 2 items/);
  });

  it('makes add() wait for room when the queue is full', async () => {
    const g = gate();
    const ran: number[] = [];
    const q = new BatchQueue<number>({
      name: 't',
      maxBatch: 2,
      maxDelayMs: 0,
      maxQueued: 2,
      run: async (items) => {
        ran.push(...items);
        await g.promise;
      },
    });
    const first = [q.add(1), q.add(2)]; // a full batch, running (blocked) at once
    await until(() => q.active === 1);
    const queued = [q.add(3), q.add(4)]; // fills the queue
    let fifthQueued = false;
    const fifth = q.add(5).then(() => (fifthQueued = true));
    expect(q.size).toBe(2);
    expect(q.tryAdd(6)).toBeUndefined();
    g.open();
    await Promise.all([...first, ...queued, fifth]);
    expect(fifthQueued).toBe(true);
    expect(ran).toEqual([1, 2, 3, 4, 5]);
  });

  it("refuses when full and whenFull is 'refuse'", async () => {
    const g = gate();
    const q = new BatchQueue<number>({
      name: 't',
      maxBatch: 1,
      maxDelayMs: 0,
      maxQueued: 1,
      whenFull: 'refuse',
      run: () => g.promise,
    });
    const a = q.add(1);
    await until(() => q.active === 1);
    const b = q.add(2);
    await expect(q.add(3)).rejects.toBeInstanceOf(BatchQueueFullError);
    g.open();
    await Promise.all([a, b]);
  });

  it('merges items with the same key inside the open batch', async () => {
    const batches: [string, number][][] = [];
    const q = new BatchQueue<[string, number], void, string>({
      name: 't',
      maxBatch: 10,
      maxDelayMs: 5,
      maxQueued: 2,
      key: ([k]) => k,
      merge: ([k, a], [, b]) => [k, a + b],
      run: async (items) => {
        batches.push(items.map(([k, n]) => [k, n]));
      },
    });
    // Five items, two keys: fits a queue of two because merged items take no room.
    await Promise.all([q.add(['a', 1]), q.add(['b', 1]), q.add(['a', 2]), q.add(['a', 3]), q.add(['b', 5])]);
    expect(batches).toEqual([
      [
        ['a', 6],
        ['b', 6],
      ],
    ]);
  });

  it('stop() runs what is queued, including adds waiting for room, then refuses', async () => {
    const ran: number[] = [];
    const q = new BatchQueue<number>({
      name: 't',
      maxBatch: 1,
      maxDelayMs: 60_000,
      maxQueued: 1,
      run: async (items) => {
        ran.push(...items);
      },
    });
    // maxDelayMs is a minute: only stop() can make these run within the test.
    const added = [q.add(1), q.add(2), q.add(3)];
    await q.stop();
    await Promise.all(added);
    expect(ran).toEqual([1, 2, 3]);
    await expect(q.add(4)).rejects.toBeInstanceOf(BatchQueueStoppedError);
  });

  it('flush() runs the open batch without waiting for maxDelayMs', async () => {
    const ran: number[] = [];
    const q = new BatchQueue<number>({
      name: 't',
      maxBatch: 10,
      maxDelayMs: 60_000,
      maxQueued: 10,
      run: async (items) => {
        ran.push(...items);
      },
    });
    const a = q.add(1);
    await q.flush();
    await a;
    expect(ran).toEqual([1]);
    await q.stop();
  });

  it('post() queues without a promise; failures go to onError; refuses when full or stopped', async () => {
    const ran: number[] = [];
    const errors: unknown[] = [];
    const g = gate();
    const q = new BatchQueue<number>({
      name: 't',
      maxBatch: 1,
      maxDelayMs: 0,
      maxQueued: 1,
      run: async (items) => {
        await g.promise;
        if (items[0] === 2) throw new Error('boom');
        ran.push(...items);
      },
      onError: (err) => errors.push(err),
    });
    expect(q.post(1)).toBe(true);
    await until(() => q.active === 1);
    expect(q.post(2)).toBe(true);
    expect(q.post(3)).toBe(false);
    g.open();
    await q.stop();
    expect(ran).toEqual([1]);
    expect(errors).toHaveLength(1);
    expect(q.post(4)).toBe(false);
  });
});
