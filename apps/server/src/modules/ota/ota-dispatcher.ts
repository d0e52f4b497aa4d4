import { and, eq, inArray, sql } from 'drizzle-orm';
import type { OtaPolicy, OtaTaskStatus } from '@cellhub/contract/ota';
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../lib/deps';
import { type Periodic, startPeriodic } from '../../jobs/periodic';
import { JobWorker, wakeWorkers } from '../../jobs/worker';
import { byTask, type DispatchRow, publishDispatches, rowsOf, type TaskInfo, ts } from './ota-send';
import { autoStartDue, stepTask } from './ota-task-steps';
import { otaResult, type OtaResult } from './ota-results';
import { mayRetry, retryDelayMs } from './ota-transitions';
import { type OtaTaskRow, otaTasks } from './ota.table';
import type { SimDownloadCheck } from './sim-check';

export interface OtaDispatcherOptions {
  /** The worker looks for due rows this often; events (a start, a device coming online, an attempt ending) sooner. */
  tickMs: number;
  /** Rows claimed per transaction. */
  batchSize: number;
  /** A dispatch committed but not marked sent after this long is published again (its instance died). */
  republishAfterMs: number;
  /**
   * A publish the broker has not taken after this long is left unmarked (neither sent nor failed): the worker
   * goes on, and the sweep of unsent dispatches publishes it again later, as if this instance had died.
   */
  publishTimeoutMs: number;
  /** Claim rounds start at least this far apart, however often events wake the dispatcher. */
  minPassGapMs: number;
  /** Plan times, timeouts and orphaned sends are looked at this often (jobs/periodic.ts). */
  housekeepingMs: number;
  simCheck: SimDownloadCheck;
  /** Base of download URLs; the server's PUBLIC_URL by default. */
  downloadBase?: () => string;
}

export interface OtaDispatcherStats {
  /** Claim rounds (each looks at every running task). */
  claimRounds: number;
  /** Housekeeping sweeps (plan times, timeouts, orphaned sends) that ran to their end. */
  sweeps: number;
  dispatched: number;
  published: number;
  publishFailed: number;
  /** Publishes the broker did not take within `publishTimeoutMs` (left to the unsent sweep). */
  publishTimedOut: number;
  republished: number;
  timeouts: number;
  /** Claimed batches given back unpublished because the dispatcher stopped (their attempt not counted). */
  released: number;
}

/** The job kind's name: its worker is woken on `jobs_ota_dispatch` (NOTIFY on PostgreSQL, in process on PGlite). */
export const OTA_DISPATCH_KIND = 'ota_dispatch';

/**
 * Claimed batches one instance publishes at once. The broker pipelines each batch; a broker that does not take
 * one holds its slot for at most `publishTimeoutMs`.
 */
const PUBLISHERS = 4;

/** One job: a committed batch of dispatches of one task, to publish and mark sent. */
interface DispatchJob {
  task: OtaTaskRow;
  batch: DispatchRow[];
  /** The `dispatched_at` its claim wrote: the lease a release checks is still this claim's. */
  at: Date;
}

interface Candidate {
  id: number;
  sn: string;
  product_key: string;
  attempts: number;
  phase: string;
  from_version: string | null;
  online: number;
  fw_version: string;
}

/**
 * The dispatcher of one server instance, a job kind of src/jobs: its claim takes each running task's row lock
 * (`FOR UPDATE SKIP LOCKED`), makes the task's transitions and claims a batch of due upgrade log rows, committed
 * as dispatched (that commit is the claim's lease: a row never marked sent is published again after
 * `republishAfterMs`); its run publishes the batch and marks it sent. The JobWorker owns the loop: wake-ups
 * (`jobs_ota_dispatch`, events of this instance), the poll, the gap between rounds, graceful stop. Plan times,
 * timeouts and orphaned sends are a periodic sweep (jobs/periodic.ts). Everything it knows is in the database, so
 * any number of instances run it side by side (docs/ota.md).
 */
