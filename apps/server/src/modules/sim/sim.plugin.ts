import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { MAX_SIM_IMPORT_BYTES } from '@cellhub/contract/sim';
import { simCardsRoutes } from './sim-cards.routes';
import { simOrdersRoutes } from './sim-orders.routes';
import { simProvidersRoutes } from './sim-providers.routes';
import { startSimReminderWorker } from './sim-reminders.service';
import { startSimSyncWorker } from './sim-sync.service';

/**
 * The SIM module: cards, providers, packages, orders and balance routes, the sync worker and the reminder worker
 * (started when the server is ready, stopped on close; `syncTickMs` / SIM_REMIND_INTERVAL_MS 0 leave them off).
 */
export async function simPlugin(app: FastifyInstance, opts: { syncTickMs: number }): Promise<void> {
  // Only the import routes read multipart bodies; registered in this scope it stays out of every other route.
  await app.register(multipart, {
    limits: { fileSize: MAX_SIM_IMPORT_BYTES, files: 1, fields: 10, parts: 11 },
  });
  await app.register(simProvidersRoutes);
  await app.register(simCardsRoutes);
  await app.register(simOrdersRoutes);
  let worker: { stop(): Promise<void> } | undefined;
  let reminders: { stop(): Promise<void> } | undefined;
  app.addHook('onReady', async () => {
    worker = startSimSyncWorker(app.deps, opts.syncTickMs);
    reminders = startSimReminderWorker(app.deps, app.deps.config.simRemind.intervalMs);
  });
  app.addHook('onClose', async () => {
    await worker?.stop();
    await reminders?.stop();
  });
}
