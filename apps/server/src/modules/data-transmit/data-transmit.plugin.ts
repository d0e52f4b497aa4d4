import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { DATA_TRANSMIT_CHANNEL } from './data-transmit.service';
import { TransmitEngine, type TransmitEngineOptions } from './transmit-engine';

declare module 'fastify' {
  interface FastifyInstance {
    /** Data transmission between devices on this instance (docs/data-transmit.md). */
    dataTransmit: TransmitEngine;
  }
}

/**
 * Starts the transmit engine once the app is ready: it reads the enabled rules and takes every raw uplink from the
 * bus (`raw.received`, raised by telemetry ingest for MQTT and socket-mode devices alike). Rule changes on any
 * instance arrive on DATA_TRANSMIT_CHANNEL (deps.channels); after a lost channel connection everything is read again.
 */
export const dataTransmitPlugin = fp(
  async (app: FastifyInstance, opts: Partial<TransmitEngineOptions>) => {
    const engine = new TransmitEngine(app.deps, opts);
    app.decorate('dataTransmit', engine);
    const stop: (() => void)[] = [];
    app.addHook('onReady', async () => {
      const { events, channels } = app.deps;
      await engine.reload();
      // Must return at once (ingest waits for emit): the copies go out asynchronously.
      stop.push(
        events.on('raw.received', (e) => engine.received(e.device, e.payload)),
        channels.listen(DATA_TRANSMIT_CHANNEL, () => engine.changed()),
        channels.onReconnect(() => engine.changed()),
      );
    });
    app.addHook('onClose', async () => {
      for (const s of stop) s();
      await engine.close();
    });
  },
  { name: 'data-transmit' },
);
