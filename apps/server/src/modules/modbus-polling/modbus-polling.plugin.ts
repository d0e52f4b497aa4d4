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
    app.addHook('onClose', async () => poller.close());
  },
  { name: 'modbus-polling', dependencies: ['gateway'] },
);