export class OtaDispatcher {
  readonly stats: OtaDispatcherStats = {
    claimRounds: 0,
    sweeps: 0,
    dispatched: 0,
    published: 0,
    publishFailed: 0,
    publishTimedOut: 0,
    republished: 0,
    timeouts: 0,
    released: 0,
  };
  private readonly worker: JobWorker<DispatchJob>;
  private housekeeping: Periodic | undefined;
  private closed = false;
  /**
   * Claims until then look at rows waiting for their device: a device became ready (or came online elsewhere). A
   * window rather than one claim: the row of a device that connected but had not subscribed yet is written back to
   * waiting by the publish the gateway refused, which may end after the next claim started.
   */
  private lookOfflineUntil = 0;
  private lastOfflineLook = 0;
  /**
   * Rows this instance committed as dispatched and is about to publish or publishing, until the publish is
   * marked or times out: the unsent sweep leaves them alone, whatever `republishAfterMs` is (a slow publish of a
   * busy instance is not an orphan). Another instance's sweep only sees their lease.
   */
  private readonly publishing = new Set<number>();

  constructor(
    private readonly deps: Deps,
    readonly options: OtaDispatcherOptions,
    private readonly taskChanged: (taskId: number) => void,
  ) {
    this.worker = new JobWorker<DispatchJob>(
      {
        name: OTA_DISPATCH_KIND,
        claim: (limit) => this.claimBatches(limit),
        run: (job) => this.publish(job.task, job.batch),
        release: (jobs) => this.release(jobs),
      },
      {
        log: deps.log,
        channels: deps.channels,
        concurrency: PUBLISHERS,
        pollMs: options.tickMs,
        // Reports wake the dispatcher hundreds of times a second during a rollout; claims closer together would
        // only take the database (one connection on PGlite) from the downloads and the reports themselves.
        minGapMs: options.minPassGapMs,
      },
    );
  }

  downloadBase(): string {
    return this.options.downloadBase?.() ?? this.deps.config.publicUrl;
  }

  start(): void {
    if (this.closed || this.housekeeping) return;
    this.worker.start();
    this.housekeeping = startPeriodic({
      name: 'ota: housekeeping',
      everyMs: this.options.housekeepingMs,
      run: () => this.housekeep(),
      log: this.deps.log,
    });
    this.housekeeping.wake();
  }

  /** A device can take its upgrade now: rows waiting for it are looked at in the claims of the next second. */
  deviceOnline(): void {
    this.lookOfflineUntil = Date.now() + 1000;
    this.worker.wake();
  }

  /** A claim round soon on this instance (coalesced, after the gap). */
  wake(): void {
    this.worker.wake();
  }

  /** A claim round soon on every instance (a task was started or changed): NOTIFY on `jobs_ota_dispatch`. */
  wakeEverywhere(): void {
    if (this.closed) return;
    wakeWorkers(this.deps.channels, OTA_DISPATCH_KIND).catch((err: unknown) => {
      this.deps.log.warn({ err }, 'ota: wake-up notify failed; instances find the task at their next poll');
      this.worker.wake();
    });
  }

  /**
   * One whole pass, for tests that moved the clock: what the worker is doing now (a claim round, publishes) ends,
   * then the housekeeping sweep runs, then claim rounds until one finds less than it could take, each batch
   * published before this resolves.
   */
  async tick(): Promise<void> {
    if (this.closed) return;
    await this.worker.settle();
    await (this.housekeeping ? this.housekeeping.runNow() : this.housekeep());
    for (let round = 0; round < 100 && !this.closed; round++) {
      if ((await this.worker.runOnce(PUBLISHERS)) < PUBLISHERS) break;
    }
  }

  /** No new claims or sweeps; waits for the batches being published. */
  async stop(): Promise<void> {
    this.closed = true;
    await this.housekeeping?.stop();
    await this.worker.stop();
  }

  /** Plan times, timeouts and orphaned sends: they change with the clock, not with events. */
  private async housekeep(): Promise<void> {
    const now = this.deps.now();
    const started = await autoStartDue(this.deps.db, now);
    for (const id of started) this.taskChanged(id);
    const timedOut = await this.sweepTimeouts(now);
    // A start, a retry that became due or an attempt that ended: the dispatcher has work now.
    if (started.length > 0 || timedOut > 0) this.worker.wake();
    await this.republishUnsent(now);
    this.stats.sweeps++;
  }

