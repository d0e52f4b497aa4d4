import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { brokerAuthRoutes } from './broker-auth.routes';
import { type DynsecRunner, startDynsec } from './dynsec-jobs';

declare module 'fastify' {
  interface FastifyInstance {
    /** Mosquitto dynamic-security provisioning, when MQTT_DYNSEC is on and the broker is external. */
    dynsec: DynsecRunner | undefined;
  }
}

/**
 * Device auth on external brokers (docs/external-brokers.md): the EMQX hook routes, and with MQTT_DYNSEC the
 * Mosquitto dynamic-security jobs (started when the server is ready, stopped on close).
 */
export const brokerAuthPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(brokerAuthRoutes);
    const { config } = app.deps;
    app.decorate('dynsec', undefined as DynsecRunner | undefined);
    if (!config.brokerAuth.dynsec.enabled || !config.mqttUrl || app.broker.kind !== 'external') return;
    const url = config.mqttUrl;
    app.addHook('onReady', async () => {
      app.dynsec = startDynsec(app.deps, url);
    });
    app.addHook('onClose', async () => {
      await app.dynsec?.stop();
    });
  },
  { name: 'broker-auth', dependencies: ['broker', 'gateway'] },
);
