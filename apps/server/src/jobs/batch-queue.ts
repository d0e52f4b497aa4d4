/**
 * The "collect items for N ms or up to M items, then run one statement" pattern, written once.
 *
 * `add()` queues an item and returns a promise settled when the batch holding it ran: resolved with the item's
 * result (the `run` function may return one result per item, in order), rejected with the batch's error. An error
 * in one batch rejects that batch's items only; the queue keeps going. The queue is bounded: beyond `maxQueued`
 * items, `add()` waits for room (or refuses with {@link BatchQueueFullError} when `whenFull` is `'refuse'`), so a
 * producer faster than the database slows down instead of growing memory. `stop()` runs everything queued (and
 * everything already waiting for room), then refuses new items.
 *
 * Items with a `key` are merged inside the open batch (`merge(old, new)`), for the "latest value per device" and
 * "sum of counts per id" shapes: a merged item takes no room of its own and its promise settles with the batch.
 */

export class BatchQueueFullError extends Error {
  constructor(name: string) {
    super(`batch queue ${name} is full`);
    this.name = 'BatchQueueFullError';
  }
}

export class BatchQueueStoppedError extends Error {
  constructor(name: string) {
    super(`batch queue ${name} is stopped`);
    this.name = 'BatchQueueStoppedError';
  }
}

export interface BatchQueueOptions<T, R, K> {
  /** For errors and logs. */
  name: string;
  /**
   * Runs one batch (one statement, ideally). Returns nothing, or one result per item in the order given; the
   * items of a batch never change while it runs.
   */
  run: (items: readonly T[]) => Promise<readonly R[] | void>;
  /** Items per batch; a full batch runs at once, without waiting for `maxDelayMs`. */
  maxBatch: number;
  /**
   * How long the first item of a batch waits for company; 0 runs it as soon as the event loop has handled the
   * input at hand (items arriving while a batch runs form the next batch anyway).
   */
  maxDelayMs: number;
  /** Items queued (not yet running) at most; beyond it `add()` waits, or refuses (see `whenFull`). */
  maxQueued: number;
  /** `'wait'` (default): `add()` waits for room. `'refuse'`: `add()` rejects with {@link BatchQueueFullError}. */
  whenFull?: 'wait' | 'refuse';
  /**
   * Batches running at once (default 1, which keeps the order of batches: two items of one device never run in
   * two overlapping statements).
   */
  concurrency?: number;
  /** Merges items with the same key inside the open batch. Both given or neither. */
  key?: (item: T) => K;
  merge?: (queued: T, added: T) => T;
  /** Told about a failed batch (its items are rejected either way). */
  onError?: (err: unknown, items: readonly T[]) => void;
}

interface Waiter<R> {
  resolve: (value: R) => void;
  reject: (err: unknown) => void;
}

interface Entry<T, R> {
  item: T;
  waiters: Waiter<R>[];
}

interface Batch<T, R, K> {
  entries: Entry<T, R>[];
  byKey: Map<K, Entry<T, R>> | undefined;
  /** Settles (never rejects) when the batch ran. */
  done: Promise<void>;
  finish: () => void;
}

export class BatchQueue<T, R = void, K = unknown> {
  private readonly sealed: Batch<T, R, K>[] = [];
  private open: Batch<T, R, K> | undefined;
  private readonly running = new Set<Batch<T, R, K>>();
  private queued = 0;
  /** The open batch's `maxDelayMs` elapsed while every run slot was busy: it runs at the next free slot. */
  private due = false;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private roomWaiters: (() => void)[] = [];
  /** `add()` calls waiting for room: `stop()` lets them in before it finishes. */
  private waiting = 0;
  private state: 'open' | 'stopping' | 'stopped' = 'open';
  private readonly concurrency: number;
  /** Totals, for metrics and tests. */
  readonly stats = { items: 0, batches: 0, failures: 0 };

  constructor(private readonly options: BatchQueueOptions<T, R, K>) {
    if (options.maxBatch < 1 || options.maxQueued < 1) throw new Error('batch queue: sizes must be >= 1');
    if (!options.key !== !options.merge) throw new Error('batch queue: key and merge go together');
    this.concurrency = Math.max(1, options.concurrency ?? 1);
  }

  /** Items queued and not yet running. */
  get size(): number {
    return this.queued;
  }

  /** Batches running now. */
  get active(): number {
    return this.running.size;
  }

  /** Queues one item; settles when its batch ran. Waits for room when full (or refuses, see `whenFull`). */
  async add(item: T): Promise<R> {
    if (this.state !== 'open') throw new BatchQueueStoppedError(this.options.name);
    let settled = this.tryAdd(item);
    if (settled) return settled;
    if (this.options.whenFull === 'refuse') throw new BatchQueueFullError(this.options.name);
    this.waiting++;
    try {
      while (!settled) {
        await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
        settled = this.enqueue(item);
      }
    } finally {
      this.waiting--;
    }
    return settled;
  }

