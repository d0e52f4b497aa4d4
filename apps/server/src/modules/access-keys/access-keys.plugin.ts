import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { SIGNATURE_WINDOW_SECONDS } from '@cellhub/contract/signature';
import { type Periodic, startPeriodic } from '../../jobs/periodic';
import { pruneAccessKeyRows } from './access-keys.service';

/** How often nonces, old use rows and spent codes are swept. */
export const PRUNE_EVERY_MS = 60_000;
/** Nonces are kept twice the timestamp window (10 minutes): a reuse within the window always finds its row. */
export const NONCE_KEEP_MS = 2 * SIGNATURE_WINDOW_SECONDS * 1000;

/**
 * The access-key sweep: any instance may run it at any time (plain deletes by age). Registered with the routes;
 * `accessKeyPrune.runNow()` lets tests that moved the clock see its effect.
 */
export const accessKeysPlugin = fp(
  async (app: FastifyInstance) => {
    const prune = startPeriodic({
      name: 'access key prune',
      everyMs: PRUNE_EVERY_MS,
      log: app.deps.log,
      run: () => pruneAccessKeyRows(app.deps, NONCE_KEEP_MS),
    });
    app.decorate('accessKeyPrune', prune);
    app.addHook('onClose', async () => prune.stop());
  },
  { name: 'access-keys' },
);

declare module 'fastify' {
  interface FastifyInstance {
    accessKeyPrune: Periodic;
  }
}
