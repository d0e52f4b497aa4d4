import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, TestClock, type TestApp } from '../test/app';
import { eventually } from '../test/gateway-test-kit';
import { backoffMs, decideRetry } from './backoff';
import { type JobRow, jobs } from './jobs.table';
import { enqueueJob, type QueuedJobDefinition, queuedJobKind, RECURRING_KEY } from './queue';
import { type JobKind, JobWorker, wakeWorkers } from './worker';

const onPostgres = process.env.TEST_DB === 'postgres';

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

let t: TestApp;
/** The jobs' own clock (the app's is shared by the whole file and cannot be unfrozen). */
let clock = new TestClock();
let kindNo = 0;
/** A fresh kind name per test: tests share the database. */
const nextKind = () => `test_${++kindNo}`;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());
beforeEach(() => {
  clock = new TestClock();
});

function worker<P>(
  app: TestApp,
  def: QueuedJobDefinition<P>,
  options: { concurrency?: number; pollMs?: number; channels?: boolean } = {},
): JobWorker<JobRow> {
  return new JobWorker(queuedJobKind({ ...app.app.deps, now: clock.now }, def), {
    log: app.app.log,
    concurrency: options.concurrency ?? 1,
    pollMs: options.pollMs ?? 0,
    channels: options.channels === false ? undefined : app.app.deps.channels,
  });
}

const rowsOf = (kind: string) =>
  t.app.deps.db.select().from(jobs).where(eq(jobs.kind, kind)).orderBy(jobs.id);

describe('backoff', () => {
  it('doubles from the base up to the cap, with equal jitter', () => {
    const exact = { baseMs: 1000, maxMs: 10_000, jitter: 'none' as const };
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffMs(exact, a))).toEqual([
      1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
    const jittered = { baseMs: 1000, maxMs: 10_000 };
    expect(backoffMs(jittered, 3, () => 0)).toBe(2000);
    expect(backoffMs(jittered, 3, () => 1)).toBe(4000);
    expect(backoffMs(jittered, 3, () => 0.5)).toBe(3000);
  });

  it('stops retrying after the last attempt or a final refusal, and honours a minimum delay', () => {
    const p = { baseMs: 1000, maxMs: 10_000, jitter: 'none' as const };
    expect(decideRetry(p, { attempts: 2, maxAttempts: 3 }, true)).toEqual({ retry: true, delayMs: 2000 });
    expect(decideRetry(p, { attempts: 3, maxAttempts: 3 }, true)).toEqual({ retry: false });
    expect(decideRetry(p, { attempts: 1, maxAttempts: 3 }, false)).toEqual({ retry: false });
    expect(decideRetry(p, { attempts: 1, maxAttempts: 3 }, true, { minDelayMs: 60_000 })).toEqual({
      retry: true,
      delayMs: 60_000,
    });
  });
});

