import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import { OTA_DOWNLOAD_TOKEN_TTL_MS, type OtaPolicy, type OtaTaskStatus } from '@cellhub/contract/ota';
import type { OtaDown, OtaUp } from '@cellhub/contract/protocol';
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../lib/deps';
import { writeAudit } from '../audit/audit.service';
import type { DeviceRef } from '../devices/device-ref';
import { signDownloadToken } from './ota-token';
import { applyReport, mayRetry, type RowState, retryDelayMs } from './ota-transitions';
import { countsOf, taskCounts } from './ota.service';
import { type OtaTaskRow, otaTasks } from './ota.table';
import { type SimDownloadCheck, simDownloadCheck } from './sim-check';

export interface OtaEngineOptions {
  /** Dispatcher period; events (a start, a device coming online) wake it sooner. */
  tickMs: number;
  /** Rows claimed per transaction. */
  batchSize: number;
  /** Device reports are collected this long before their shared transaction. */
  reportWindowMs: number;
  /** At most one `ota.task` event per task per this many ms. */
  eventIntervalMs: number;
  /** A dispatch committed but not marked sent after this long is published again (its instance died). */
  republishAfterMs: number;
  /** Passes start at least this far apart, however often events wake the dispatcher. */
  minPassGapMs: number;
  /** Plan times, timeouts and orphaned sends are looked at this often (by the injectable clock). */
  housekeepingMs: number;
  simCheck: SimDownloadCheck;
  /** Base of download URLs; the server's PUBLIC_URL by default. */
  downloadBase?: () => string;
}

export const DEFAULT_ENGINE_OPTIONS: OtaEngineOptions = {
  tickMs: 250,
  batchSize: 1000,
  reportWindowMs: 10,
  eventIntervalMs: 300,
  republishAfterMs: 30_000,
  minPassGapMs: 100,
  housekeepingMs: 1000,
  simCheck: simDownloadCheck,
};

/** Outcome of a device's `P/up/ota` for the gateway: refused reports are dropped and counted there. */
export type ReportOutcome = { ok: true } | { ok: false; code: number; reason: string };

interface PendingReport {
  device: DeviceRef;
  msg: OtaUp;
  resolve(outcome: ReportOutcome): void;
  reject(err: unknown): void;
}

interface DispatchRow {
  id: number;
  taskId: number;
  sn: string;
  productKey: string;
  upgradeId: string;
  attempt: number;
}

type TaskInfo = Pick<OtaTaskRow, 'id' | 'version' | 'size' | 'checksum' | 'algorithm'>;

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

const rowsOf = <T>(res: unknown): T[] => (res as { rows: T[] }).rows;
/** A timestamp parameter both drivers take the same way. */
const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;
const OPEN_PHASES = ['pending', 'offline', 'dispatched', 'retry_wait'];

/**
 * The rollout engine of one server instance. Everything it knows is in the database, so any number of instances
 * run it side by side: each claims work with `FOR UPDATE SKIP LOCKED` (tasks and upgrade log rows) in short
 * transactions, commits a dispatch before publishing it, and marks it sent afterwards (docs/ota.md).
 */
