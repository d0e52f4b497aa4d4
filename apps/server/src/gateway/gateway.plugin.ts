import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { DeviceGateway } from './device-gateway';
import { attachEmbedded } from './embedded-adapter';
import { attachExternal, uplinkFilter } from './external-adapter';

declare module 'fastify' {
  interface FastifyInstance {
    /** The device side: auth, ACL, routing, telemetry writer (embedded or external broker). */
    gateway: DeviceGateway;
  }
}

export const gatewayPlugin = fp(
  /** `gateway`: built with the deps in app.ts (it is deps.link); this plugin connects it to the broker. */
  async (app: FastifyInstance, { gateway }: { gateway: DeviceGateway }) => {
    const { broker } = app;
    // Registered before the broker hands over the first connection, which then names this instance as its holder.
    await gateway.start(broker.kind, broker.port === undefined ? '' : `${hostname()}:${broker.port}`);
    const external = broker.client
      ? attachExternal(
          broker.client,
          gateway,
          app.log,
          uplinkFilter(app.deps.config.mqttSubscription, app.deps.config.mqttShareGroup),
        )
      : undefined;
    const adapter =
      broker.kind === 'embedded' && broker.aedes ? attachEmbedded(broker.aedes, gateway, app.log) : external;
    if (!adapter) throw new Error('no broker to attach the device gateway to');
    gateway.attach(adapter);
    if (external && app.deps.config.mqttSubscription === 'plain') await warnIfNotAlone(app, gateway);
    app.decorate('gateway', gateway);
    // Before the database closes: what is queued gets written. onClose hooks run in reverse order of registration,
    // so this runs before the broker plugin's: the external client is still connected, and stops taking uplinks
    // first (what arrives from now on stays at the broker for this instance's session, not acknowledged).
    app.addHook('onClose', async () => {
      await external?.stopIntake();
      await gateway.close();
    });
  },
  { name: 'gateway', dependencies: ['broker'] },
);

/**
 * A plain subscription is for one instance alone: a second one receives every uplink too, and both store it. Said
 * in the log (the operator's setting decides; docs/operations.md).
 */
async function warnIfNotAlone(app: FastifyInstance, gateway: DeviceGateway): Promise<void> {
  const others = await gateway.keeper.othersAlive();
  if (others > 0) {
    app.log.warn(
      { others },
      'MQTT_SUBSCRIPTION=plain while other instances run on this database: each receives and stores every uplink; use shared',
    );
  }
}
