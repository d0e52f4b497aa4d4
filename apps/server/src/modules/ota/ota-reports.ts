import { inArray, sql } from 'drizzle-orm';
import type { OtaPolicy, OtaTaskStatus } from '@cellhub/contract/ota';
import type { OtaUp } from '@cellhub/contract/protocol';
import type { Deps } from '../../lib/deps';
import { BatchQueue, BatchQueueStoppedError } from '../../jobs/batch-queue';
import type { DeviceRef } from '../devices/device-ref';
import { byTask, publishDispatches, rowsOf, ts } from './ota-send';
import { applyReport, type RowState } from './ota-transitions';
import { otaTasks } from './ota.table';

/** Outcome of a device's `P/up/ota` for the gateway: refused reports are dropped and counted there. */
export type ReportOutcome = { ok: true } | { ok: false; code: number; reason: string };

export interface OtaReportsOptions {
  /** Device reports are collected this long (or up to 500) before their shared transaction. */
  reportWindowMs: number;
}

/** What the reports part tells the rest of the engine. */
export interface OtaReportsHooks {
  /** A task's counts changed (an `ota.task` event is due). */
  taskChanged(taskId: number): void;
  /** Something ended or came online that the dispatcher should look at soon. */
  wake(): void;
  /** Base of download URLs for re-sent commands. */
  downloadBase(): string;
}

interface Report {
  device: DeviceRef;
  msg: OtaUp;
}
type Info = { sn: string; version: string };
type Online = { sn: string; at: string };
type Downloads = { rowId: number; n: number };

/** Counters of this part, merged into the engine's stats. */
export interface OtaReportStats {
  reports: number;
  reportsRefused: number;
  infoSuccesses: number;
  /** Sends repeated because the device reconnected before saying anything about them. */
  resentOnConnect: number;
}

/**
 * What devices say about their upgrades, each kind collected into one statement per batch (jobs/batch-queue):
 * `P/up/ota` reports (one transaction per batch, answered per report), a reported `fw_version` (success without
 * status 4), devices reconnecting while their command may have been lost (sent again), and download counts.
 */
export class OtaReports {
  readonly stats: OtaReportStats = { reports: 0, reportsRefused: 0, infoSuccesses: 0, resentOnConnect: 0 };
  private readonly reports: BatchQueue<Report, ReportOutcome>;
  private readonly infos: BatchQueue<Info, void, string>;
  private readonly onlines: BatchQueue<Online, void, string>;
  private readonly downloads: BatchQueue<Downloads, void, number>;
  /** What may concern a reported version or a reconnect at all, read at most once a second (see `activity`). */
  private active: { at: number; versions: Set<string>; dispatched: boolean } | undefined;

  constructor(
    private readonly deps: Deps,
    options: OtaReportsOptions,
    private readonly hooks: OtaReportsHooks,
  ) {
    const warn = (what: string) => (err: unknown, items: readonly unknown[]) =>
      deps.log.warn({ err, n: items.length }, `ota: ${what} failed`);
    // One batch at a time (concurrency 1): the reports of one device keep their order.
    this.reports = new BatchQueue<Report, ReportOutcome>({
      name: 'ota reports',
      run: (batch) => this.applyReports(batch),
      maxBatch: 500,
      maxDelayMs: options.reportWindowMs,
      maxQueued: 20_000,
      onError: warn('report batch'),
    });
    this.infos = new BatchQueue<Info, void, string>({
      name: 'ota fw versions',
      run: (batch) => this.applyInfos(batch),
      maxBatch: 1000,
      maxDelayMs: 20,
      maxQueued: 50_000,
      whenFull: 'refuse',
      key: (i) => i.sn,
      merge: (_old, added) => added,
      onError: warn('fw_version check'),
    });
    this.onlines = new BatchQueue<Online, void, string>({
      name: 'ota reconnects',
      run: (batch) => this.resendOnConnect(batch),
      maxBatch: 1000,
      maxDelayMs: 50,
      maxQueued: 50_000,
      whenFull: 'refuse',
      key: (o) => o.sn,
      merge: (_old, added) => added,
      onError: warn('re-send on connect'),
    });
    this.downloads = new BatchQueue<Downloads, void, number>({
      name: 'ota download counts',
      run: (batch) => this.addDownloads(batch),
      maxBatch: 5000,
      maxDelayMs: 1000,
      maxQueued: 50_000,
      whenFull: 'refuse',
      key: (d) => d.rowId,
      merge: (a, b) => ({ rowId: a.rowId, n: a.n + b.n }),
      onError: warn('download counts'),
    });
  }

  /** A task was created, changed or dispatched on this instance: what `activity` knows is stale. */
  forget(): void {
    // While attempts are in flight the dispatcher changes tasks many times a second; what is known stays good
    // enough for a second (a new task's version included).
    if (!this.active?.dispatched) this.active = undefined;
  }