export class OtaEngine {
  readonly options: OtaEngineOptions;
  readonly stats = {
    ticks: 0,
    dispatched: 0,
    published: 0,
    publishFailed: 0,
    republished: 0,
    /** Sends repeated because the device reconnected before saying anything about them. */
    resentOnConnect: 0,
    reports: 0,
    reportsRefused: 0,
    timeouts: 0,
    infoSuccesses: 0,
    events: 0,
  };
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private lastPassEnd = 0;
  private lastHousekeeping = 0;
  private closed = false;
  /** A device came online since the last pass: look at rows waiting for their device. */
  private lookOffline = true;
  private lastOfflineLook = 0;
  private reports: PendingReport[] = [];
  private reportTimer: NodeJS.Timeout | undefined;
  private reportChain: Promise<void> = Promise.resolve();
  private infos = new Map<string, string>();
  /** Devices that connected, with the time of their connect. */
  private onlines = new Map<string, string>();
  private onlineTimer: NodeJS.Timeout | undefined;
  private onlineChain: Promise<void> = Promise.resolve();
  private infoTimer: NodeJS.Timeout | undefined;
  private infoChain: Promise<void> = Promise.resolve();
  private downloads = new Map<number, number>();
  private dirty = new Map<number, { uid: number; productKey: string } | undefined>();
  private eventTimer: NodeJS.Timeout | undefined;
  private eventChain: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly deps: Deps,
    options: Partial<OtaEngineOptions> = {},
  ) {
    this.options = { ...DEFAULT_ENGINE_OPTIONS, ...options };
  }

  /** Starts the dispatcher and listens for devices coming online and reporting their firmware version. */
  start(): void {
    this.unsubscribe = this.deps.events.subscribe((event) => {
      if (event.type === 'device.online' && event.online === 1) {
        this.lookOffline = true;
        this.queueOnline(event.sn, event.at);
        this.wake();
      } else if (event.type === 'device.info' && typeof event.fields.fw_version === 'string') {
        this.queueInfo(event.sn, event.fields.fw_version);
      }
    });
    this.downloadTimer = setInterval(() => {
      this.flushDownloads().catch((err: unknown) =>
        this.deps.log.warn({ err }, 'ota: download counts failed'),
      );
    }, 1000);
    this.downloadTimer.unref();
    const loop = () => {
      this.timer = setTimeout(() => {
        void this.tick().finally(() => {
          if (!this.closed) loop();
        });
      }, this.options.tickMs);
      this.timer.unref();
    };
    loop();
  }

  /** Runs a pass soon (coalesced). */
  wake(): void {
    if (this.closed || this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.tick();
    }, 5);
    this.soon.unref();
  }

  /** One pass of the dispatcher; a call during a pass makes that pass run once more. */
  tick(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      do {
        this.again = false;
        // Reports wake the dispatcher hundreds of times a second during a rollout; passes closer together would
        // only take the database (one connection on PGlite) from the downloads and the reports themselves.
        const wait = this.lastPassEnd + this.options.minPassGapMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        try {
          await this.pass();
        } catch (err) {
          this.deps.log.warn({ err }, 'ota: dispatcher pass failed');
        }
        this.lastPassEnd = Date.now();
      } while (this.again && !this.closed);
    })().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private async pass(): Promise<void> {
    this.stats.ticks++;
    const now = this.deps.now();
    // Rows waiting for their device are looked at when a device came online, and every 5 s in case the event was
    // missed (it came to another instance whose NOTIFY was lost).
    const lookOffline = this.lookOffline || Date.now() - this.lastOfflineLook > 5000;
    this.lookOffline = false;
    if (lookOffline) this.lastOfflineLook = Date.now();
    // Plan times, timeouts and orphaned sends change with the clock, not with events: once a second is enough.
    if (now.getTime() - this.lastHousekeeping >= this.options.housekeepingMs) {
      this.lastHousekeeping = now.getTime();
      await this.autoStart(now);
      await this.sweepTimeouts(now);
      await this.republishUnsent(now);
    }
    const running = await this.deps.db
      .select({ id: otaTasks.id })
      .from(otaTasks)
      .where(eq(otaTasks.status, 'running'));
    for (const { id } of running) {
      for (let round = 0; round < 100 && !this.closed; round++) {
        const more = await this.manage(id, now, lookOffline);
        if (!more) break;
      }
    }
  }

  // --- task-level transitions -----------------------------------------------------------------------------

  /** Inactive tasks whose plan time has come start by themselves (audited as the system). */
  private async autoStart(now: Date): Promise<void> {
    const started = await this.deps.db.transaction(async (tx) => {
      const due = await tx
        .select()
        .from(otaTasks)
        .where(and(eq(otaTasks.status, 'inactive'), lte(otaTasks.planTime, now)))
        .limit(20)
        .for('update', { skipLocked: true });
      for (const t of due) {
        await tx
          .update(otaTasks)
          .set({ status: 'running', startTime: t.startTime ?? now, pauseReason: null })
          .where(eq(otaTasks.id, t.id));
        await writeAudit(tx, {
          uid: null,
          action: 'ota_task_auto_start',
          target: `ota-task:${t.id}`,
          detail: { from: 'inactive', to: 'running', plan_time: t.planTime?.toISOString() },
        });
      }
      return due.map((t) => t.id);
    });
    for (const id of started) this.taskChanged(id);
  }

  /**
   * One step of a running task under its row lock (another instance skips the task meanwhile): window end,
   * waves, failure threshold, done, then claim and commit a batch of dispatches, published after the commit.
   * Returns whether there may be more to do right away.
   */
  private async manage(taskId: number, now: Date, lookOffline: boolean): Promise<boolean> {
    const outcome = await this.deps.db.transaction(async (tx) => {
      const [task] = await tx
        .select()
        .from(otaTasks)
        .where(and(eq(otaTasks.id, taskId), eq(otaTasks.status, 'running')))
        .for('update', { skipLocked: true });
      if (!task) return { more: false, changed: false, batch: [] as DispatchRow[], task: undefined };
      const policy = task.policy;
      const phases = rowsOf<{ phase: string; released: boolean; n: number }>(
        await tx.execute(sql`
          select phase, (wave <= ${task.currentWave}) as released, count(*)::int as n
          from ota_devices where task_id = ${taskId} group by 1, 2`),
      );
      const n = (pred: (r: { phase: string; released: boolean }) => boolean) =>
        phases.filter(pred).reduce((s, r) => s + Number(r.n), 0);
      const open = n((r) => OPEN_PHASES.includes(r.phase));
      const dispatched = n((r) => r.phase === 'dispatched');

      // The window ended: whatever was not sent is skipped; the task is done once the sent ones have ended.
      if (task.windowEnd && task.windowEnd.getTime() <= now.getTime()) {
        await tx.execute(sql`
          update ota_devices set phase = 'skipped', result = 'window ended', finished_at = ${ts(now)},
            next_attempt_at = null, updatedat = ${ts(now)}
          where task_id = ${taskId} and phase in ('pending', 'offline', 'retry_wait')`);
        if (dispatched === 0) await this.finish(tx, task, now, 'window ended');
        return { more: false, changed: open !== dispatched, batch: [], task };
      }

      if (open === 0) {
        await this.finish(tx, task, now, 'every device ended');
        return { more: false, changed: true, batch: [], task };
      }

      // Failures first: a wave that ended badly must not release the next one.
      const active = n((r) => r.phase !== 'skipped' && r.phase !== 'cancelled');
      const failed = n((r) => r.phase === 'failed');
      if (
        await this.thresholdReached(
          tx,
          task,
          failed,
          n((r) => r.phase === 'succeeded'),
          active,
        )
      ) {
        return { more: false, changed: true, batch: [], task };
      }

      // Waves: the next one is released `wave_pause_s` after every device of the released ones ended or waits
      // for its device to connect.
      let wave = task.currentWave;
      const waiting = n((r) => r.released && ['pending', 'dispatched', 'retry_wait'].includes(r.phase));
      if (wave === 0 || (waiting === 0 && wave < task.waveCount)) {
        if (wave > 0 && policy.wave_pause_s > 0 && !task.nextWaveAt) {
          const at = new Date(now.getTime() + policy.wave_pause_s * 1000);
          await tx.update(otaTasks).set({ nextWaveAt: at }).where(eq(otaTasks.id, taskId));
          return { more: false, changed: true, batch: [], task };
        }
        if (wave === 0 || !task.nextWaveAt || task.nextWaveAt.getTime() <= now.getTime()) {
          wave++;
          await tx
            .update(otaTasks)
            .set({ currentWave: wave, nextWaveAt: null })
            .where(eq(otaTasks.id, taskId));
          // The counts above were of the old waves; look again with the new one.
          return { more: true, changed: true, batch: [], task };
        }
      }

      const slots = policy.max_concurrent - dispatched;
      if (slots <= 0) return { more: false, changed: false, batch: [], task };
      const limit = Math.min(slots, this.options.batchSize);
      const batch = await this.claim(tx, task, wave, limit, now, lookOffline);
      return { more: batch.claimed === limit, changed: batch.claimed > 0, batch: batch.dispatch, task };
    });
    if (outcome.task && outcome.batch.length > 0) await this.publish(outcome.task, outcome.batch, now);
    if (outcome.changed) this.taskChanged(taskId);
    return outcome.more;
  }

  /** Running -> done (audited as the system). */
  private async finish(tx: DbOrTx, task: OtaTaskRow, now: Date, reason: string): Promise<void> {
    await tx
      .update(otaTasks)
      .set({ status: 'done', endTime: now, nextWaveAt: null })
      .where(eq(otaTasks.id, task.id));
    await writeAudit(tx, {
      uid: null,
      action: 'ota_task_done',
      target: `ota-task:${task.id}`,
      detail: { from: 'running', to: 'done', reason },
    });
  }

  /**
   * Pauses the task when the failures since its last (re)start reach the threshold: a count, or a percentage of
   * the devices that ended (succeeded + failed), judged once 10 have ended (or all of them, if fewer).
   */
  private async thresholdReached(
    tx: DbOrTx,
    task: OtaTaskRow,
    failed: number,
    succeeded: number,
    active: number,
  ): Promise<boolean> {
    const p = task.policy;
    if (p.failure_threshold === null) return false;
    const newFailed = failed - task.failBase;
    const newEnded = failed + succeeded - task.endedBase;
    if (newFailed <= 0) return false;
    let reached: boolean;
    if (p.failure_threshold_type === 'count') reached = newFailed >= p.failure_threshold;
    else {
      const sample = Math.max(1, Math.min(10, active - task.endedBase));
      reached = newEnded >= sample && (newFailed * 100) / newEnded >= p.failure_threshold;
    }
    if (!reached) return false;
    await tx
      .update(otaTasks)
      .set({ status: 'paused', pauseReason: 'failure_threshold' })
      .where(eq(otaTasks.id, task.id));
    await writeAudit(tx, {
      uid: null,
      action: 'ota_task_auto_pause',
      target: `ota-task:${task.id}`,
      detail: {
        from: 'running',
        to: 'paused',
        failed: newFailed,
        ended: newEnded,
        threshold: p.failure_threshold,
        threshold_type: p.failure_threshold_type,
      },
    });
    return true;
  }

  // --- dispatch ---------------------------------------------------------------------------------------------

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
    const marks: { id: number; phase: string; result: string }[] = [];
    const online: Candidate[] = [];
    for (const c of candidates) {
      const onTarget = c.fw_version === task.version;
      if (c.attempts > 0 && onTarget && c.from_version !== task.version) {
        marks.push({ id: c.id, phase: 'succeeded', result: `reported fw_version ${task.version}` });
      } else if (c.attempts === 0 && policy.skip_same_version && onTarget) {
        marks.push({ id: c.id, phase: 'skipped', result: `already on version ${task.version}` });
      } else if (Number(c.online) !== 1) {
        if (c.phase !== 'offline')
          marks.push({ id: c.id, phase: 'offline', result: 'offline: sent when it connects' });
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
        marks.push({ id: c.id, phase: 'skipped', result: `SIM: ${verdict.reason ?? 'cannot download'}` });
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
        update ota_devices r set phase = 'dispatched', status = 0, progress = null, result = '',
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
    marks: { id: number; phase: string; result: string }[],
    now: Date,
  ): Promise<void> {
    await tx.execute(sql`
      update ota_devices r set phase = v.phase, result = v.result,
        status = case when v.phase = 'succeeded' then 4 else r.status end,
        progress = case when v.phase = 'succeeded' then 100 else r.progress end,
        finished_at = case when v.phase in ('succeeded', 'failed', 'skipped', 'cancelled') then ${ts(now)} end,
        next_attempt_at = null, updatedat = ${ts(now)}
      from unnest(${sql.param(marks.map((m) => m.id))}::int[], ${sql.param(marks.map((m) => m.phase))}::text[],
        ${sql.param(marks.map((m) => m.result))}::text[]) as v(id, phase, result)
      where r.id = v.id`);
  }

  private downloadUrl(row: Pick<DispatchRow, 'id' | 'attempt'>, now: Date): string {
    const token = signDownloadToken(this.deps.box, {
      rowId: row.id,
      attempt: row.attempt,
      expiresAt: now.getTime() + OTA_DOWNLOAD_TOKEN_TTL_MS,
    });
    const base = this.options.downloadBase?.() ?? this.deps.config.publicUrl;
    return `${base}/api/ota/download/${token}`;
  }

  /**
   * Publishes committed dispatches, all at once (the broker pipelines them), then marks the ones the broker took
   * as sent; a device that went away in between goes back to waiting (its attempt is not counted).
   */
  private async publish(task: TaskInfo, batch: DispatchRow[], now: Date): Promise<void> {
    const settled = await Promise.allSettled(
      batch.map((row) => {
        const payload: OtaDown = {
          id: row.upgradeId,
          version: task.version,
          url: this.downloadUrl(row, now),
          size: task.size,
          checksum: task.checksum,
          algorithm: task.algorithm,
        };
        return this.deps.link.send(row.productKey, row.sn, 'ota', payload);
      }),
    );
    const sent: DispatchRow[] = [];
    const failed: DispatchRow[] = [];
    settled.forEach((s, i) => (s.status === 'fulfilled' ? sent : failed).push(batch[i]!));
    this.stats.published += sent.length;
    this.stats.publishFailed += failed.length;
    const at = this.deps.now();
    if (sent.length > 0) {
      await this.deps.db.execute(sql`
        update ota_devices set sent_at = ${ts(at)}
        where upgrade_id = any(${sql.param(sent.map((r) => r.upgradeId))}::text[]) and phase = 'dispatched'`);
    }
    if (failed.length > 0) {
      await this.deps.db.execute(sql`
        update ota_devices set phase = 'offline', attempts = attempts - 1, upgrade_id = null, dispatched_at = null,
          deadline_at = null, result = 'offline: sent when it connects', updatedat = ${ts(at)}
        where upgrade_id = any(${sql.param(failed.map((r) => r.upgradeId))}::text[])
          and phase = 'dispatched' and sent_at is null`);
    }
  }

  /**
   * Dispatches committed by an instance that died before marking them sent: published again with the same upgrade
   * id (a device that did get the first one recognises it), after taking a fresh lease on them.
   */
  private async republishUnsent(now: Date): Promise<void> {
    const stale = new Date(now.getTime() - this.options.republishAfterMs);
    const claimed = await this.deps.db.transaction(async (tx) => {
      const rows = rowsOf<{
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
          order by r.id limit ${this.options.batchSize}
          for update of r skip locked`),
      );
      if (rows.length === 0) return [];
      await tx.execute(sql`
        update ota_devices set dispatched_at = ${ts(now)}, updatedat = ${ts(now)}
        where id = any(${sql.param(rows.map((r) => r.id))}::int[])`);
      return rows;
    });
    if (claimed.length === 0) return;
    const byTask = new Map<number, DispatchRow[]>();
    for (const r of claimed) {
      const list = byTask.get(r.task_id) ?? [];
      list.push({
        id: r.id,
        taskId: r.task_id,
        sn: r.sn,
        productKey: r.product_key,
        attempt: Number(r.attempts),
        upgradeId: r.upgrade_id,
      });
      byTask.set(r.task_id, list);
    }
    const tasks = await this.deps.db
      .select()
      .from(otaTasks)
      .where(inArray(otaTasks.id, [...byTask.keys()]));
    for (const t of tasks) {
      const rows = byTask.get(t.id)!;
      this.stats.republished += rows.length;
      await this.publish(t, rows, now);
    }
  }

  /**
   * Attempts past their deadline: succeeded if the device meanwhile reports the target version, else failed by
   * timeout and retried after the backoff while retries are left (not in a cancelled task).
   */
  private async sweepTimeouts(now: Date): Promise<void> {
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
      if (rows.length === 0) return [];
      const ids: number[] = [];
      const phases: string[] = [];
      const results: string[] = [];
      const nextAt: (string | null)[] = [];
      for (const r of rows) {
        ids.push(r.id);
        if (r.fw_version === r.version && r.from_version !== r.version) {
          phases.push('succeeded');
          results.push(`reported fw_version ${r.version}`);
          nextAt.push(null);
        } else if (mayRetry(r.policy, Number(r.attempts), r.task_status)) {
          phases.push('retry_wait');
          results.push(`timeout after ${r.policy.timeout_s} s`);
          nextAt.push(new Date(now.getTime() + retryDelayMs(r.policy, Number(r.attempts))).toISOString());
        } else {
          phases.push('failed');
          results.push(`timeout after ${r.policy.timeout_s} s`);
          nextAt.push(null);
        }
      }
      await tx.execute(sql`
        update ota_devices r set phase = v.phase, result = v.result, next_attempt_at = v.next_at,
          timed_out = v.phase <> 'succeeded', deadline_at = null,
          status = case when v.phase = 'succeeded' then 4 else r.status end,
          progress = case when v.phase = 'succeeded' then 100 else r.progress end,
          finished_at = case when v.phase in ('succeeded', 'failed') then ${ts(now)} end,
          updatedat = ${ts(now)}
        from unnest(${sql.param(ids)}::int[], ${sql.param(phases)}::text[], ${sql.param(results)}::text[],
          ${sql.param(nextAt)}::timestamptz[]) as v(id, phase, result, next_at)
        where r.id = v.id`);
      this.stats.timeouts += phases.filter((p) => p !== 'succeeded').length;
      return [...new Set(rows.map((r) => r.task_id))];
    });
    for (const id of touched) this.taskChanged(id);
  }

  // --- device reports -------------------------------------------------------------------------------------

  /** A `P/up/ota` from a device; resolves once its effect is committed (with its batch). */
  report(device: DeviceRef, msg: OtaUp): Promise<ReportOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, code: 10105, reason: 'server shutting down' });
    return new Promise<ReportOutcome>((resolve, reject) => {
      this.reports.push({ device, msg, resolve, reject });
      if (this.reports.length >= 500) this.flushReports();
      else this.reportTimer ??= setTimeout(() => this.flushReports(), this.options.reportWindowMs);
    });
  }

  private flushReports(): void {
    clearTimeout(this.reportTimer);
    this.reportTimer = undefined;
    const batch = this.reports;
    this.reports = [];
    if (batch.length === 0) return;
    // One batch at a time: reports of one device keep their order.
    this.reportChain = this.reportChain.then(() =>
      this.applyReports(batch).catch((err: unknown) => {
        this.deps.log.warn({ err, n: batch.length }, 'ota: report batch failed');
        for (const r of batch) r.reject(err);
      }),
    );
  }

  private async applyReports(batch: PendingReport[]): Promise<void> {
    const now = this.deps.now();
    const outcomes = new Map<PendingReport, ReportOutcome>();
    const tasks = await this.deps.db.transaction(async (tx) => {
      const ids = [...new Set(batch.map((r) => r.msg.id))];
      const rows = rowsOf<{
        id: number;
        task_id: number;
        device_id: number;
        phase: RowState['phase'];
        status: number;
        progress: number | null;
        result: string;
        attempts: number;
        upgrade_id: string;
        policy: OtaPolicy;
        task_status: OtaTaskStatus;
      }>(
        await tx.execute(sql`
          select r.id, r.task_id, r.device_id, r.phase, r.status, r.progress, r.result, r.attempts, r.upgrade_id,
            t.policy, t.status as task_status
          from ota_devices r join ota_tasks t on t.id = r.task_id
          where r.upgrade_id = any(${sql.param(ids)}::text[])
          order by r.id
          for update of r`),
      );
      const byId = new Map(rows.map((r) => [r.upgrade_id, r]));
      const states = new Map<number, { state: RowState; taskId: number; reported: boolean }>();
      for (const item of batch) {
        const row = byId.get(item.msg.id);
        if (!row || row.device_id !== item.device.id) {
          outcomes.set(item, { ok: false, code: 10107, reason: `no upgrade with id "${item.msg.id}"` });
          continue;
        }
        const current = states.get(row.id)?.state ?? {
          phase: row.phase,
          status: row.status,
          progress: row.progress,
          result: row.result,
          attempts: Number(row.attempts),
          nextAttemptAt: null,
          finishedAt: null,
          deadlineKept: row.phase === 'dispatched',
        };
        const next = applyReport(current, item.msg, row.policy, row.task_status, now);
        states.set(row.id, { state: next, taskId: row.task_id, reported: true });
        outcomes.set(item, { ok: true });
      }
      if (states.size === 0) return [];
      const entries = [...states.entries()];
      const col = <T>(f: (s: RowState) => T) => entries.map(([, v]) => f(v.state));
      await tx.execute(sql`
        update ota_devices r set phase = v.phase, status = v.status, progress = v.progress, result = v.result,
          next_attempt_at = case when v.phase = 'retry_wait' then v.next_at else r.next_attempt_at end,
          finished_at = case when v.phase in ('succeeded', 'failed') and r.phase not in ('succeeded', 'failed')
            then v.finished_at else r.finished_at end,
          deadline_at = case when v.phase = 'dispatched' then r.deadline_at end,
          timed_out = case when v.phase = 'succeeded' then false else r.timed_out end,
          reported_at = ${ts(now)}, updatedat = ${ts(now)}
        from unnest(${sql.param(entries.map(([id]) => id))}::int[], ${sql.param(col((s) => s.phase))}::text[],
          ${sql.param(col((s) => s.status))}::int[], ${sql.param(col((s) => s.progress))}::real[],
          ${sql.param(col((s) => s.result.slice(0, 512)))}::text[],
          ${sql.param(col((s) => s.nextAttemptAt?.toISOString() ?? null))}::timestamptz[],
          ${sql.param(col((s) => s.finishedAt?.toISOString() ?? null))}::timestamptz[])
          as v(id, phase, status, progress, result, next_at, finished_at)
        where r.id = v.id`);
      return [...new Set(entries.map(([, v]) => v.taskId))];
    });
    for (const item of batch) {
      const outcome = outcomes.get(item) ?? { ok: true };
      this.stats.reports++;
      if (!outcome.ok) this.stats.reportsRefused++;
      item.resolve(outcome);
    }
    for (const id of tasks) this.taskChanged(id);
    // A failure or a success may end a wave, reach the threshold or end the task.
    if (tasks.length > 0) this.wake();
  }

  // --- reconnects ------------------------------------------------------------------------------------------

  private queueOnline(sn: string, at: string): void {
    if (this.closed) return;
    this.onlines.set(sn, at);
    this.onlineTimer ??= setTimeout(() => {
      this.onlineTimer = undefined;
      const batch = this.onlines;
      this.onlines = new Map();
      this.onlineChain = this.onlineChain.then(() =>
        this.resendOnConnect(batch).catch((err: unknown) =>
          this.deps.log.warn({ err }, 'ota: re-send on connect failed'),
        ),
      );
    }, 50);
  }

  /**
   * A device that reconnects while its upgrade was sent but before it said anything about it may have lost the
   * command with its old connection (a clean session drops queued messages). It gets the same command again, same
   * upgrade id, so a device that did receive it recognises it; the attempt and its deadline stay.
   */
  private async resendOnConnect(batch: Map<string, string>): Promise<void> {
    if (batch.size === 0) return;
    const rows = rowsOf<{
      id: number;
      task_id: number;
      sn: string;
      product_key: string;
      attempts: number;
      upgrade_id: string;
    }>(
      await this.deps.db.execute(sql`
        select r.id, r.task_id, r.sn, r.product_key, r.attempts, r.upgrade_id
        from unnest(${sql.param([...batch.keys()])}::text[], ${sql.param([...batch.values()])}::timestamptz[])
          as x(sn, at)
        join devices d on d.sn = x.sn join ota_devices r on r.device_id = d.id
        where r.phase = 'dispatched' and r.reported_at is null and r.sent_at < x.at`),
    );
    if (rows.length === 0) return;
    const byTask = new Map<number, DispatchRow[]>();
    for (const r of rows) {
      const list = byTask.get(r.task_id) ?? [];
      list.push({
        id: r.id,
        taskId: r.task_id,
        sn: r.sn,
        productKey: r.product_key,
        attempt: Number(r.attempts),
        upgradeId: r.upgrade_id,
      });
      byTask.set(r.task_id, list);
    }
    const tasks = await this.deps.db
      .select()
      .from(otaTasks)
      .where(inArray(otaTasks.id, [...byTask.keys()]));
    for (const t of tasks) {
      const list = byTask.get(t.id)!;
      this.stats.resentOnConnect += list.length;
      await this.publish(t, list, this.deps.now());
    }
  }

  // --- success by P/up/info -------------------------------------------------------------------------------

  private queueInfo(sn: string, fwVersion: string): void {
    if (this.closed) return;
    this.infos.set(sn, fwVersion);
    this.infoTimer ??= setTimeout(() => {
      this.infoTimer = undefined;
      const batch = this.infos;
      this.infos = new Map();
      this.infoChain = this.infoChain.then(() =>
        this.applyInfos(batch).catch((err: unknown) =>
          this.deps.log.warn({ err }, 'ota: fw_version check failed'),
        ),
      );
    }, 20);
  }

  /**
   * A device reporting the target version of an upgrade it was sent (from another version) has succeeded, even
   * if its `P/up/ota` with status 4 never arrived. A forced re-install of the same version needs that status 4.
   */
  private async applyInfos(batch: Map<string, string>): Promise<void> {
    if (batch.size === 0) return;
    const now = this.deps.now();
    const res = await this.deps.db.execute(sql`
      update ota_devices r set phase = 'succeeded', status = 4, progress = 100,
        result = 'reported fw_version ' || x.v, finished_at = ${ts(now)}, deadline_at = null, next_attempt_at = null,
        timed_out = false, updatedat = ${ts(now)}
      from ota_tasks t, devices d,
        unnest(${sql.param([...batch.keys()])}::text[], ${sql.param([...batch.values()])}::text[]) as x(sn, v)
      where d.sn = x.sn and r.device_id = d.id and t.id = r.task_id and t.version = x.v
        and r.attempts > 0 and r.from_version is distinct from t.version
        and (r.phase in ('dispatched', 'retry_wait') or (r.phase = 'failed' and r.timed_out))
      returning r.task_id`);
    const tasks = [...new Set(rowsOf<{ task_id: number }>(res).map((r) => r.task_id))];
    this.stats.infoSuccesses += rowsOf(res).length;
    for (const id of tasks) this.taskChanged(id);
    if (tasks.length > 0) this.wake();
  }

  // --- downloads --------------------------------------------------------------------------------------------

  /** Counts a download request (whole or a range) of a row; written with others every second. */
  countDownload(rowId: number): void {
    this.downloads.set(rowId, (this.downloads.get(rowId) ?? 0) + 1);
  }

  private async flushDownloads(): Promise<void> {
    if (this.downloads.size === 0) return;
    const batch = this.downloads;
    this.downloads = new Map();
    await this.deps.db.execute(sql`
      update ota_devices r set downloads = r.downloads + v.n
      from unnest(${sql.param([...batch.keys()])}::int[], ${sql.param([...batch.values()])}::int[]) as v(id, n)
      where r.id = v.id`);
  }

  // --- live events ------------------------------------------------------------------------------------------

  /** Schedules an `ota.task` event for the task; changes within `eventIntervalMs` share one. */
  taskChanged(taskId: number, deleted?: { uid: number; productKey: string }): void {
    if (this.closed) return;
    if (!this.dirty.has(taskId) || deleted) this.dirty.set(taskId, deleted);
    this.eventTimer ??= setTimeout(() => {
      this.eventTimer = undefined;
      this.eventChain = this.eventChain.then(() =>
        this.emitEvents().catch((err: unknown) => this.deps.log.warn({ err }, 'ota: task events failed')),
      );
    }, this.options.eventIntervalMs);
  }

  private async emitEvents(): Promise<void> {
    const dirty = this.dirty;
    this.dirty = new Map();
    if (dirty.size === 0) return;
    const at = this.deps.now().toISOString();
    const ids = [...dirty.keys()];
    const [rows, counts] = await Promise.all([
      this.deps.db.select().from(otaTasks).where(inArray(otaTasks.id, ids)),
      taskCounts(this.deps.db, ids),
    ]);
    const found = new Set<number>();
    for (const t of rows) {
      found.add(t.id);
      this.stats.events++;
      this.deps.events.publishTask(
        {
          type: 'ota.task',
          id: t.id,
          product_key: t.productKey,
          status: t.status,
          pause_reason: t.pauseReason ?? null,
          ...countsOf(counts.get(t.id)!),
          at,
        },
        { uid: t.uid },
      );
    }
    for (const [id, gone] of dirty) {
      if (found.has(id) || !gone) continue;
      this.stats.events++;
      this.deps.events.publishTask(
        {
          type: 'ota.task',
          id,
          product_key: gone.productKey,
          status: 'cancelled',
          pause_reason: null,
          device_count: 0,
          success_count: 0,
          fail_count: 0,
          upgrading_count: 0,
          pending_count: 0,
          skipped_count: 0,
          cancelled_count: 0,
          deleted: true,
          at,
        },
        { uid: gone.uid },
      );
    }
  }

  private downloadTimer: NodeJS.Timeout | undefined;

  /** Stops the dispatcher after the current pass and writes what is queued (reports, fw versions, counts). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flushReports();
    this.closed = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    clearTimeout(this.soon);
    clearInterval(this.downloadTimer);
    this.downloadTimer = undefined;
    await this.ticking;
    await this.reportChain;
    clearTimeout(this.onlineTimer);
    await this.onlineChain;
    clearTimeout(this.infoTimer);
    if (this.infos.size > 0) {
      const batch = this.infos;
      this.infos = new Map();
      this.infoChain = this.infoChain.then(() => this.applyInfos(batch).catch(() => undefined));
    }
    await this.infoChain;
    await this.flushDownloads().catch(() => undefined);
    clearTimeout(this.eventTimer);
    await this.eventChain;
  }
}