  /**
   * The job kind's claim: up to `limit` batches, task by task (each task step under its row lock, in its own
   * short transaction), each committed before it is returned.
   */
  private async claimBatches(limit: number): Promise<DispatchJob[]> {
    this.stats.claimRounds++;
    // Rows waiting for their device are looked at when a device became ready, and every 5 s in case the event was
    // missed (it came to another instance whose NOTIFY was lost).
    const lookOffline = Date.now() < this.lookOfflineUntil || Date.now() - this.lastOfflineLook > 5000;
    if (lookOffline) this.lastOfflineLook = Date.now();
    const running = await this.deps.db
      .select({ id: otaTasks.id })
      .from(otaTasks)
      .where(eq(otaTasks.status, 'running'));
    const jobs: DispatchJob[] = [];
    try {
      for (const { id } of running) {
        for (let round = 0; round < 100 && jobs.length < limit && !this.closed; round++) {
          // Each step's own clock: a slow round must not start the lease of its later batches in the past.
          const step = await this.manage(id, this.deps.now(), lookOffline);
          if (step.job) jobs.push(step.job);
          if (!step.more) break;
        }
        if (jobs.length >= limit) break;
      }
    } catch (err) {
      // Batches already committed are published now rather than left to the sweep.
      if (jobs.length === 0) throw err;
      this.deps.log.warn({ err }, 'ota: claim round failed; publishing what it committed');
    }
    return jobs;
  }

  /**
   * One step of a running task under its row lock (another instance skips the task meanwhile): its task-level
   * transitions (ota-task-steps.ts), then a claimed and committed batch of dispatches. Returns the batch to
   * publish and whether there may be more to do right away.
   */
  private async manage(
    taskId: number,
    now: Date,
    lookOffline: boolean,
  ): Promise<{ more: boolean; job?: DispatchJob }> {
    // The batch is registered as being published before its transaction commits (its rows are locked until then),
    // so the unsent sweep can never see it committed and not registered.
    let claimed: DispatchRow[] = [];
    const outcome = await this.deps.db
      .transaction(async (tx) => {
        const [task] = await tx
          .select()
          .from(otaTasks)
          .where(and(eq(otaTasks.id, taskId), eq(otaTasks.status, 'running')))
          .for('update', { skipLocked: true });
        if (!task) return { more: false, changed: false, batch: [] as DispatchRow[], task: undefined };
        const step = await stepTask(tx, task, now);
        if (step.kind === 'again') return { more: true, changed: true, batch: [], task };
        if (step.kind === 'stop') return { more: false, changed: step.changed, batch: [], task };
        if (step.slots <= 0) return { more: false, changed: false, batch: [], task };
        const limit = Math.min(step.slots, this.options.batchSize);
        const batch = await this.claim(tx, task, step.wave, limit, now, lookOffline);
        claimed = batch.dispatch;
        for (const r of claimed) this.publishing.add(r.id);
        return { more: batch.claimed === limit, changed: batch.claimed > 0, batch: batch.dispatch, task };
      })
      .catch((err: unknown) => {
        for (const r of claimed) this.publishing.delete(r.id);
        throw err;
      });
    if (outcome.changed) this.taskChanged(taskId);
    const job =
      outcome.task && outcome.batch.length > 0
        ? { task: outcome.task, batch: outcome.batch, at: now }
        : undefined;
    return { more: outcome.more, job };
  }

