import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { TunnelManager } from './tunnel-manager';
import { closeStaleTunnels, recheckTunnels } from './tunnels.service';

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
    // A share revoked or reduced to view (from any instance: the shares plugin relays it) ends its holder's tunnels.
    const stop = app.deps.events.on('share.changed', (e) => {
      recheckTunnels(app.deps, manager, e.deviceIds).catch((err: unknown) =>
        app.log.warn({ err }, 'tunnel rights not rechecked'),
      );
    });
    app.addHook('onClose', async () => {
      stop();
      await manager.stop();
    });
  },
  { name: 'tunnels', dependencies: ['gateway'] },
);
