import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { DeviceHostManager } from './device-host-manager';

declare module 'fastify' {
  interface FastifyInstance {
    /** TCP/UDP servers for DTUs in socket mode (issue 18, docs/device-hosts.md). */
    deviceHosts: DeviceHostManager;
  }
}

/**
 * Starts the enabled device hosts. The manager is made in app.ts with the gateway (it is part of deps.link); this
 * plugin is registered after the gateway and closes before it (plugins close in reverse), so the DTUs' disconnects
 * are written while the presence writer still runs.
 */
export const deviceHostsPlugin = fp(
  async (app: FastifyInstance, { manager }: { manager: DeviceHostManager }) => {
    app.decorate('deviceHosts', manager);
    // DEVICE_HOST_STATS_FILE (benchmarks): stored frames and their latency, as JSON every second.
    const statsFile = process.env.DEVICE_HOST_STATS_FILE;
    if (statsFile) manager.enableBenchStats(statsFile);
    await manager.start();
    app.addHook('onClose', async () => {
      await manager.stop();
    });
  },
  { name: 'device-hosts', dependencies: ['gateway'] },
);
