import { and, eq, lte, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { writeAudit } from '../audit/audit.service';
import { addInboxMessages } from '../inbox/inbox.service';
import { otaFinishedMessage } from './ota-inbox';
import { rowsOf, ts } from './ota-send';
import { type OtaTaskRow, otaTasks } from './ota.table';

const OPEN_PHASES = ['pending', 'offline', 'dispatched', 'retry_wait'];

/** What a running task needs next, decided under its row lock. */
export type TaskStep =
  /** Nothing to dispatch now; `changed`: the task or its rows changed (an event is due). */
  | { kind: 'stop'; changed: boolean }
  /** A wave was released: decide again with the new counts. */
  | { kind: 'again' }
  /** Claim up to `slots` due rows of the waves up to `wave`. */
  | { kind: 'claim'; wave: number; slots: number };

/**
 * The task-level transitions of a running task, inside the caller's transaction that holds the task row: window
 * end, done, failure threshold, wave release; otherwise how many rows may be dispatched (`max_concurrent` minus
 * the attempts in flight).
 */
export async function stepTask(tx: DbOrTx, task: OtaTaskRow, now: Date): Promise<TaskStep> {
  const policy = task.policy;
  const phases = rowsOf<{ phase: string; released: boolean; n: number }>(
    await tx.execute(sql`
      select phase, (wave <= ${task.currentWave}) as released, count(*)::int as n
      from ota_devices where task_id = ${task.id} group by 1, 2`),
  );
  const n = (pred: (r: { phase: string; released: boolean }) => boolean) =>
    phases.filter(pred).reduce((s, r) => s + Number(r.n), 0);
  const open = n((r) => OPEN_PHASES.includes(r.phase));
  const dispatched = n((r) => r.phase === 'dispatched');

  // The window ended: whatever was not sent is skipped; the task is done once the sent ones have ended.
  if (task.windowEnd && task.windowEnd.getTime() <= now.getTime()) {
    await tx.execute(sql`
      update ota_devices set phase = 'skipped', result = 'window ended', result_code = 'window_ended',
        result_params = '{}'::jsonb, finished_at = ${ts(now)},
        next_attempt_at = null, updatedat = ${ts(now)}
      where task_id = ${task.id} and phase in ('pending', 'offline', 'retry_wait')`);
    if (dispatched === 0) await finishTask(tx, task, now, 'window ended');
    return { kind: 'stop', changed: open !== dispatched };
  }

  if (open === 0) {
    await finishTask(tx, task, now, 'every device ended');
    return { kind: 'stop', changed: true };
  }

  // Failures first: a wave that ended badly must not release the next one.
  const active = n((r) => r.phase !== 'skipped' && r.phase !== 'cancelled');
  const failed = n((r) => r.phase === 'failed');
  const succeeded = n((r) => r.phase === 'succeeded');
  if (await thresholdReached(tx, task, failed, succeeded, active)) return { kind: 'stop', changed: true };

  // Waves: the next one is released `wave_pause_s` after every device of the released ones ended or waits
  // for its device to connect.
  const wave = task.currentWave;
  const waiting = n((r) => r.released && ['pending', 'dispatched', 'retry_wait'].includes(r.phase));
  if (wave === 0 || (waiting === 0 && wave < task.waveCount)) {
    if (wave > 0 && policy.wave_pause_s > 0 && !task.nextWaveAt) {
      const at = new Date(now.getTime() + policy.wave_pause_s * 1000);
      await tx.update(otaTasks).set({ nextWaveAt: at }).where(eq(otaTasks.id, task.id));
      return { kind: 'stop', changed: true };
    }
    if (wave === 0 || !task.nextWaveAt || task.nextWaveAt.getTime() <= now.getTime()) {
      await tx
        .update(otaTasks)
        .set({ currentWave: wave + 1, nextWaveAt: null })
        .where(eq(otaTasks.id, task.id));
      return { kind: 'again' };
    }
  }
  return { kind: 'claim', wave, slots: policy.max_concurrent - dispatched };
}

/** Inactive tasks whose plan time has come start by themselves (audited as the system); returns their ids. */
export async function autoStartDue(db: DbOrTx, now: Date): Promise<number[]> {
  return db.transaction(async (tx) => {
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
}

/** Running -> done (audited as the system). */
async function finishTask(tx: DbOrTx, task: OtaTaskRow, now: Date, reason: string): Promise<void> {
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
  await addInboxMessages(tx, [await otaFinishedMessage(tx, task, reason)]);
}

/**
 * Pauses the task when the failures since its last (re)start reach the threshold: a count, or a percentage of
 * the devices that ended (succeeded + failed), judged once 10 have ended (or all of them, if fewer).
 */
async function thresholdReached(
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
