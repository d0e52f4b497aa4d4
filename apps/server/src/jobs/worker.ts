import type { FastifyBaseLogger } from 'fastify';

/**
 * The part of `deps.channels` (realtime/pg-channels.ts) a worker needs: NOTIFY on PostgreSQL reaches every
 * instance, in process on PGlite.
 */
export interface WakeChannels {
  listen(channel: string, handler: (payload: string) => void): () => void;
  notify(channel: string, payload: string): Promise<void>;
  onReconnect?(handler: () => void): () => void;
}

/**
 * A job kind: rows of some table, a claim query and a handler (README.md). The kind owns its table's states; the
 * worker owns the loop: when to claim, how many at once, wake-ups, stop.
 */
export interface JobKind<J> {
  /** Lower-case letters, digits and `_`; the wake-up channel is `jobs_<name>`. */
  name: string;
  /**
   * Claims up to `limit` due jobs: locks due rows with FOR UPDATE SKIP LOCKED, marks them taken under a lease and
   * counts the attempt, in one short transaction; a row whose lease ran out is due again.
   */
  claim(limit: number): Promise<J[]>;
  /**
   * Runs one claimed job and writes its outcome (done, retry later with backoff, or the failure record), each
   * write guarded by "still ours" (same attempt, still taken). Throwing is for the unexpected: it is logged and the
   * lease runs out, so the job is claimed again.
   */
  run(job: J, ctx: JobContext): Promise<void>;
  /** Gives claimed jobs that never started back (graceful stop): their attempt is not counted. */
  release?(jobs: readonly J[]): Promise<void>;
  /** Runs before each claim round, e.g. to queue the rows a schedule makes due. */
  prepare?(): Promise<void>;
}

export interface JobContext {
  /** Aborted when the worker is abandoned (a simulated crash): the handler should not write anything after it. */
  signal: AbortSignal;
}

export interface WorkerOptions {
  log: FastifyBaseLogger;
  /** Wake-ups from other instances (and this one); without it the worker hears only local `wake()` and its poll. */
  channels?: WakeChannels;
  /** Jobs running at once in this worker. */
  concurrency: number;
  /** Looks for due jobs this often even without a wake-up (rows made due by time, lost notifications); 0: never. */
  pollMs: number;
  /**
   * A claim round starts at least this long after the previous one ended, however often wake-ups come (a kind
   * woken hundreds of times a second whose claim is not cheap, like the OTA dispatcher during a rollout); wake-ups
   * meanwhile are merged into one round at the end of the gap. 0 (default): at once.
   */
  minGapMs?: number;
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,50}$/;

/** The NOTIFY channel of a job kind. */
export const wakeChannel = (name: string): string => `jobs_${name}`;

/**
 * Tells every instance's worker of this kind that jobs are due (after the transaction that queued them committed).
 * A lost wake-up only costs time: each worker also polls.
 */
export async function wakeWorkers(channels: WakeChannels, name: string): Promise<void> {
  await channels.notify(wakeChannel(name), '');
}

/**
 * Runs the jobs of one kind in this process: claims as many due jobs as it has free slots, runs them, claims again
 * when a slot frees after a full claim, when woken (NOTIFY on `jobs_<name>`, or `wake()`), and every `pollMs`.
 * One claim round at a time; a wake-up during a round asks for one more (after `minGapMs`, if set).
 *
 * `stop()` is graceful: no new claims, jobs claimed but not started are released, running handlers are waited for.
 * `abandon()` is a crash, for tests: the worker walks away from its running handlers, whose leases then run out.
 */
export class JobWorker<J> {
  private readonly running = new Set<Promise<void>>();
  /** Adopted jobs waiting for a slot, oldest first. */
  private readonly adopted: J[] = [];
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  private round: Promise<void> | undefined;
  private again = false;
  /** The last claim filled every free slot: more may be due as soon as one frees. */
  private full = false;
  private timer: NodeJS.Timeout | undefined;
  /** The next round, waiting for `minGapMs` to pass since the last one ended. */
  private gapTimer: NodeJS.Timeout | undefined;
  private lastRoundEnd = 0;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly abort = new AbortController();
  /** Totals, for metrics and tests. */
  readonly stats = { claimed: 0, adopted: 0, succeeded: 0, crashed: 0, released: 0 };

  constructor(
    readonly kind: JobKind<J>,
    private readonly options: WorkerOptions,
  ) {
    if (!CHANNEL_NAME.test(kind.name)) throw new Error(`invalid job kind name: ${kind.name}`);
    if (options.concurrency < 1) throw new Error('worker concurrency must be >= 1');
  }

  /** Jobs running now. */
  get active(): number {
    return this.running.size;
  }

  start(): void {
    if (this.state !== 'new') return;
    this.state = 'running';
    const { channels, pollMs } = this.options;
    if (channels) {
      this.unsubscribe.push(channels.listen(wakeChannel(this.kind.name), () => this.wake()));
      // Notifications sent while the connection was down are lost: look now.
      if (channels.onReconnect) this.unsubscribe.push(channels.onReconnect(() => this.wake()));
    }
    if (pollMs > 0) {
      this.timer = setInterval(() => this.wake(), pollMs);
      this.timer.unref();
    }
    this.wake();
  }