  /**
   * Every device reports its firmware version when it connects, so a connect storm of 10,000 devices with no
   * rollout running would cost a statement per 20 ms (versions) and per 50 ms (reconnects) for nothing. The
   * target versions of all tasks and whether any attempt is in flight are read at most once a second (and
   * again after a change here); another instance's first dispatch may take that second to be seen here, and a
   * missed re-send or version is still caught by the device's own report or the attempt's timeout.
   */
  private async activity(): Promise<{ versions: Set<string>; dispatched: boolean }> {
    if (this.active && Date.now() - this.active.at < 1000) return this.active;
    const at = Date.now();
    const [row] = rowsOf<{ versions: string[] | null; dispatched: boolean }>(
      await this.deps.db.execute(sql`
        select (select array_agg(distinct version) from ota_tasks) as versions,
          exists (select 1 from ota_devices where phase = 'dispatched') as dispatched`),
    );
    this.active = { at, versions: new Set(row?.versions ?? []), dispatched: Boolean(row?.dispatched) };
    return this.active;
  }

  /** A `P/up/ota` from a device; resolves once its effect is committed (with its batch). */
  report(device: DeviceRef, msg: OtaUp): Promise<ReportOutcome> {
    return this.reports.add({ device, msg }).catch((err: unknown) => {
      if (err instanceof BatchQueueStoppedError)
        return { ok: false, code: 10105, reason: 'server shutting down' };
      throw err;
    });
  }

  /** A device reported its firmware version (P/up/info). */
  info(sn: string, version: string): void {
    this.infos.add({ sn, version }).catch(() => undefined);
  }

  /** A device whose connection was accepted at `at` can take its upgrade now (it subscribed: `device.ready`). */
  online(sn: string, at: string): void {
    this.onlines.add({ sn, at }).catch(() => undefined);
  }

  /** Counts a download request (whole or a range) of a row; written with others once a second. */
  countDownload(rowId: number): void {
    this.downloads.add({ rowId, n: 1 }).catch(() => undefined);
  }

  /** Writes what is queued (reports first: a report's success may make a queued fw_version moot). */
  async stop(): Promise<void> {
    await this.reports.stop();
    await Promise.all([this.onlines.stop(), this.infos.stop(), this.downloads.stop()]);
  }

  // --- P/up/ota -------------------------------------------------------------------------------------------

  private async applyReports(batch: readonly Report[]): Promise<ReportOutcome[]> {
    const now = this.deps.now();
    const outcomes: ReportOutcome[] = batch.map(() => ({ ok: true }));
    const changed = await this.deps.db.transaction(async (tx) => {
      const ids = [...new Set(batch.map((r) => r.msg.id))];
      const rows = rowsOf<{
        id: number;
        task_id: number;
        device_id: number;
        phase: RowState['phase'];
        status: number;
        progress: number | null;
        result: string;
        result_code: RowState['resultCode'];
        result_params: RowState['resultParams'];
        attempts: number;
        upgrade_id: string;
        policy: OtaPolicy;
        task_status: OtaTaskStatus;
      }>(
        await tx.execute(sql`
          select r.id, r.task_id, r.device_id, r.phase, r.status, r.progress, r.result, r.result_code, r.result_params,
            r.attempts, r.upgrade_id,
            t.policy, t.status as task_status
          from ota_devices r join ota_tasks t on t.id = r.task_id
          where r.upgrade_id = any(${sql.param(ids)}::text[])
          order by r.id
          for update of r`),
      );
      const byId = new Map(rows.map((r) => [r.upgrade_id, r]));
      const states = new Map<number, { state: RowState; taskId: number }>();
      batch.forEach((item, i) => {
        const row = byId.get(item.msg.id);
        if (!row || row.device_id !== item.device.id) {
          outcomes[i] = { ok: false, code: 10107, reason: `no upgrade with id "${item.msg.id}"` };
          return;
        }
        const current = states.get(row.id)?.state ?? {
          phase: row.phase,
          status: row.status,
          progress: row.progress,
          result: row.result,
          resultCode: row.result_code,
          resultParams: row.result_params,
          attempts: Number(row.attempts),
          nextAttemptAt: null,
          finishedAt: null,
          deadlineKept: row.phase === 'dispatched',
        };
        const next = applyReport(current, item.msg, row.policy, row.task_status, now);
        states.set(row.id, { state: next, taskId: row.task_id });
      });
      if (states.size === 0) return { tasks: [], ended: 0 };
      const entries = [...states.entries()];
      const col = <T>(f: (s: RowState) => T) => entries.map(([, v]) => f(v.state));
      await tx.execute(sql`
        update ota_devices r set phase = v.phase, status = v.status, progress = v.progress, result = v.result,
          result_code = v.result_code, result_params = v.result_params,
          next_attempt_at = case when v.phase = 'retry_wait' then v.next_at else r.next_attempt_at end,
          finished_at = case when v.phase in ('succeeded', 'failed') and r.phase not in ('succeeded', 'failed')
            then v.finished_at else r.finished_at end,
          deadline_at = case when v.phase = 'dispatched' then r.deadline_at end,
          timed_out = case when v.phase = 'succeeded' then false else r.timed_out end,
          reported_at = ${ts(now)}, updatedat = ${ts(now)}
        from unnest(${sql.param(entries.map(([id]) => id))}::int[], ${sql.param(col((s) => s.phase))}::text[],
          ${sql.param(col((s) => s.status))}::int[], ${sql.param(col((s) => s.progress))}::real[],
          ${sql.param(col((s) => s.result.slice(0, 512)))}::text[],
          ${sql.param(col((s) => s.resultCode))}::text[],
          ${sql.param(col((s) => JSON.stringify(s.resultParams)))}::jsonb[],
          ${sql.param(col((s) => s.nextAttemptAt?.toISOString() ?? null))}::timestamptz[],
          ${sql.param(col((s) => s.finishedAt?.toISOString() ?? null))}::timestamptz[])
          as v(id, phase, status, progress, result, result_code, result_params, next_at, finished_at)
        where r.id = v.id`);
      // Only an end (or a retry) frees a slot or may end a wave or the task: progress reports need no pass.
      const ended = entries.filter(([, v]) => v.state.phase !== 'dispatched').length;
      return { tasks: [...new Set(entries.map(([, v]) => v.taskId))], ended };
    });
    this.stats.reports += batch.length;
    this.stats.reportsRefused += outcomes.filter((o) => !o.ok).length;
    for (const id of changed.tasks) this.hooks.taskChanged(id);
    if (changed.ended > 0) this.hooks.wake();
    return outcomes;
  }

