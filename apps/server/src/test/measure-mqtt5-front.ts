// What the protocol front costs:
// `npx tsx apps/server/src/test/measure-mqtt5-front.ts [--port 19500] [--rounds 9] [--heap]`.
// One bare Aedes (every CONNECT accepted, no gateway, no database) behind three listeners: `aedes.handle` as
// before the front, `ProtocolFront.handle` with 3.1.1 clients, and the front with 5.0 clients. For each: a connect
// storm (raw sockets, CONNECT written at once, time until every CONNACK) and QoS 1 publish throughput (one
// connection per client, a window of 32 in flight, time until every PUBACK); with --heap, the live heap each
// connected client adds (heap snapshots). Runs alternate to spread noise.
import net from 'node:net';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { Aedes } from 'aedes';
import mqttPacket, { type Packet } from 'mqtt-packet';
import { ProtocolFront } from '../gateway/mqtt5/protocol-front';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '19500' },
    connections: { type: 'string', default: '2000' },
    messages: { type: 'string', default: '20000' },
    publishers: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    heap: { type: 'boolean', default: false },
  },
});
const base = Number(values.port);
const CONNECTIONS = Number(values.connections);
const MESSAGES = Number(values.messages);
const PUBLISHERS = Number(values.publishers);
const ROUNDS = Number(values.rounds);

type Mode = 'direct 3.1.1' | 'front 3.1.1' | 'front 5.0';

async function listen(port: number, onSocket: (s: net.Socket) => void): Promise<net.Server> {
  const server = net.createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

/** A raw client: writes packets of one version, resolves waits on packet kinds. */
class Raw {
  private parser;
  private want: { cmd: string; n: number; resolve: () => void } | undefined;
  private seen = 0;
  onPacket: ((p: Packet) => void) | undefined;
  constructor(
    readonly socket: net.Socket,
    readonly version: 4 | 5,
  ) {
    this.parser = mqttPacket.parser({ protocolVersion: version });
    this.parser.on('packet', (p: Packet) => {
      this.onPacket?.(p);
      if (this.want && p.cmd === this.want.cmd && ++this.seen === this.want.n) {
        const w = this.want;
        this.want = undefined;
        w.resolve();
      }
    });
    socket.on('data', (b) => this.parser.parse(b));
  }
  static open(port: number, version: 4 | 5): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(new Raw(s, version)));
      s.once('error', reject);
    });
  }
  wait(cmd: string, n: number): Promise<void> {
    this.seen = 0;
    return new Promise((resolve) => (this.want = { cmd, n, resolve }));
  }
  send(p: Packet): boolean {
    return this.socket.write(mqttPacket.generate(p, { protocolVersion: this.version }));
  }
  connect(id: string): Promise<void> {
    const done = this.wait('connack', 1);
    this.send({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: this.version,
      clean: true,
      keepalive: 0,
      clientId: id,
    });
    return done;
  }
}

let idSeq = 0;

/** Process CPU microseconds (user + system) since `from`: less sensitive to other load than wall time. */
const cpuSince = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return d.user + d.system;
};

/**
 * Bytes of live objects on the JS heap, from a heap snapshot (which collects garbage first): what connections
 * retain, unlike heapUsed, which also counts garbage not yet compacted. Only with --heap (a snapshot takes seconds).
 */
async function liveHeapBytes(): Promise<number> {
  if (!values.heap) return NaN;
  const chunks: Buffer[] = [];
  for await (const chunk of v8.getHeapSnapshot()) chunks.push(chunk as Buffer);
  const snapshot = JSON.parse(Buffer.concat(chunks).toString()) as {
    snapshot: { meta: { node_fields: string[] } };
    nodes: number[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const size = fields.indexOf('self_size');
  let total = 0;
  for (let i = size; i < snapshot.nodes.length; i += fields.length) total += snapshot.nodes[i]!;
  return total;
}

async function connectStorm(port: number, version: 4 | 5): Promise<[number, number, number]> {
  // Before the sockets open: `aedes.handle` builds its client at accept time, the front only after the CONNECT.
  const before = await liveHeapBytes();
  const sockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => Raw.open(port, version)));
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(sockets.map((r) => r.connect(`c${++idSeq}`)));
  const ms = performance.now() - t0;
  const us = cpuSince(cpu) / CONNECTIONS;
  await new Promise((r) => setTimeout(r, 50));
  const perConnection = ((await liveHeapBytes()) - before) / CONNECTIONS;
  for (const r of sockets) r.socket.destroy();
  await new Promise((r) => setTimeout(r, 200));
  return [(CONNECTIONS / ms) * 1000, us, perConnection];
}