  /**
   * Runs jobs this process claimed outside `claim`: rows it wrote already taken under its lease and attempt (a
   * kind's fast path, e.g. forwarding hands the messages it has just queued straight to delivery instead of
   * reading them back). They take the worker's slots like claimed jobs, waiting in order while all are busy, and
   * go before the next claim round. A graceful stop releases those not started; `abandon` leaves them to their
   * lease, as it does running ones. Answers false (and runs nothing) when the worker is not running: the caller
   * gives the rows back itself.
   */
  adopt(jobs: readonly J[]): boolean {
    if (this.state !== 'running') return false;
    this.stats.adopted += jobs.length;
    for (const job of jobs) {
      if (this.running.size < this.options.concurrency) this.launch(job);
      else this.adopted.push(job);
    }
    return true;
  }

  /** Asks for a claim round soon (jobs were queued or became due in this process). */
  wake(): void {
    if (this.state !== 'running' || this.gapTimer) return;
    if (this.round) {
      this.again = true;
      return;
    }
    const wait = this.lastRoundEnd + (this.options.minGapMs ?? 0) - Date.now();
    if (wait > 0) {
      this.gapTimer = setTimeout(() => {
        this.gapTimer = undefined;
        this.wake();
      }, wait);
      this.gapTimer.unref();
      return;
    }
    this.round = this.claimRounds()
      .catch((err: unknown) => this.options.log.warn({ err, kind: this.kind.name }, 'jobs: claim failed'))
      .finally(() => {
        this.round = undefined;
        this.lastRoundEnd = Date.now();
        if (this.again) this.wake();
      });
  }

  /**
   * One claim of up to `limit` jobs (default: the worker's concurrency), run to the end; answers how many were
   * claimed. For tests and tools that drive a kind by hand; independent of `start()`.
   */
  async runOnce(limit = this.options.concurrency): Promise<number> {
    await this.kind.prepare?.();
    const jobs = await this.kind.claim(limit);
    this.stats.claimed += jobs.length;
    await Promise.all(jobs.map((job) => this.execute(job)));
    return jobs.length;
  }

  /**
   * Resolves once the claim round in progress (if any) has ended and the jobs running then, or launched by that
   * round, have ended: for callers that must see the effect of work already under way (tests driving a kind).
   */
  async settle(): Promise<void> {
    await this.round;
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Stops claiming, releases claimed jobs that have not started, waits for the running ones. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopping';
    this.detach();
    await this.round;
    // Adopted jobs never started go back like unstarted claims.
    const waiting = this.adopted.splice(0);
    if (waiting.length > 0) await this.releaseClaims(waiting);
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    this.state = 'stopped';
  }

  /**
   * Simulates a crash (tests): stops at once without waiting, tells running handlers through their signal, and
   * leaves their rows to the lease.
   */
  abandon(): void {
    this.state = 'stopped';
    this.detach();
    this.adopted.length = 0;
    this.abort.abort(new Error(`worker ${this.kind.name} abandoned`));
  }

  private detach(): void {
    clearInterval(this.timer);
    clearTimeout(this.gapTimer);
    this.gapTimer = undefined;
    for (const off of this.unsubscribe.splice(0)) off();
  }

  private async claimRounds(): Promise<void> {
    do {
      this.again = false;
      const free = this.options.concurrency - this.running.size;
      if (free <= 0) {
        // A slot freeing up claims again.
        this.full = true;
        return;
      }
      await this.kind.prepare?.();
      if (this.state !== 'running') return;
      const jobs = await this.kind.claim(free);
      this.stats.claimed += jobs.length;
      if (this.state !== 'running') {
        // Stopped while claiming: these never started, give them back rather than let their lease run out.
        if (jobs.length > 0) await this.releaseClaims(jobs);
        return;
      }
      for (const job of jobs) this.launch(job);
      this.full = jobs.length === free;
      // With a gap, the round ends here and `wake` starts the next one once the gap has passed.
    } while (this.again && this.state === 'running' && !this.options.minGapMs);
  }

  private async releaseClaims(jobs: J[]): Promise<void> {
    if (!this.kind.release) return;
    try {
      await this.kind.release(jobs);
      this.stats.released += jobs.length;
    } catch (err) {
      this.options.log.warn(
        { err, kind: this.kind.name },
        'jobs: releasing claims failed; their leases run out',
      );
    }
  }

  private launch(job: J): void {
    const p: Promise<void> = this.execute(job).finally(() => {
      this.running.delete(p);
      // A freed slot goes to the oldest adopted job first (it is already claimed), then to a claim round.
      const next = this.state === 'running' ? this.adopted.shift() : undefined;
      if (next !== undefined) {
        this.launch(next);
        return;
      }
      if (this.full && this.state === 'running') {
        this.full = false;
        this.wake();
      }
    });
    this.running.add(p);
  }

  private async execute(job: J): Promise<void> {
    try {
      await this.kind.run(job, { signal: this.abort.signal });
      this.stats.succeeded++;
    } catch (err) {
      this.stats.crashed++;
      if (!this.abort.signal.aborted)
        this.options.log.error(
          { err, kind: this.kind.name },
          'jobs: handler crashed; the lease will run out',
        );
    }
  }
}
