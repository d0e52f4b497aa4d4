import { inArray } from 'drizzle-orm';
import type { Deps } from '../../lib/deps';
import { BatchQueue } from '../../jobs/batch-queue';
import { countsOf, taskCounts } from './ota.service';
import { otaTasks } from './ota.table';

/** What a deleted task's event needs, since its row is gone. */
export interface DeletedTask {
  uid: number;
  productKey: string;
}

interface Change {
  taskId: number;
  deleted: DeletedTask | undefined;
}

/**
 * Live `ota.task` events with the counts of the upgrade log. During a rollout a task changes hundreds of times a
 * second (every report batch, every dispatch); changes within `intervalMs` share one event, read from the rows
 * (one grouped scan for all tasks of the batch), so the counts never drift from the log.
 */
export class OtaTaskEvents {
  readonly stats = { events: 0 };
  private readonly queue: BatchQueue<Change, void, number>;

  constructor(
    private readonly deps: Deps,
    intervalMs: number,
  ) {
    this.queue = new BatchQueue<Change, void, number>({
      name: 'ota task events',
      run: (changes) => this.emit(changes),
      maxBatch: 1000,
      maxDelayMs: intervalMs,
      // One entry per task (merged): the bound is never reached by a real deployment.
      maxQueued: 100_000,
      whenFull: 'refuse',
      key: (c) => c.taskId,
      merge: (a, b) => ({ taskId: a.taskId, deleted: b.deleted ?? a.deleted }),
      onError: (err) => this.deps.log.warn({ err }, 'ota: task events failed'),
    });
  }

  /** Schedules an event for the task; changes within the interval share one. */
  changed(taskId: number, deleted?: DeletedTask): void {
    // The outcome is logged by onError; nobody waits for an event.
    this.queue.add({ taskId, deleted }).catch(() => undefined);
  }

  /** Sends what is queued, then refuses new changes. */
  stop(): Promise<void> {
    return this.queue.stop();
  }

  private async emit(changes: readonly Change[]): Promise<void> {
    const at = this.deps.now().toISOString();
    const ids = changes.map((c) => c.taskId);
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
    for (const { taskId, deleted } of changes) {
      if (found.has(taskId) || !deleted) continue;
      this.stats.events++;
      this.deps.events.publishTask(
        {
          type: 'ota.task',
          id: taskId,
          product_key: deleted.productKey,
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
        { uid: deleted.uid },
      );
    }
  }
}
