import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../lib/deps';

/** The channel other instances listen on (deps.channels) for trigger and state changes (alerts.plugin.ts). */
export const ALERT_NOTIFY_CHANNEL = 'cellhub_alert_changes';

/**
 * How services tell the evaluator of this instance that triggers changed (created, edited, enabled, disabled,
 * deleted): an `alert-triggers.changed` event on the bus, on which alerts.plugin.ts has the evaluator reload them
 * into its index and judge them against the latest stored values. Without an evaluator (scripts, some tests)
 * nobody listens, and the periodic reload of a running one catches up.
 */
export interface AlertSignals {
  triggersChanged(ids: number[]): void;
}

export const alertSignals = (deps: Pick<Deps, 'events'>): AlertSignals => ({
  triggersChanged: (ids) => deps.events.emit({ type: 'alert-triggers.changed', ids }),
});

/** Only real PostgreSQL has other instances; PGlite lives in this process. */
export const sharedDatabase = (deps: Pick<Deps, 'config'>): boolean =>
  deps.config.databaseUrl?.startsWith('postgres') === true;

/**
 * Tells the other instances, when `tx` commits, that a trigger (`t:<id>`) or an evaluation state
 * (`s:<triggerId>:<deviceId>`) changed. NOTIFY is transactional: nothing is sent for a rolled-back change.
 */
export async function notifyAlertChange(
  deps: Pick<Deps, 'config'>,
  tx: DbOrTx,
  payload: string,
): Promise<void> {
  if (!sharedDatabase(deps)) return;
  await tx.execute(sql`select pg_notify(${ALERT_NOTIFY_CHANNEL}, ${payload})`);
}
