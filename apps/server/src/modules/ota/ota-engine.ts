import type { OtaUp } from '@cellhub/contract/protocol';
import type { Deps } from '../../lib/deps';
import type { DeviceRef } from '../devices/device-ref';
import { OtaDispatcher, type OtaDispatcherOptions } from './ota-dispatcher';
import { OtaDownloads } from './ota-download';
import { OtaReports, type OtaReportsOptions, type ReportOutcome } from './ota-reports';
import { type DeletedTask, OtaTaskEvents } from './ota-task-events';
import { simDownloadCheck } from './sim-check';

export type { ReportOutcome } from './ota-reports';

export interface OtaEngineOptions extends OtaDispatcherOptions, OtaReportsOptions {
  /** At most one `ota.task` event per task per this many ms. */
  eventIntervalMs: number;
}

export const DEFAULT_ENGINE_OPTIONS: OtaEngineOptions = {
  tickMs: 250,
  batchSize: 1000,
  reportWindowMs: 10,
  eventIntervalMs: 300,
  republishAfterMs: 30_000,
  publishTimeoutMs: 10_000,
  minPassGapMs: 100,
  housekeepingMs: 1000,
  simCheck: simDownloadCheck,
};

/**
 * The rollout engine of one server instance, in three parts: the dispatcher (ota-dispatcher.ts, a job kind of
 * src/jobs: task transitions, claims, publication; a periodic sweep of plan times, timeouts, orphaned sends), what devices say (ota-reports.ts: reports,
 * reported versions, reconnects, download counts) and the live task events (ota-task-events.ts). Its state is in
 * the database, so any number of instances run it side by side (docs/ota.md).
 */
export class OtaEngine {
  /** The dispatcher reads these on every pass, so tests may change them on a running engine. */
  readonly options: OtaEngineOptions;
  /** The download route's token and file look-ups. */
  readonly downloads: OtaDownloads;
  private readonly dispatcher: OtaDispatcher;
  private readonly reports: OtaReports;
  private readonly events: OtaTaskEvents;
  private readonly unsubscribe: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly deps: Deps,
    options: Partial<OtaEngineOptions> = {},
  ) {
    this.options = { ...DEFAULT_ENGINE_OPTIONS, ...options };
    this.events = new OtaTaskEvents(deps, this.options.eventIntervalMs);
    this.downloads = new OtaDownloads(deps);
    const taskChanged = (id: number) => {
      this.reports.forget();
      this.events.changed(id);
    };
    this.dispatcher = new OtaDispatcher(deps, this.options, taskChanged);
    this.reports = new OtaReports(deps, this.options, {
      taskChanged,
      wake: () => this.dispatcher.wake(),
      downloadBase: () => this.dispatcher.downloadBase(),
    });
  }

  /** Counters of all parts, for tests, health and benchmarks. */
  get stats() {
    return { ...this.dispatcher.stats, ...this.reports.stats, ...this.events.stats };
  }

  /**
   * Starts the dispatcher and listens for task changes made by the services (`ota.task.changed`), devices ready
   * for their upgrade (`device.ready`), devices coming online on other instances and devices reporting their
   * firmware version.
   */
  start(): void {
    if (this.closed) return;
    this.unsubscribe.push(
      this.deps.events.on('ota.task.changed', (e) => {
        this.taskChanged(e.taskId, e.deleted);
        // A started (or created, paused, cancelled) task: every instance's dispatcher looks now.
        if (!e.deleted) this.dispatcher.wakeEverywhere();
      }),
      // A device can take its upgrade once it subscribed to `P/down/ota` (a clean session) or at connect (a kept
      // session, an external broker): the gateway refuses an upgrade sent before (20401), the row waits as offline,
      // and this looks again. A command its old connection may have lost is sent again now, not at the CONNECT.
      this.deps.events.on('device.ready', (e) => {
        if (!e.kinds.includes('ota')) return;
        this.reports.online(e.device.sn, e.connectedAt);
        this.dispatcher.deviceOnline();
      }),
      this.deps.events.subscribe((event) => {
        // Another instance's device (the dispatcher here may be the one to claim its row).
        if (event.type === 'device.online' && event.online === 1) {
          this.dispatcher.deviceOnline();
        } else if (event.type === 'device.info' && typeof event.fields.fw_version === 'string') {
          this.reports.info(event.sn, event.fields.fw_version);
        }
      }),
    );
    this.dispatcher.start();
  }

  /** A dispatcher claim round soon on this instance (coalesced). */
  wake(): void {
    this.dispatcher.wake();
  }

  /**
   * One whole dispatcher pass: the housekeeping sweep (plan times, timeouts, orphaned sends), then claims until
   * nothing more is due, published. Tests that move the clock drive the engine with it.
   */
  tick(): Promise<void> {
    return this.dispatcher.tick();
  }

  /** A `P/up/ota` from a device; resolves once its effect is committed (with its batch). */
  report(device: DeviceRef, msg: OtaUp): Promise<ReportOutcome> {
    return this.reports.report(device, msg);
  }

  /** Counts a download request (whole or a range) of an upgrade log row. */
  countDownload(rowId: number): void {
    this.reports.countDownload(rowId);
  }

  /** Schedules an `ota.task` event for the task; changes within `eventIntervalMs` share one. */
  taskChanged(taskId: number, deleted?: DeletedTask): void {
    this.reports.forget();
    this.events.changed(taskId, deleted);
  }

  /**
   * Stops the dispatcher (no new claims, the batches being published finish) and writes what is queued (reports,
   * fw versions, counts).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const off of this.unsubscribe.splice(0)) off();
    await this.dispatcher.stop();
    await this.reports.stop();
    await this.downloads.stop();
    await this.events.stop();
  }
}
