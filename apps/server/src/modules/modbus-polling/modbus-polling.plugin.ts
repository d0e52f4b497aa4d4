import { writeFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ModbusPoller, type PollerOptions } from './modbus-poller';

declare module 'fastify' {
  interface FastifyInstance {
    /** Platform polling of Modbus slaves behind DTUs in transparent mode (issue 16). */
    modbusPoller: ModbusPoller;
  }
}

/**
 * Starts the polling engine with the gateway's property writer. Registered after the gateway; closes before it
 * (plugins close in reverse), so the last values and counters are written while the writer still runs.
 */
export const modbusPollingPlugin = fp(
  async (app: FastifyInstance, opts: Partial<PollerOptions>) => {
    const poller = new ModbusPoller(app.deps, app.gateway.telemetry.writer, opts);
    app.decorate('modbusPoller', poller);
    // Answers to the poller's requests are taken before ingest stores raw messages (docs/modbus-polling.md).
    const release = app.gateway.telemetry.consumeRaw((device, payload) => poller.received(device, payload));
    // MODBUS_STATS_FILE (benchmarks): the scheduler's totals are written there as JSON every second.
    const statsFile = process.env.MODBUS_STATS_FILE;
    const statsTimer = statsFile
      ? setInterval(() => {
          const s = poller.stats;
          const latency: Record<number, number> = {};
          s.latencyMs.forEach((n, ms) => {
            if (n) latency[ms] = n;
          });
          writeFileSync(statsFile, JSON.stringify({ ...s, latencyMs: latency, at: Date.now() }));
        }, 1000)
      : undefined;
    app.addHook('onClose', async () => {
      clearInterval(statsTimer);
      release();
      await poller.close();
    });
  },
  { name: 'modbus-polling', dependencies: ['gateway'] },
);