  /**
   * Claims up to `limit` due rows of the released waves (first wave first, then by order), skipping rows another
   * transaction holds and devices busy with another task's upgrade, and decides each: already on the version
   * (skipped, or succeeded for a retry), offline (waits), refused by the SIM check (skipped), or dispatched. All
   * decisions are written in two statements inside the caller's transaction.
   */
  private async claim(
    tx: DbOrTx,
    task: OtaTaskRow,
    wave: number,
    limit: number,
    now: Date,
    lookOffline: boolean,
  ): Promise<{ claimed: number; dispatch: DispatchRow[] }> {
    // Due rows, each kind straight from the (task, phase, seq) index (a scan of the whole log with a join per row
    // would cost every pass more as the rollout goes on); a device busy with another task's upgrade waits for it.
    const notBusy = sql`not exists (
      select 1 from ota_devices o where o.device_id = r.device_id and o.phase = 'dispatched' and o.task_id <> r.task_id)`;
    const due = rowsOf<{ id: number }>(
      await tx.execute(sql`
        select id from (
          (select r.id, r.seq from ota_devices r
            where r.task_id = ${task.id} and r.phase = 'pending' and r.wave <= ${wave} and ${notBusy}
            order by r.seq limit ${limit})
          union all
          (select r.id, r.seq from ota_devices r
            where r.task_id = ${task.id} and r.phase = 'retry_wait' and r.next_attempt_at <= ${ts(now)} and ${notBusy}
            order by r.seq limit ${limit})
          union all
          (select r.id, r.seq from ota_devices r join devices d on d.id = r.device_id
            where ${lookOffline}::boolean and r.task_id = ${task.id} and r.phase = 'offline' and d.online = 1
              and ${notBusy}
            order by r.seq limit ${limit})
        ) c order by seq limit ${limit}`),
    );
    if (due.length === 0) return { claimed: 0, dispatch: [] };
    // Locked, skipping rows another transaction holds, with what the decision needs.
    const candidates = rowsOf<Candidate>(
      await tx.execute(sql`
        select r.id, r.sn, r.product_key, r.attempts, r.phase, r.from_version, d.online, d.fw_version
        from ota_devices r join devices d on d.id = r.device_id
        where r.id = any(${sql.param(due.map((r) => r.id))}::int[])
          and r.phase in ('pending', 'retry_wait', 'offline')
        order by r.seq
        for update of r skip locked`),
    );
    if (candidates.length === 0) return { claimed: 0, dispatch: [] };
    const policy = task.policy;
    const marks: ({ id: number; phase: string } & OtaResult)[] = [];
    const online: Candidate[] = [];
    for (const c of candidates) {
      const onTarget = c.fw_version === task.version;
      if (c.attempts > 0 && onTarget && c.from_version !== task.version) {
        marks.push({
          id: c.id,
          phase: 'succeeded',
          ...otaResult('reported_version', { version: task.version }),
        });
      } else if (c.attempts === 0 && policy.skip_same_version && onTarget) {
        marks.push({
          id: c.id,
          phase: 'skipped',
          ...otaResult('already_on_version', { version: task.version }),
        });
      } else if (Number(c.online) !== 1) {
        if (c.phase !== 'offline')
          marks.push({ id: c.id, phase: 'offline', ...otaResult('offline_pending') });
      } else online.push(c);
    }
    const verdicts = online.length
      ? await this.options.simCheck(
          tx,
          online.map((c) => c.sn),
          task.size,
        )
      : new Map();
    const dispatch: DispatchRow[] = [];
    const froms: string[] = [];
    for (const c of online) {
      const verdict = verdicts.get(c.sn);
      if (verdict && !verdict.ok) {
        marks.push({
          id: c.id,
          phase: 'skipped',
          ...otaResult('sim_refused', { reason: verdict.reason ?? 'cannot download' }),
        });
        continue;
      }
      const attempt = Number(c.attempts) + 1;
      dispatch.push({
        id: c.id,
        taskId: task.id,
        sn: c.sn,
        productKey: c.product_key,
        attempt,
        upgradeId: `${task.id}-${c.id}-${attempt}`,
      });
      froms.push(c.fw_version);
    }
    if (marks.length > 0) await this.mark(tx, marks, now);
    if (dispatch.length > 0) {
      const deadline = new Date(now.getTime() + policy.timeout_s * 1000);
      await tx.execute(sql`
        update ota_devices r set phase = 'dispatched', status = 0, progress = null, result = '', result_code = '',
          result_params = '{}'::jsonb,
          attempts = r.attempts + 1, upgrade_id = v.upgrade_id, from_version = v.from_version, timed_out = false,
          next_attempt_at = null, dispatched_at = ${ts(now)}, sent_at = null, deadline_at = ${ts(deadline)},
          finished_at = null, updatedat = ${ts(now)}
        from unnest(${sql.param(dispatch.map((d) => d.id))}::int[],
          ${sql.param(dispatch.map((d) => d.upgradeId))}::text[], ${sql.param(froms)}::text[])
          as v(id, upgrade_id, from_version)
        where r.id = v.id`);
      this.stats.dispatched += dispatch.length;
    }
    return { claimed: candidates.length, dispatch };
  }

