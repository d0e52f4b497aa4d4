import { BatchQueue } from '../../jobs/batch-queue';
import { enqueueJob, queuedJobKind, runRecurringNow } from '../../jobs/queue';
import { JobWorker, wakeWorkers } from '../../jobs/worker';
import type { Deps } from '../../lib/deps';
import { DynsecClient } from './dynsec-client';
import { reconcileAll, syncDevices } from './dynsec-sync';

export const SYNC_KIND = 'broker_dynsec_sync';
export const RECONCILE_KIND = 'broker_dynsec_reconcile';

export interface DynsecRunner {
  readonly client: DynsecClient;
  /** Waits until the jobs queued so far and their runs are done (tests). */
  settle(): Promise<void>;
  /** Runs the reconciliation pass now (tests; production runs it at start and every `reconcileMs`). */
  reconcileNow(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Mosquitto dynamic-security provisioning on the job layer: `device.auth.changed` events are collected for 50 ms
 * into one `broker_dynsec_sync` job (the serial numbers; the handler reads their rows, so the job holds no secret),
 * retried with backoff while the broker is away; `broker_dynsec_reconcile` is a recurring pass over every device,
 * pulled forward at each start, which also repairs changes whose job was never queued (a crash between the commit
 * and the event). Jobs are rows in Postgres: any instance may run them, one at a time each.
 */
export function startDynsec(deps: Deps, url: string): DynsecRunner {
  const { username, password, reconcileMs } = deps.config.brokerAuth.dynsec;
  const client = DynsecClient.open(url, { username, password, log: deps.log });

  const sync = new JobWorker(
    queuedJobKind<{ sns: string[] }>(deps, {
      name: SYNC_KIND,
      maxAttempts: 10,
      backoff: { baseMs: 2000, maxMs: 300_000 },
      handler: async (payload) => {
        await syncDevices(deps, client, payload.sns ?? []);
      },
    }),
    { log: deps.log, channels: deps.channels, concurrency: 1, pollMs: 5000 },
  );
  const reconcile = new JobWorker(
    queuedJobKind(deps, {
      name: RECONCILE_KIND,
      everyMs: reconcileMs,
      backoff: { baseMs: 10_000, maxMs: 600_000 },
      leaseMs: 10 * 60_000,
      handler: async (_payload, ctx) => {
        const r = await reconcileAll(deps, client, () => ctx.extendLease());
        deps.log.info(r, 'dynamic security reconciled');
      },
    }),
    { log: deps.log, channels: deps.channels, concurrency: 1, pollMs: Math.min(reconcileMs, 60_000) },
  );

  const queue = new BatchQueue<string, void>({
    name: 'dynsec changes',
    maxBatch: 1000,
    maxDelayMs: 50,
    maxQueued: 100_000,
    run: async (sns) => {
      await enqueueJob(deps.db, SYNC_KIND, { sns: [...new Set(sns)] });
      await wakeWorkers(deps.channels, SYNC_KIND);
    },
    onError: (err) =>
      deps.log.error({ err }, 'dynamic security: queueing a sync failed (reconcile repairs it)'),
  });
  const off = deps.events.on('device.auth.changed', (e) => {
    for (const sn of e.sns) queue.post(sn);
  });

  sync.start();
  reconcile.start();
  // Every start: what changed while no instance ran, or whose job was lost, is put right.
  void runRecurringNow(deps.db, RECONCILE_KIND, deps.now())
    .then(() => wakeWorkers(deps.channels, RECONCILE_KIND))
    .catch((err: unknown) => deps.log.warn({ err }, 'dynamic security: reconcile not scheduled'));

  return {
    client,
    async settle() {
      await queue.flush();
      await sync.runOnce();
      await sync.settle();
    },
    async reconcileNow() {
      await runRecurringNow(deps.db, RECONCILE_KIND, deps.now());
      await reconcile.runOnce();
      await reconcile.settle();
    },
    async stop() {
      off();
      await queue.stop();
      await sync.stop();
      await reconcile.stop();
      await client.close();
    },
  };
}
