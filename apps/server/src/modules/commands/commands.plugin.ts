import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type Periodic, startPeriodic } from '../../jobs/periodic';
import type { Deps } from '../../lib/deps';
import type { DeviceRef } from '../devices/device-ref';
import { deliverQueuedCommands, EXPIRE_BATCH, expireQueuedCommands } from './commands.service';

declare module 'fastify' {
  interface FastifyInstance {
    /** Queued commands of this instance: delivery on subscription and the expiry job. */
    commandQueue: CommandQueue;
  }
}

/** How often pending commands past their time-to-live are marked `expired`. */
export const EXPIRY_EVERY_MS = 15_000;

/**
 * Sends queued commands when a device can take them, one delivery at a time per device on this instance (so they
 * go in order), and runs the expiry sweep. The database decides who sends what (deliverQueuedCommands claims under
 * row locks), so any number of instances may do this at once.
 */
export class CommandQueue {
  readonly expiry: Periodic;
  private chains = new Map<number, Promise<number>>();
  /** Connected to this instance and not subscribed to its commands yet: a send now could be lost. */
  private connecting = new Set<number>();
  private closed = false;

  constructor(private readonly deps: Deps) {
    this.expiry = startPeriodic({
      name: 'command expiry',
      everyMs: EXPIRY_EVERY_MS,
      log: deps.log,
      run: async () => {
        while ((await expireQueuedCommands(deps)) >= EXPIRE_BATCH && !this.closed);
      },
    });
  }

  /** presence.changed on this instance. */
  presence(device: DeviceRef, online: 0 | 1): void {
    if (online === 1) this.connecting.add(device.id);
    else this.connecting.delete(device.id);
  }

  /** device.ready: the device subscribed to commands (or keeps a session): what waited goes now. */
  ready(device: DeviceRef): Promise<number> {
    this.connecting.delete(device.id);
    return this.deliver(device);
  }

  /**
   * A command was queued for a device that is online: send it unless the device connected here and has not
   * subscribed yet (its subscription will). A device connected elsewhere (another instance, an external broker)
   * is tried: a failed send leaves the command pending.
   */
  request(device: DeviceRef): Promise<number> {
    if (this.connecting.has(device.id)) return Promise.resolve(0);
    return this.deliver(device);
  }

  private deliver(device: DeviceRef): Promise<number> {
    if (this.closed) return Promise.resolve(0);
    const prev = this.chains.get(device.id) ?? Promise.resolve(0);
    const next = prev.then(
      () => deliverQueuedCommands(this.deps, device),
      () => deliverQueuedCommands(this.deps, device),
    );
    const settled = next.catch((err: unknown) => {
      this.deps.log.warn({ err, sn: device.sn }, 'queued command delivery failed');
      return 0;
    });
    this.chains.set(device.id, settled);
    void settled.then(() => {
      if (this.chains.get(device.id) === settled) this.chains.delete(device.id);
    });
    return settled;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.expiry.stop();
    await Promise.all([...this.chains.values()]);
  }
}

/**
 * Wires the command queue to the bus: `device.ready` (the gateway) delivers, `commands.deliver` (a send with
 * `offline: "queue"` to an online device) asks for a delivery. Registered after the gateway, so it closes first.
 */
export const commandsPlugin = fp(
  async (app: FastifyInstance) => {
    const { events } = app.deps;
    const queue = new CommandQueue(app.deps);
    const off = [
      events.on('presence.changed', (e) => queue.presence(e.device, e.online)),
      events.on('device.ready', (e) => {
        if (e.kinds.includes('cmd')) void queue.ready(e.device);
      }),
      events.answer('commands.deliver', async (e) => ({ sent: await queue.request(e.device) })),
    ];
    app.decorate('commandQueue', queue);
    app.addHook('onClose', async () => {
      for (const f of off) f();
      await queue.close();
    });
  },
  { name: 'commands', dependencies: ['gateway'] },
);
