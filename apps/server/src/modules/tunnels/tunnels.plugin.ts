import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { TunnelManager } from './tunnel-manager';
import { closeStaleTunnels } from './tunnels.service';

declare module 'fastify' {
  interface FastifyInstance {
    /** Live remote tunnels of this instance (docs/tunnels.md). */
    tunnels: TunnelManager;
  }
}

/**
 * Remote tunnels: the manager listens for reverse connections on first use (so apps that never open one take no
 * port). Registered after the gateway: it closes first, writing its tunnels' rows while the database is up.
 */
export const tunnelsPlugin = fp(
  async (app: FastifyInstance) => {
    const manager = new TunnelManager(app.deps);
    app.decorate('tunnels', manager);
    await closeStaleTunnels(app.deps);
    app.addHook('onClose', async () => {
      await manager.stop();
    });
  },
  { name: 'tunnels', dependencies: ['gateway'] },
);
