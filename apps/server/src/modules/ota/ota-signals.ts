/**
 * How services tell the OTA engine of this instance that something changed (a task was created, started, paused,
 * cancelled): the engine wakes at once instead of at its next tick and pushes the task's counts. Services run
 * without an engine too (scripts, some tests); then these calls do nothing and the next tick of any instance
 * picks the change up from the database.
 */
export interface OtaSignals {
  /** Run the dispatcher soon. */
  wake(): void;
  /**
   * Push an `ota.task` event for this task (merged with other changes of it). A deleted task is gone from the
   * database, so the caller passes what the event needs.
   */
  taskChanged(taskId: number, deleted?: { uid: number; productKey: string }): void;
}

const NONE: OtaSignals = { wake: () => undefined, taskChanged: () => undefined };
const registry = new WeakMap<object, OtaSignals>();

export const setOtaSignals = (deps: object, signals: OtaSignals | undefined): void => {
  if (signals) registry.set(deps, signals);
  else registry.delete(deps);
};
export const otaSignals = (deps: object): OtaSignals => registry.get(deps) ?? NONE;