  /**
   * Queues one item synchronously and returns the promise of its batch, or undefined when the queue is full (for
   * hot paths that must not allocate an async frame per item; wait with `room()`).
   */
  tryAdd(item: T): Promise<R> | undefined {
    if (this.state !== 'open') throw new BatchQueueStoppedError(this.options.name);
    return this.enqueue(item);
  }

  /**
   * Queues one item without a promise of its own (hot paths that never wait on the outcome: a failed batch goes to
   * `onError` only). False when the queue is full or stopped.
   */
  post(item: T): boolean {
    if (this.state !== 'open') return false;
    return this.enqueue(item, false) !== undefined;
  }

  /** Resolves when the queue has room again. */
  room(): Promise<void> {
    if (this.queued < this.options.maxQueued) return Promise.resolve();
    return new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }

  /** Runs everything queued now and resolves when those batches ran (items added meanwhile may run too). */
  async flush(): Promise<void> {
    this.sealOpen();
    const pending = [...this.sealed, ...this.running].map((b) => b.done);
    this.pump();
    await Promise.all(pending);
  }

  /** Runs everything queued or waiting for room, then refuses new items. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopping';
    for (;;) {
      await this.flush();
      if (this.queued === 0 && this.running.size === 0 && this.waiting === 0) break;
      // A waiter woken by the last batch re-adds its item in a later microtask.
      if (this.queued === 0 && this.running.size === 0) await new Promise((r) => setImmediate(r));
    }
    this.state = 'stopped';
    this.clearTimer();
  }

  private enqueue(item: T): Promise<R> | undefined;
  private enqueue(item: T, withPromise: false): true | undefined;
  private enqueue(item: T, withPromise = true): Promise<R> | true | undefined {
    const { key, merge } = this.options;
    const open = this.open;
    if (key && merge && open?.byKey) {
      const k = key(item);
      const entry = open.byKey.get(k);
      if (entry) {
        entry.item = merge(entry.item, item);
        this.stats.items++;
        if (!withPromise) return true;
        return new Promise<R>((resolve, reject) => entry.waiters.push({ resolve, reject }));
      }
    }
    if (this.queued >= this.options.maxQueued) return undefined;
    let batch = this.open;
    if (!batch) batch = this.open = this.newBatch();
    const entry: Entry<T, R> = { item, waiters: [] };
    const settled = withPromise
      ? new Promise<R>((resolve, reject) => entry.waiters.push({ resolve, reject }))
      : (true as const);
    batch.entries.push(entry);
    if (key) batch.byKey!.set(key(item), entry);
    this.queued++;
    this.stats.items++;
    if (batch.entries.length >= this.options.maxBatch) this.sealOpen();
    this.pump();
    return settled;
  }

  private newBatch(): Batch<T, R, K> {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    return { entries: [], byKey: this.options.key ? new Map() : undefined, done, finish };
  }

  private sealOpen(): void {
    if (this.open && this.open.entries.length > 0) this.sealed.push(this.open);
    this.open = undefined;
    this.due = false;
    this.clearTimer();
  }

  private clearTimer(): void {
    if (!this.timer) return;
    if (this.options.maxDelayMs > 0) clearTimeout(this.timer as NodeJS.Timeout);
    else clearImmediate(this.timer as NodeJS.Immediate);
    this.timer = undefined;
  }

  private pump(): void {
    while (this.running.size < this.concurrency) {
      if (this.sealed.length === 0 && this.open && (this.due || this.state !== 'open')) this.sealOpen();
      const batch = this.sealed.shift();
      if (!batch) break;
      void this.runBatch(batch);
    }
    if (this.open && !this.due && !this.timer) {
      const fire = () => {
        this.timer = undefined;
        this.due = true;
        this.pump();
      };
      this.timer =
        this.options.maxDelayMs > 0 ? setTimeout(fire, this.options.maxDelayMs) : setImmediate(fire);
    }
  }

  private async runBatch(batch: Batch<T, R, K>): Promise<void> {
    this.running.add(batch);
    this.queued -= batch.entries.length;
    for (const wake of this.roomWaiters.splice(0)) wake();
    const items = batch.entries.map((e) => e.item);
    try {
      const results = await this.options.run(items);
      if (results && results.length !== items.length) {
        throw new Error(
          `batch queue ${this.options.name}: ${results.length} results for ${items.length} items`,
        );
      }
      this.stats.batches++;
      batch.entries.forEach((entry, i) => {
        for (const w of entry.waiters) w.resolve(results ? results[i]! : (undefined as R));
      });
    } catch (err) {
      this.stats.failures++;
      this.options.onError?.(err, items);
      for (const entry of batch.entries) for (const w of entry.waiters) w.reject(err);
    } finally {
      this.running.delete(batch);
      batch.finish();
      this.pump();
    }
  }
}
