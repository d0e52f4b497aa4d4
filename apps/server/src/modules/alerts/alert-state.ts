import { and, eq, inArray, ne } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { alertHistory, alertStates } from './alerts.table';

/**
 * Ends the alerts of triggers whose condition changed, that were disabled or are being deleted: the active history
 * rows are closed (recovered now, no recovery value, nothing pushed: the condition that raised them is gone) and the
 * states go back to normal, so the next value is judged by the new condition. Push marks stay: silence still counts
 * from the last push. With `keepDevice`, states of other devices (the trigger moved) are dropped.
 */
export async function closeTriggerAlerts(
  tx: DbOrTx,
  triggerIds: number[],
  now: Date,
  keepDevice?: number | null,
): Promise<number> {
  if (triggerIds.length === 0) return 0;
  const closed = await tx
    .update(alertHistory)
    .set({ status: 'recovered', recoveredAt: now, recoveredValue: null })
    .where(and(inArray(alertHistory.triggerId, triggerIds), eq(alertHistory.status, 'active')))
    .returning({ id: alertHistory.id });
  await tx
    .update(alertStates)
    .set({ status: 'normal', since: now, historyId: null })
    .where(and(inArray(alertStates.triggerId, triggerIds), eq(alertStates.status, 'active')));
  if (keepDevice !== undefined) {
    await tx
      .delete(alertStates)
      .where(
        keepDevice === null
          ? inArray(alertStates.triggerId, triggerIds)
          : and(inArray(alertStates.triggerId, triggerIds), ne(alertStates.deviceId, keepDevice)),
      );
  }
  return closed.length;
}
