import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { startPeriodic, type Periodic } from '../../jobs/periodic';
import { sweepPartialUploads } from '../../lib/file-store';

/** How often the unfinished uploads are looked for. */
export const PARTIAL_SWEEP_EVERY_MS = 3_600_000;

/**
 * Housekeeping of the file store (docs/storage.md): an upload the server died under leaves a temporary file
 * (`dir`) or an incomplete file's rows (`postgres`); this removes them at start and hourly once they are a day old. Every
 * instance runs it; on a shared database two sweeps delete the same rows once.
 */
export const filesPlugin = fp(
  async (app: FastifyInstance) => {
    let periodic: Periodic | undefined;
    app.addHook('onReady', async () => {
      periodic = startPeriodic({
        name: 'unfinished uploads sweep',
        everyMs: PARTIAL_SWEEP_EVERY_MS,
        log: app.log,
        run: async () => {
          await sweepPartialUploads(app.deps, app.deps.now());
        },
      });
      // At start too: a restart is when a crash's leftovers are likeliest.
      periodic.wake();
    });
    app.addHook('onClose', async () => {
      await periodic?.stop();
    });
  },
  { name: 'files' },
);
