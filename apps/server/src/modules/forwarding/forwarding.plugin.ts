import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ForwardingEngine, type ForwardingOptions } from './forwarding.engine';

declare module 'fastify' {
  interface FastifyInstance {
    /** The forwarding engine of this instance (docs/forwarding.md "Delivery"). */
    forwarding: ForwardingEngine;
  }
}

/**
 * Starts the forwarding engine once the app is ready: it subscribes to the domain events it forwards, reads its
 * rule index and runs this instance's delivery worker (every instance runs one; the queue is in the database).
 */
export const forwardingPlugin = fp(
  async (app: FastifyInstance, opts: Partial<ForwardingOptions>) => {
    const engine = new ForwardingEngine(app.deps, opts);
    app.decorate('forwarding', engine);
    app.addHook('onReady', async () => engine.start());
    app.addHook('onClose', async () => engine.close());
  },
  { name: 'forwarding' },
);
