import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createNotifyWorker } from './notify.worker';

/**
 * Runs this instance's delivery worker while the server is up (none when NOTIFY_POLL_MS is 0: tests drive workers
 * themselves). Every instance runs one; rows are shared through the database.
 */
export const notifyPlugin = fp(
  async (app: FastifyInstance) => {
    if (app.deps.config.notify.pollMs <= 0) return;
    const worker = createNotifyWorker(app.deps);
    app.addHook('onReady', async () => worker.start());
    app.addHook('onClose', async () => worker.stop());
  },
  { name: 'notify' },
);