describe(`jobs table (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('queues a keyed job once', async () => {
    const kind = nextKind();
    const a = await enqueueJob(t.app.deps.db, kind, { n: 1 }, { key: 'k' });
    const b = await enqueueJob(t.app.deps.db, kind, { n: 2 }, { key: 'k' });
    expect(a.created).toBe(true);
    expect(b).toEqual({ id: undefined, created: false });
    expect(await rowsOf(kind)).toHaveLength(1);
  });

  it('two workers never run one job twice', async () => {
    const kind = nextKind();
    const runs = new Map<number, number>();
    const by = new Map<string, number>();
    const def = (who: string): QueuedJobDefinition<{ n: number }> => ({
      name: kind,
      async handler(payload) {
        runs.set(payload.n, (runs.get(payload.n) ?? 0) + 1);
        by.set(who, (by.get(who) ?? 0) + 1);
        // Hold the claim across other claims (two turns of the event loop at least).
        await new Promise((r) => setTimeout(r, 2));
      },
    });
    for (let n = 0; n < 40; n++) await enqueueJob(t.app.deps.db, kind, { n });
    const a = worker(t, def('a'), { concurrency: 4 });
    const b = worker(t, def('b'), { concurrency: 4 });
    a.start();
    b.start();
    // Generous: PGlite serialises every statement of both workers on one connection.
    await eventually(async () => (runs.size === 40 ? true : undefined), 30_000);
    await eventually(async () =>
      (await rowsOf(kind)).every((r) => r.status === 'succeeded') ? true : undefined,
    );
    await Promise.all([a.stop(), b.stop()]);
    expect(runs.size).toBe(40);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect((by.get('a') ?? 0) + (by.get('b') ?? 0)).toBe(40);
    expect((await rowsOf(kind)).every((r) => r.attempts === 1)).toBe(true);
  });

  it('claims a job again when its lease ran out, and the first worker cannot write over it', async () => {
    const kind = nextKind();
    const held = gate();
    let started = 0;
    let finished = 0;
    const def: QueuedJobDefinition<unknown> = {
      name: kind,
      leaseMs: 60_000,
      async handler() {
        started++;
        if (started === 1) await held.promise;
        finished++;
      },
    };
    await enqueueJob(t.app.deps.db, kind, {});
    const first = worker(t, def);
    const firstRun = first.runOnce();
    await eventually(async () => (started === 1 ? true : undefined));
    const second = worker(t, def);
    expect(await second.runOnce()).toBe(0); // the lease holds
    first.abandon();
    clock.advance(60_001);
    expect(await second.runOnce()).toBe(1);
    const [row] = await rowsOf(kind);
    expect(row).toMatchObject({ status: 'succeeded', attempts: 2 });
    held.open();
    await firstRun;
    expect(finished).toBe(2);
    // The abandoned worker's late end changed nothing.
    expect((await rowsOf(kind))[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('retries on the backoff schedule, then writes the failure record', async () => {
    const kind = nextKind();
    clock.freeze();
    const def: QueuedJobDefinition<unknown> = {
      name: kind,
      maxAttempts: 3,
      backoff: { baseMs: 1000, maxMs: 60_000, jitter: 'none' },
      handler: async () => {
        throw new Error('provider down');
      },
    };
    await enqueueJob(t.app.deps.db, kind, {}, { runAt: clock.now() });
    const w = worker(t, def);
    const due: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = clock.now().getTime();
      expect(await w.runOnce()).toBe(1);
      const [row] = await rowsOf(kind);
      if (i < 2) {
        expect(row).toMatchObject({ status: 'queued', attempts: i + 1, lastError: 'Error: provider down' });
        due.push(row!.runAt.getTime() - start);
        expect(await w.runOnce()).toBe(0); // not due yet
        clock.advance(row!.runAt.getTime() - start);
      } else {
        expect(row).toMatchObject({ status: 'failed', attempts: 3, lastError: 'Error: provider down' });
        expect(row!.finishedAt).not.toBeNull();
      }
    }
    expect(due).toEqual([1000, 2000]);
    clock.advance(3_600_000);
    expect(await w.runOnce()).toBe(0);
  });

  it('fails a job whose last try was cut off instead of trying it again', async () => {
    const kind = nextKind();
    let runs = 0;
    const held = gate();
    const def: QueuedJobDefinition<unknown> = {
      name: kind,
      maxAttempts: 1,
      leaseMs: 1000,
      handler: async () => {
        runs++;
        await held.promise;
      },
    };
    await enqueueJob(t.app.deps.db, kind, {});
    const first = worker(t, def);
    const run = first.runOnce();
    await eventually(async () => (runs === 1 ? true : undefined));
    first.abandon();
    clock.advance(1001);
    expect(await worker(t, def).runOnce()).toBe(0);
    expect((await rowsOf(kind))[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect((await rowsOf(kind))[0]!.lastError).toMatch(/interrupted during the last try/);
    held.open();
    await run;
    expect(runs).toBe(1);
  });

  it('runs a recurring job again after its interval', async () => {
    const kind = nextKind();
    clock.freeze();
    let runs = 0;
    const w = worker(t, {
      name: kind,
      everyMs: 10_000,
      handler: async () => {
        runs++;
      },
    });
    expect(await w.runOnce()).toBe(1);
    expect(await w.runOnce()).toBe(0);
    const [row] = await rowsOf(kind);
    expect(row).toMatchObject({ key: RECURRING_KEY, status: 'queued', attempts: 0 });
    clock.advance(10_000);
    expect(await w.runOnce()).toBe(1);
    expect(runs).toBe(2);
    expect(await rowsOf(kind)).toHaveLength(1);
  });

  it('graceful stop waits for a running handler', async () => {
    const kind = nextKind();
    const held = gate();
    let started = false;
    let stopped = false;
    const w = worker(t, {
      name: kind,
      handler: async () => {
        started = true;
        await held.promise;
      },
    });
    await enqueueJob(t.app.deps.db, kind, {});
    w.start();
    await eventually(async () => (started ? true : undefined));
    const stopping = w.stop().then(() => (stopped = true));
    // The row is still running while the handler is held: stop() cannot have finished.
    await eventually(async () => ((await rowsOf(kind))[0]?.status === 'running' ? true : undefined));
    expect(stopped).toBe(false);
    held.open();
    await stopping;
    expect((await rowsOf(kind))[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('graceful stop gives back claims that never started', async () => {
    const name = nextKind();
    const inner = queuedJobKind({ ...t.app.deps, now: clock.now }, { name, handler: async () => undefined });
    const claimHeld = gate();
    const claiming = gate();
    let ran = 0;
    // The claim commits, then the stop arrives before the worker could start the jobs.
    const kind: JobKind<JobRow> = {
      ...inner,
      async claim(limit) {
        const rows = await inner.claim(limit);
        claiming.open();
        await claimHeld.promise;
        return rows;
      },
      async run(job, ctx) {
        ran++;
        await inner.run(job, ctx);
      },
    };
    await enqueueJob(t.app.deps.db, name, {});
    await enqueueJob(t.app.deps.db, name, {});
    const w = new JobWorker(kind, { log: t.app.log, concurrency: 2, pollMs: 0 });
    w.start();
    await claiming.promise;
    expect((await rowsOf(name)).map((r) => r.status)).toEqual(['running', 'running']);
    const stopping = w.stop();
    claimHeld.open();
    await stopping;
    expect(ran).toBe(0);
    expect(w.stats.released).toBe(2);
    expect((await rowsOf(name)).map((r) => [r.status, r.attempts])).toEqual([
      ['queued', 0],
      ['queued', 0],
    ]);
  });

  it('wakes the worker by channel (in process on PGlite)', async () => {
    const kind = nextKind();
    let runs = 0;
    // No poll: only the wake-up can start the job.
    const w = worker(t, {
      name: kind,
      handler: async () => {
        runs++;
      },
    });
    w.start();
    await enqueueJob(t.app.deps.db, kind, {});
    await wakeWorkers(t.app.deps.channels, kind);
    await eventually(async () => (runs === 1 ? true : undefined));
    await w.stop();
  });
});

describe('JobWorker with a gap between claim rounds', () => {
  it('merges wake-ups into rounds at least minGapMs apart and loses none', async () => {
    const claims: number[] = [];
    const kind: JobKind<never> = {
      name: nextKind(),
      claim: async () => {
        claims.push(Date.now());
        return [];
      },
      run: async () => undefined,
    };
    const w = new JobWorker(kind, { log: t.app.log, concurrency: 1, pollMs: 0, minGapMs: 100 });
    w.start();
    await eventually(async () => (claims.length === 1 ? true : undefined));
    // Forty wake-ups over about 200 ms, the way reports wake the OTA dispatcher during a rollout.
    let lastWake = 0;
    for (let i = 0; i < 40; i++) {
      w.wake();
      lastWake = Date.now();
      await new Promise((r) => setTimeout(r, 5));
    }
    // The last wake-up is answered by a round that starts after it.
    await eventually(async () => (claims.at(-1)! >= lastWake ? true : undefined));
    await w.stop();
    expect(claims.length).toBeGreaterThan(2);
    for (let i = 1; i < claims.length; i++) expect(claims[i]! - claims[i - 1]!).toBeGreaterThanOrEqual(95);
  });
});

describe.runIf(onPostgres)('jobs across two instances (PostgreSQL)', () => {
  let other: TestApp;
  beforeAll(async () => {
    other = await buildTestApp({ config: { databaseUrl: t.app.deps.config.databaseUrl } });
    await Promise.all([t.app.deps.channels.ready(), other.app.deps.channels.ready()]);
  });
  afterAll(() => other?.close());

  it('a NOTIFY from one instance wakes the worker of the other', async () => {
    const kind = nextKind();
    let runs = 0;
    const w = worker(other, {
      name: kind,
      handler: async () => {
        runs++;
      },
    });
    w.start();
    // The LISTEN goes out on the shared connection asynchronously: wait until PostgreSQL reports it.
    await eventually(async () => {
      const channels = await (
        other.app.deps.channels as unknown as { listeningChannels(): Promise<string[]> }
      ).listeningChannels();
      return channels.includes(`jobs_${kind}`) ? true : undefined;
    });
    await enqueueJob(t.app.deps.db, kind, {});
    await wakeWorkers(t.app.deps.channels, kind);
    await eventually(async () => (runs === 1 ? true : undefined));
    await w.stop();
  });

  it('workers on two instances never run one job twice', async () => {
    const kind = nextKind();
    const runs = new Map<number, number>();
    const def: QueuedJobDefinition<{ n: number }> = {
      name: kind,
      async handler(payload) {
        runs.set(payload.n, (runs.get(payload.n) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 2));
      },
    };
    for (let n = 0; n < 80; n++) await enqueueJob(t.app.deps.db, kind, { n });
    const ws = [worker(t, def, { concurrency: 4 }), worker(other, def, { concurrency: 4 })];
    for (const w of ws) w.start();
    await eventually(async () => (runs.size === 80 ? true : undefined), 30_000);
    await eventually(async () =>
      (await rowsOf(kind)).every((r) => r.status === 'succeeded') ? true : undefined,
    );
    await Promise.all(ws.map((w) => w.stop()));
    expect(runs.size).toBe(80);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(ws[0]!.stats.claimed + ws[1]!.stats.claimed).toBe(80);
  });
});
