// Test support (not shipped): a real MQTT broker in the test process that records what devices send, over TCP and
// WebSocket, the way the platform's embedded broker receives it.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { Aedes, type AuthenticateError } from 'aedes';
import { createWebSocketStream, WebSocketServer } from 'ws';

export interface Seen {
  clientId?: string;
  topic: string;
  payload: string;
  qos: number;
}

export interface TestBroker {
  aedes: Aedes;
  url: string;
  wsUrl: string;
  seen: Seen[];
  connects: { clientId: string; username?: string; password?: string }[];
  /** Secrets the broker accepts; a device with another one is refused (CONNACK 5). */
  secrets: Map<string, string>;
  /** JSON bodies seen on topics ending with `suffix`. */
  bodies(suffix: string, clientId?: string): unknown[];
  downlink(topic: string, body: unknown): Promise<void>;
  /** Drops a connected client as a broker does on a protocol error or takeover. */
  kick(clientId: string): boolean;
  close(): Promise<void>;
}

export async function startTestBroker(): Promise<TestBroker> {
  const aedes = await Aedes.createBroker();
  const seen: Seen[] = [];
  const connects: TestBroker['connects'] = [];
  const secrets = new Map<string, string>();
  const clients = new Map<string, { close: () => void }>();
  aedes.on('client', (client) => clients.set(client.id, client));
  aedes.authenticate = (client, username, password, done) => {
    const pw = password?.toString();
    connects.push({ clientId: client.id, username, password: pw });
    const expected = secrets.get(client.id);
    const ok =
      client.id === username && (expected === undefined || pw === expected || !!pw?.startsWith('hmac:'));
    if (ok) return done(null, true);
    const err = new Error('not authorized') as AuthenticateError;
    err.returnCode = 5 as AuthenticateError['returnCode'];
    done(err, false);
  };
  aedes.on('publish', (packet, client) => {
    if (client)
      seen.push({
        clientId: client.id,
        topic: packet.topic,
        payload: packet.payload.toString(),
        qos: packet.qos,
      });
    else if (packet.topic.endsWith('/up/status'))
      seen.push({ topic: packet.topic, payload: packet.payload.toString(), qos: packet.qos });
  });
  const tcp: Server = createServer(aedes.handle);
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  const http: HttpServer = createHttpServer();
  const wss = new WebSocketServer({ server: http, path: '/mqtt' });
  wss.on('connection', (socket, req) => aedes.handle(createWebSocketStream(socket), req));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (s: Server | HttpServer) => {
    const a = s.address();
    return typeof a === 'object' && a ? a.port : 0;
  };
  return {
    aedes,
    url: `mqtt://127.0.0.1:${port(tcp)}`,
    wsUrl: `ws://127.0.0.1:${port(http)}/mqtt`,
    seen,
    connects,
    secrets,
    bodies: (suffix, clientId) =>
      seen
        .filter((m) => m.topic.endsWith(suffix) && (clientId === undefined || m.clientId === clientId))
        .map((m) => {
          try {
            return JSON.parse(m.payload) as unknown;
          } catch {
            return m.payload;
          }
        }),
    downlink: (topic, body) =>
      new Promise<void>((resolve, reject) =>
        aedes.publish(
          {
            cmd: 'publish',
            topic,
            payload: Buffer.from(JSON.stringify(body)),
            qos: 1,
            retain: false,
            dup: false,
          },
          (err) => (err ? reject(err) : resolve()),
        ),
      ),
    kick: (clientId) => {
      const client = clients.get(clientId);
      client?.close();
      return client !== undefined;
    },
    close: async () => {
      await new Promise<void>((r) => aedes.close(() => r()));
      wss.close();
      await new Promise<void>((r) => tcp.close(() => r()));
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

export async function waitFor<T>(fn: () => T | undefined | false, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