  /** Phase and result of several rows in one statement; ends set finished_at (and status 4 for a success). */
  private async mark(
    tx: DbOrTx,
    marks: ({ id: number; phase: string } & OtaResult)[],
    now: Date,
  ): Promise<void> {
    await tx.execute(sql`
      update ota_devices r set phase = v.phase, result = v.result, result_code = v.result_code,
        result_params = v.result_params,
        status = case when v.phase = 'succeeded' then 4 else r.status end,
        progress = case when v.phase = 'succeeded' then 100 else r.progress end,
        finished_at = case when v.phase in ('succeeded', 'failed', 'skipped', 'cancelled') then ${ts(now)} end,
        next_attempt_at = null, updatedat = ${ts(now)}
      from unnest(${sql.param(marks.map((m) => m.id))}::int[], ${sql.param(marks.map((m) => m.phase))}::text[],
        ${sql.param(marks.map((m) => m.result))}::text[], ${sql.param(marks.map((m) => m.resultCode))}::text[],
        ${sql.param(marks.map((m) => JSON.stringify(m.resultParams)))}::jsonb[])
        as v(id, phase, result, result_code, result_params)
      where r.id = v.id`);
  }

  /**
   * The job kind's run: publishes a committed batch and marks it (ota-send.ts). A broker that does not take it in
   * time leaves it unmarked for the unsent sweep: one stuck publish must not hold a publishing slot for long.
   */
  private async publish(task: TaskInfo, batch: DispatchRow[]): Promise<void> {
    for (const r of batch) this.publishing.add(r.id);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.options.publishTimeoutMs);
    });
    const done = publishDispatches(this.deps, this.downloadBase(), task, batch, this.deps.now());
    try {
      const result = await Promise.race([done, timedOut]);
      if (result === 'timeout') {
        this.stats.publishTimedOut += batch.length;
        this.deps.log.warn({ task: task.id, n: batch.length }, 'ota: publish not taken in time; left unsent');
        // Whatever it finds later is written then; its failure is only logged.
        done.catch((err: unknown) => this.deps.log.warn({ err }, 'ota: late publish failed'));
        return;
      }
      this.stats.published += result.sent;
      this.stats.publishFailed += result.failed;
    } finally {
      clearTimeout(timer);
      // Marked, or timed out: a row still unmarked is the sweep's now (docs/ota.md, publish timeout).
      for (const r of batch) this.publishing.delete(r.id);
    }
  }

  /**
   * The job kind's release (a stop while claiming): batches committed but never published go back to `pending`
   * with their attempt uncounted, rather than wait for the unsent sweep of another instance.
   */
  private async release(jobs: readonly DispatchJob[]): Promise<void> {
    const now = this.deps.now();
    let back = 0;
    try {
      for (const job of jobs) {
        const ids = job.batch.map((r) => r.upgradeId);
        // Still this claim's lease: a row another instance's sweep took over (and published) keeps its attempt,
        // or the next dispatch would reuse its upgrade id for a new send.
        back += rowsOf<{ id: number }>(
          await this.deps.db.execute(sql`
            update ota_devices set phase = 'pending', attempts = attempts - 1, upgrade_id = null,
              dispatched_at = null, deadline_at = null, updatedat = ${ts(now)}
            where upgrade_id = any(${sql.param(ids)}::text[]) and phase = 'dispatched' and sent_at is null
              and dispatched_at = ${ts(job.at)}
            returning id`),
        ).length;
      }
    } finally {
      for (const job of jobs) for (const r of job.batch) this.publishing.delete(r.id);
    }
    this.stats.released += back;
    this.stats.dispatched -= back;
    for (const taskId of new Set(jobs.map((j) => j.task.id))) this.taskChanged(taskId);
  }

  /**
   * Dispatches committed by an instance that died before marking them sent: published again with the same upgrade
   * id (a device that did get the first one recognises it), after taking a fresh lease on them.
   */
  private async republishUnsent(now: Date): Promise<void> {
    const stale = new Date(now.getTime() - this.options.republishAfterMs);
    const claimed = await this.deps.db.transaction(async (tx) => {
      const found = rowsOf<{
        id: number;
        task_id: number;
        sn: string;
        product_key: string;
        attempts: number;
        upgrade_id: string;
      }>(
        await tx.execute(sql`
          select r.id, r.task_id, r.sn, r.product_key, r.attempts, r.upgrade_id from ota_devices r
          where r.phase = 'dispatched' and r.sent_at is null and r.dispatched_at <= ${ts(stale)}
            and r.id <> all(${sql.param([...this.publishing])}::int[])
          order by r.id limit ${this.options.batchSize}
          for update of r skip locked`),
      );
      // Checked again once the rows are read: a batch whose claim committed while this statement was on its way
      // was registered before that commit.
      const rows = found.filter((r) => !this.publishing.has(r.id));
      if (rows.length === 0) return [];
      await tx.execute(sql`
        update ota_devices set dispatched_at = ${ts(now)}, updatedat = ${ts(now)}
        where id = any(${sql.param(rows.map((r) => r.id))}::int[])`);
      return rows;
    });
    if (claimed.length === 0) return;
    const grouped = byTask(claimed);
    const tasks = await this.deps.db
      .select()
      .from(otaTasks)
      .where(inArray(otaTasks.id, [...grouped.keys()]));
    for (const t of tasks) {
      const rows = grouped.get(t.id)!;
      this.stats.republished += rows.length;
      await this.publish(t, rows);
    }
  }

  /**
   * Attempts past their deadline: succeeded if the device meanwhile reports the target version, else failed by
   * timeout and retried after the backoff while retries are left (not in a cancelled task). Answers how many
   * attempts it ended.
   */
  private async sweepTimeouts(now: Date): Promise<number> {
    const touched = await this.deps.db.transaction(async (tx) => {
      const rows = rowsOf<{
        id: number;
        task_id: number;
        attempts: number;
        from_version: string | null;
        fw_version: string;
        version: string;
        policy: OtaPolicy;
        task_status: OtaTaskStatus;
      }>(
        await tx.execute(sql`
          select r.id, r.task_id, r.attempts, r.from_version, d.fw_version, t.version, t.policy,
            t.status as task_status
          from ota_devices r join ota_tasks t on t.id = r.task_id join devices d on d.id = r.device_id
          where r.phase = 'dispatched' and r.deadline_at <= ${ts(now)}
          order by r.deadline_at limit ${this.options.batchSize * 2}
          for update of r skip locked`),
      );
      if (rows.length === 0) return { tasks: [], ended: 0 };
      const ids: number[] = [];
      const phases: string[] = [];
      const results: OtaResult[] = [];
      const nextAt: (string | null)[] = [];
      for (const r of rows) {
        ids.push(r.id);
        if (r.fw_version === r.version && r.from_version !== r.version) {
          phases.push('succeeded');
          results.push(otaResult('reported_version', { version: r.version }));
          nextAt.push(null);
        } else if (mayRetry(r.policy, Number(r.attempts), r.task_status)) {
          phases.push('retry_wait');
          results.push(otaResult('timeout', { seconds: r.policy.timeout_s }));
          nextAt.push(new Date(now.getTime() + retryDelayMs(r.policy, Number(r.attempts))).toISOString());
        } else {
          phases.push('failed');
          results.push(otaResult('timeout', { seconds: r.policy.timeout_s }));
          nextAt.push(null);
        }
      }
      await tx.execute(sql`
        update ota_devices r set phase = v.phase, result = v.result, result_code = v.result_code,
          result_params = v.result_params, next_attempt_at = v.next_at,
          timed_out = v.phase <> 'succeeded', deadline_at = null,
          status = case when v.phase = 'succeeded' then 4 else r.status end,
          progress = case when v.phase = 'succeeded' then 100 else r.progress end,
          finished_at = case when v.phase in ('succeeded', 'failed') then ${ts(now)} end,
          updatedat = ${ts(now)}
        from unnest(${sql.param(ids)}::int[], ${sql.param(phases)}::text[],
          ${sql.param(results.map((x) => x.result))}::text[], ${sql.param(results.map((x) => x.resultCode))}::text[],
          ${sql.param(results.map((x) => JSON.stringify(x.resultParams)))}::jsonb[],
          ${sql.param(nextAt)}::timestamptz[]) as v(id, phase, result, result_code, result_params, next_at)
        where r.id = v.id`);
      this.stats.timeouts += phases.filter((p) => p !== 'succeeded').length;
      return { tasks: [...new Set(rows.map((r) => r.task_id))], ended: rows.length };
    });
    for (const id of touched.tasks) this.taskChanged(id);
    return touched.ended;
  }
}
