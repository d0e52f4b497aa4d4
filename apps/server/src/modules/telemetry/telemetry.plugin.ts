import type { FastifyInstance } from 'fastify';
import { startTelemetryMaintenance } from './telemetry-maintenance.service';

/**
 * Telemetry maintenance (docs/telemetry-scale.md): the recurring job that creates the weekly partitions ahead, rolls
 * up hours for charts and applies per-product retention. Started when the server is ready, stopped on close;
 * TELEMETRY_MAINTENANCE_MS 0 leaves it off.
 */
export async function telemetryPlugin(app: FastifyInstance): Promise<void> {
  let worker: { stop(): Promise<void> } | undefined;
  app.addHook('onReady', async () => {
    worker = startTelemetryMaintenance(app.deps, app.deps.config.telemetryMaintenanceMs);
  });
  app.addHook('onClose', async () => {
    await worker?.stop();
  });
}
