import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../lib/deps';

/** The channel other instances listen on (deps.channels) for trigger and state changes (alerts.plugin.ts). */
export const ALERT_NOTIFY_CHANNEL = 'cellhub_alert_changes';

/**
 * How services tell the evaluator of this instance that triggers changed (created, edited, enabled, disabled,
 * deleted): it reloads them into its index and evaluates them against the latest stored values. Services also run
 * without an evaluator (scripts, some tests); then these calls do nothing and its periodic reload catches up.
 */
export interface AlertSignals {
  triggersChanged(ids: number[]): void;
}

const NONE: AlertSignals = { triggersChanged: () => undefined };
const registry = new WeakMap<object, AlertSignals>();

export const setAlertSignals = (deps: object, signals: AlertSignals | undefined): void => {
  if (signals) registry.set(deps, signals);
  else registry.delete(deps);
};
export const alertSignals = (deps: object): AlertSignals => registry.get(deps) ?? NONE;

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
