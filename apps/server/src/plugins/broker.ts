import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import net from 'node:net';
import { Aedes } from 'aedes';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import websocket from '@fastify/websocket';
import mqtt, { type MqttClient } from 'mqtt';
import { createWebSocketStream } from 'ws';
import { BrokerSessions } from '../gateway/broker-sessions';
import { holdConnects } from '../gateway/embedded-adapter';
import { holdUplinks } from '../gateway/external-adapter';
import { ProtocolFront } from '../gateway/mqtt5/protocol-front';
import { AppError } from '../lib/app-error';
import { sendAppError } from './error-handler';

/** Pending TCP connections the MQTT listener queues (bench/RESULTS.md, OTA rollout: the connect storm). */
const MQTT_LISTEN_BACKLOG = 4096;

/** What the rest of the server sees of MQTT, embedded or external. The device gateway builds on it (issue 3). */
export interface BrokerHandle {
  kind: 'embedded' | 'external';
  healthy(): boolean;
  /** Embedded: the TCP port actually bound (useful with MQTT_PORT=0). */
  port?: number;
  aedes?: Aedes;
  /** Embedded: hands MQTT 3.1.1 connections to Aedes and fronts MQTT 5.0 ones (gateway/mqtt5). */
  front?: ProtocolFront;
  client?: MqttClient;
}

/** A start-up failure whose message is meant for the operator as is (no stack trace). */
export class StartupError extends Error {}

async function startEmbedded(
  app: FastifyInstance,
  port: number,
  host: string,
  onTooLarge: ((clientId: string) => void) | undefined,
): Promise<BrokerHandle> {
  const aedes = await Aedes.createBroker({
    // Aedes' in-memory persistence plus what sessions need beyond it: Session Present, MQTT 5.0 session expiry, QoS 2
    // exactly once (gateway/broker-sessions.ts).
    persistence: new BrokerSessions().persistence,
  });
  // The device gateway (src/gateway) replaces the handlers with device authentication and topic ACLs. Until it is
  // attached nobody connects: a CONNECT waits for its answer (an open broker on a public port would be a free relay).
  holdConnects(aedes);
  aedes.on('clientError', (client, err) =>
    app.log.debug({ client: client.id, err: err.message }, 'mqtt client error'),
  );
  const front = new ProtocolFront(aedes, { debug: (msg, detail) => app.log.debug(detail, msg), onTooLarge });

  // Tracked so shutdown can also drop sockets that never completed an MQTT CONNECT (aedes does not know them).
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    front.handle(socket);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // A reconnect storm (a cell tower comes back: thousands of DTUs at once) arrives faster than one busy event
      // loop accepts; with Node's default backlog (511) the kernel drops SYNs and devices see resets and CONNACK
      // timeouts, then retry and make the storm worse. The kernel caps this at net.core.somaxconn.
      server.listen({ port, host, backlog: MQTT_LISTEN_BACKLOG }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new StartupError(
        `MQTT_PORT ${port} is already in use (another broker or Cellhub is running). ` +
          'Free the port, set MQTT_PORT to another port, or set MQTT_URL=mqtt://host:port to use an external broker.',
      );
    }
    throw err;
  }
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;

  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  app.route({
    method: 'GET',
    url: '/mqtt',
    schema: { hide: true },
    // A plain GET (no upgrade) is not a route of the API.
    handler: (_request, reply) => sendAppError(reply, new AppError(10106)),
    wsHandler: (socket, request) => {
      front.handle(createWebSocketStream(socket), request.raw);
    },
  });

  app.addHook('onClose', async () => {
    // Clients first, then the listener, so server.close does not wait on them.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  });
  app.log.info({ port: boundPort }, 'embedded MQTT broker listening');
  return {
    kind: 'embedded',
    port: boundPort,
    aedes,
    front,
    healthy: () => !aedes.closed && server.listening,
  };
}

/**
 * A clientId that stays the same across restarts of one instance (same host, same DATA_DIR) and differs between
 * instances, so each keeps its persistent session at the broker.
 */
export function instanceClientId(dataDir: string): string {
  return `cellhub-server-${createHash('sha256').update(`${hostname()}\u0000${dataDir}`).digest('hex').slice(0, 12)}`;
}

function connectExternal(app: FastifyInstance, url: string, clientId: string): BrokerHandle {
  const client = mqtt.connect(url, {
    clientId,
    // A persistent session: QoS 1 uplinks that arrive while this instance restarts wait at the broker.
    clean: false,
    protocolVersion: 4,
    reconnectPeriod: 2000,
    connectTimeout: 10_000,
  });
  holdUplinks(client);
  client.on('error', (err) => app.log.warn({ err: err.message }, 'external MQTT broker error'));
  // The client id names this instance's persistent session at the broker (docs/operations.md: removing an instance).
  client.on('connect', () =>
    app.log.info({ url: new URL(url).host, clientId }, 'connected to external MQTT broker'),
  );
  app.addHook('onClose', async () => {
    await client.endAsync(true);
  });
  return { kind: 'external', client, healthy: () => client.connected };
}

export interface BrokerOptions {
  mqttPort: number;
  mqttUrl: string | undefined;
  host: string;
  /** External broker: the server's clientId (default: instanceClientId of DATA_DIR). */
  clientId?: string;
  dataDir?: string;
  /** Embedded: a connected device was cut off for a packet over the size limit (the gateway counts a drop). */
  onPacketTooLarge?: (clientId: string) => void;
}

export const brokerPlugin = fp(
  async (app: FastifyInstance, opts: BrokerOptions) => {
    const handle = opts.mqttUrl
      ? connectExternal(
          app,
          opts.mqttUrl,
          opts.clientId ??
            (opts.dataDir
              ? instanceClientId(opts.dataDir)
              : `cellhub-server-${randomBytes(6).toString('hex')}`),
        )
      : await startEmbedded(app, opts.mqttPort, opts.host, opts.onPacketTooLarge);
    app.decorate('broker', handle);
  },
  { name: 'broker' },
);
