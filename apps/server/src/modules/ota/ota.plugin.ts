import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { OtaEngine, type OtaEngineOptions } from './ota-engine';

declare module 'fastify' {
  interface FastifyInstance {
    /** The OTA rollout engine of this instance (dispatcher, device reports, live task events). */
    ota: OtaEngine;
  }
}

/**
 * Starts the OTA engine once the app is ready and hands it the gateway's `P/up/ota` reports. Registered after
 * the gateway and before the routes; closes before the gateway and the database (plugins close in reverse).
 */
export const otaPlugin = fp(
  async (app: FastifyInstance, opts: Partial<OtaEngineOptions>) => {
    const engine = new OtaEngine(app.deps, opts);
    // The gateway asks the bus; the answer comes once the report is stored.
    const stopAnswering = app.deps.events.answer('ota.report', (e) => engine.report(e.device, e.report));
    app.decorate('ota', engine);
    app.addHook('onReady', async () => engine.start());
    app.addHook('onClose', async () => {
      stopAnswering();
      await engine.close();
    });
  },
  { name: 'ota', dependencies: ['gateway'] },
);
