import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import type { InboxMessage } from '../inbox/inbox.service';
import { rowsOf } from './ota-send';
import type { OtaTaskRow } from './ota.table';

/** The message-box entry of a task that reached done, for its owner, with how its devices ended (docs/inbox.md). */
export async function otaFinishedMessage(
  tx: DbOrTx,
  task: OtaTaskRow,
  reason: string,
): Promise<InboxMessage> {
  const phases = rowsOf<{ phase: string; n: number }>(
    await tx.execute(
      sql`select phase, count(*)::int as n from ota_devices where task_id = ${task.id} group by 1`,
    ),
  );
  const n = (phase: string) => Number(phases.find((p) => p.phase === phase)?.n ?? 0);
  return {
    uid: task.uid,
    kind: 'ota_finished',
    params: {
      task_id: task.id,
      task_name: task.name,
      succeeded: n('succeeded'),
      failed: n('failed'),
      skipped: n('skipped'),
      reason: reason === 'window ended' ? 'window_ended' : 'every_device_ended',
    },
    target: { type: 'ota_task', key: String(task.id) },
    dedupeKey: `ota:${task.id}:${task.startTime?.getTime() ?? 0}`,
  };
}