  // --- success by P/up/info -------------------------------------------------------------------------------

  /**
   * A device reporting the target version of an upgrade it was sent (from another version) has succeeded, even
   * if its `P/up/ota` with status 4 never arrived. A forced re-install of the same version needs that status 4.
   */
  private async applyInfos(all: readonly Info[]): Promise<void> {
    const { versions } = await this.activity();
    const batch = all.filter((i) => versions.has(i.version));
    if (batch.length === 0) return;
    const now = this.deps.now();
    const res = await this.deps.db.execute(sql`
      update ota_devices r set phase = 'succeeded', status = 4, progress = 100,
        result = 'reported fw_version ' || x.v, result_code = 'reported_version',
        result_params = jsonb_build_object('version', x.v), finished_at = ${ts(now)}, deadline_at = null, next_attempt_at = null,
        timed_out = false, updatedat = ${ts(now)}
      from ota_tasks t, devices d,
        unnest(${sql.param(batch.map((i) => i.sn))}::text[], ${sql.param(batch.map((i) => i.version))}::text[])
          as x(sn, v)
      where d.sn = x.sn and r.device_id = d.id and t.id = r.task_id and t.version = x.v
        and r.attempts > 0 and r.from_version is distinct from t.version
        and (r.phase in ('dispatched', 'retry_wait') or (r.phase = 'failed' and r.timed_out))
      returning r.task_id`);
    const rows = rowsOf<{ task_id: number }>(res);
    this.stats.infoSuccesses += rows.length;
    const tasks = [...new Set(rows.map((r) => r.task_id))];
    for (const id of tasks) this.hooks.taskChanged(id);
    if (tasks.length > 0) this.hooks.wake();
  }

  // --- reconnects ------------------------------------------------------------------------------------------

  /**
   * A device that reconnects while its upgrade was sent but before it said anything about it may have lost the
   * command with its old connection (a clean session drops queued messages). It gets the same command again, same
   * upgrade id, so a device that did receive it recognises it; the attempt and its deadline stay.
   */
  private async resendOnConnect(batch: readonly Online[]): Promise<void> {
    if (!(await this.activity()).dispatched) return;
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
        from unnest(${sql.param(batch.map((o) => o.sn))}::text[],
          ${sql.param(batch.map((o) => o.at))}::timestamptz[]) as x(sn, at)
        join devices d on d.sn = x.sn join ota_devices r on r.device_id = d.id
        where r.phase = 'dispatched' and r.reported_at is null and r.sent_at < x.at`),
    );
    if (rows.length === 0) return;
    const grouped = byTask(rows);
    const tasks = await this.deps.db
      .select()
      .from(otaTasks)
      .where(inArray(otaTasks.id, [...grouped.keys()]));
    for (const t of tasks) {
      const list = grouped.get(t.id)!;
      this.stats.resentOnConnect += list.length;
      await publishDispatches(this.deps, this.hooks.downloadBase(), t, list, this.deps.now());
    }
  }

  // --- downloads --------------------------------------------------------------------------------------------

  private async addDownloads(batch: readonly Downloads[]): Promise<void> {
    await this.deps.db.execute(sql`
      update ota_devices r set downloads = r.downloads + v.n
      from unnest(${sql.param(batch.map((d) => d.rowId))}::int[], ${sql.param(batch.map((d) => d.n))}::int[])
        as v(id, n)
      where r.id = v.id`);
  }
}