async function publishRate(port: number, version: 4 | 5): Promise<[number, number]> {
  const clients = await Promise.all(Array.from({ length: PUBLISHERS }, () => Raw.open(port, version)));
  await Promise.all(clients.map((c) => c.connect(`p${++idSeq}`)));
  const per = Math.floor(MESSAGES / PUBLISHERS);
  const payload = Buffer.from('{"params":{"temperature":21.5,"humidity":40}}');
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (c, ci) => {
      const acked = c.wait('puback', per);
      let sent = 0;
      let inflight = 0;
      await new Promise<void>((resolve) => {
        const pump = () => {
          while (inflight < 32 && sent < per) {
            inflight++;
            sent++;
            c.send({
              cmd: 'publish',
              topic: `dev/pk/p${ci}/up/property`,
              payload,
              qos: 1,
              messageId: (sent % 65535) + 1,
              retain: false,
              dup: false,
            });
          }
          if (sent >= per) resolve();
        };
        c.onPacket = (p) => {
          if (p.cmd !== 'puback') return;
          inflight--;
          pump();
        };
        pump();
      });
      await acked;
    }),
  );
  const ms = performance.now() - t0;
  const us = cpuSince(cpu) / (per * PUBLISHERS);
  for (const c of clients) c.socket.destroy();
  await new Promise((r) => setTimeout(r, 200));
  return [((per * PUBLISHERS) / ms) * 1000, us];
}

const aedes = await Aedes.createBroker({});
const front = new ProtocolFront(aedes);
const servers = await Promise.all([
  listen(base, (s) => aedes.handle(s)),
  listen(base + 1, (s) => front.handle(s)),
]);
const modes: [Mode, number, 4 | 5][] = [
  ['direct 3.1.1', base, 4],
  ['front 3.1.1', base + 1, 4],
  ['front 5.0', base + 1, 5],
];
interface Figures {
  connects: number[];
  connectCpu: number[];
  connectBytes: number[];
  publishes: number[];
  publishCpu: number[];
}
const results = new Map<Mode, Figures>(
  modes.map(([m]) => [m, { connects: [], connectCpu: [], connectBytes: [], publishes: [], publishCpu: [] }]),
);
for (let round = 0; round < ROUNDS; round++) {
  for (const [mode, port, version] of round % 2 ? [...modes].reverse() : modes) {
    const r = results.get(mode)!;
    const [connects, connectCpu, connectBytes] = await connectStorm(port, version);
    r.connectBytes.push(connectBytes);
    const [publishes, publishCpu] = await publishRate(port, version);
    r.connects.push(connects);
    r.connectCpu.push(connectCpu);
    r.publishes.push(publishes);
    r.publishCpu.push(publishCpu);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `${CONNECTIONS} connections per storm, ${MESSAGES} QoS 1 messages over ${PUBLISHERS} connections, ` +
    `${ROUNDS} rounds (median)`,
);
console.log(
  'wall-clock rates; CPU of this process (server and clients) per connect and per message; live heap per ' +
    'connected client (--heap)',
);
for (const [mode] of modes) {
  const r = results.get(mode)!;
  const n = (x: number, w: number) => Math.round(x).toString().padStart(w);
  console.log(
    `${mode.padEnd(13)} connects/s ${n(median(r.connects), 6)}  CPU µs/connect ${n(median(r.connectCpu), 4)}  ` +
      `live heap KB/connection ${(median(r.connectBytes) / 1024).toFixed(2).padStart(5)}   ` +
      `QoS 1 msg/s ${n(median(r.publishes), 7)}  CPU µs/msg ${median(r.publishCpu).toFixed(1).padStart(5)}`,
  );
}
for (const s of servers) s.close();
await new Promise<void>((resolve) => aedes.close(() => resolve()));
process.exit(0);
