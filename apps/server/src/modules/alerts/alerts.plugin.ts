import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AlertEngine, type AlertEngineOptions } from './alert-engine';
import { ALERT_NOTIFY_CHANNEL, sharedDatabase } from './alert-signals';

declare module 'fastify' {
  interface FastifyInstance {
    /** The alert evaluator of this instance (docs/alerts.md "Evaluation"). */
    alerts: AlertEngine;
  }
}

/**
 * Starts the evaluator once the app is ready and subscribes it to committed property messages and presence
 * changes (`property.committed`, `presence.changed` on the bus). On PostgreSQL it also listens (deps.channels) for trigger and state changes made by other instances
 * (their services NOTIFY inside the changing transaction); after a lost connection it reads everything again.
 */
export const alertsPlugin = fp(
  async (app: FastifyInstance, opts: Partial<AlertEngineOptions>) => {
    const engine = new AlertEngine(app.deps, opts);
    app.decorate('alerts', engine);
    const stopListening: (() => void)[] = [
      app.deps.events.on('alert-triggers.changed', (e) => engine.triggersChanged(e.ids)),
    ];
    app.addHook('onReady', async () => {
      await engine.start();
      const { events } = app.deps;
      // Must return at once (ingest waits for emit): the evaluator queues and judges off this path.
      stopListening.push(
        events.on('property.committed', (e) => engine.properties(e.device, e.items)),
        events.on('presence.changed', (e) => engine.presence(e.device, e.online)),
      );
      if (sharedDatabase(app.deps)) {
        const { channels } = app.deps;
        stopListening.push(
          channels.listen(ALERT_NOTIFY_CHANNEL, (payload) => engine.remoteChange(payload)),
          // Changes announced while the connection was down were missed: read everything again.
          channels.onReconnect(() => engine.reloadAll()),
        );
      }
    });
    app.addHook('onClose', async () => {
      for (const stop of stopListening) stop();
      await engine.close();
    });
  },
  { name: 'alerts' },
);
