// Test support of the crash and outage tests (crash, db-outage, broker-restart): a server in a process of its own
// (src/test/presence-child.ts, run from source), a private Mosquitto and a private PostgreSQL cluster on free ports
// that a test may kill and start again without touching the machine's, and a fleet of devices speaking raw MQTT
// that number their QoS 1 messages and resend what was not acknowledged, as DTU firmware does.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net, { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import mqttPacket, { type Packet } from 'mqtt-packet';
import pg from 'pg';
import { upTopic } from '@cellhub/contract/protocol';

const run = promisify(execFile);

/** A device as the API created it (the shape of src/test/gateway-test-kit.ts, which this file may not import). */
export interface TestDevice {
  sn: string;
  productKey: string;
  secret: string;
}

const CHILD = fileURLToPath(new URL('../test/presence-child.ts', import.meta.url));
/** The admin password of every server started here. */
export const ADMIN_PASSWORD = 'Reliability123';
/** Device secrets are encrypted under it; every server of one test must share it. */
export const SECRET_KEY = 'reliability-secret-key-0123456789abcdef-0123';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until `check` returns a value other than undefined; fails after `timeoutMs`, naming `what`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  everyMs = 100,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** Whether something accepts TCP connections on the port. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

// --- the server -------------------------------------------------------------------------------------------

export interface ServerChild {
  port: number;
  mqttPort: number;
  instance: string;
  /** When it printed that it listens (ms since the epoch). */
  readyAt: number;
  /** SIGKILL: no shutdown, nothing flushed, no disconnect written. */
  kill(): Promise<void>;
  /** SIGTERM: a clean shutdown. */
  stop(): Promise<void>;
}

/**
 * Starts the server from source in a child process (no build needed), configured by the environment like
 * `npm start`; PORT and MQTT_PORT default to 0 (free ports). Its log (errors) goes to `logFile`.
 */
export async function startServer(env: Record<string, string>, logFile: string): Promise<ServerChild> {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: {
      ...process.env,
      PORT: '0',
      MQTT_PORT: '0',
      SECRET_KEY,
      CELLHUB_ADMIN_PASSWORD: ADMIN_PASSWORD,
      CONSOLE_DIST: path.join(path.dirname(logFile), 'no-console'),
      LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    void exited.then(() => reject(new Error(`the server exited before it listened; see ${logFile}`)));
  });
  const info = JSON.parse(line) as { port: number; mqttPort: number; instance: string };
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await exited;
  };
  return { ...info, readyAt: Date.now(), kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}

/** The HTTP API of a server child, as the console calls it. */
export class Api {
  token: string | undefined;
  constructor(public port: number) {}

  async call(method: string, url: string, body?: unknown, timeoutMs = 10_000) {
    const res = await fetch(`http://127.0.0.1:${this.port}${url}`, {
      method,
      headers: {
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, json: json as { data?: unknown; code?: number; total?: number } };
  }

  async ok<T>(method: string, url: string, body?: unknown): Promise<T & { total?: number }> {
    const r = await this.call(method, url, body);
    if (r.status !== 200) throw new Error(`${method} ${url}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json as T & { total?: number };
  }

  async login(): Promise<void> {
    const r = await this.ok<{ data: { token: string } }>('POST', '/api/auth/login', {
      username: 'admin',
      password: ADMIN_PASSWORD,
    });
    this.token = r.data.token;
  }

  /** A product without property definitions (any key goes) and its devices, with their secrets. */
  async fleet(sns: string[]): Promise<TestDevice[]> {
    const p = await this.ok<{ data: { product_key: string } }>('POST', '/api/products', { name: 'Outage' });
    const productKey = p.data.product_key;
    for (let i = 0; i < sns.length; i += 500) {
      await this.ok('POST', '/api/devices', { product_key: productKey, sn: sns.slice(i, i + 500) });
    }
    const out: TestDevice[] = new Array(sns.length);
    let next = 0;
    const worker = async () => {
      while (next < sns.length) {
        const i = next++;
        const d = await this.ok<{ data: { secret: string } }>('GET', `/api/devices/${sns[i]}`);
        out[i] = { sn: sns[i]!, productKey, secret: d.data.secret };
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    return out;
  }

  /** How many devices whose sn contains `keyword` have this online flag (counted fresh: a keyword skips the cache). */
  async countOnline(keyword: string, online: 0 | 1): Promise<number> {
    const r = await this.ok<{ total: number }>(
      'GET',
      `/api/devices?keyword=${encodeURIComponent(keyword)}&online=${online}&per_page=1`,
    );
    return r.total;
  }
}

// --- Mosquitto ----------------------------------------------------------------------------------------------

export const MOSQUITTO = '/usr/sbin/mosquitto';

/**
 * A Mosquitto of the test's own, on a free port, with the settings docs/operations.md gives for production
 * (persistence, large queues and in-flight window, the server's session kept), anonymous: on an external broker
 * device authentication is the broker's job. `restart()` stops it (SIGTERM, as `systemctl restart` does, which
 * writes its persistence file) and starts it again on the same port.
 */
export class Mosquitto {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  static async start(options: { persistence?: boolean } = {}): Promise<Mosquitto> {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'cellhub-mosquitto-'));
    // Mosquitto started as root drops to the mosquitto user: it must be able to write its persistence there.
    chownSync(dir, ...(await userIds('mosquitto')));
    const conf = path.join(dir, 'mosquitto.conf');
    writeFileSync(
      conf,
      [
        `listener ${port} 127.0.0.1`,
        'allow_anonymous true',
        `persistence ${options.persistence === false ? 'false' : 'true'}`,
        `persistence_location ${dir}/`,
        'autosave_interval 30',
        'max_queued_messages 1000000',
        'max_queued_bytes 0',
        'max_inflight_messages 20000',
        'persistent_client_expiration 7d',
        'log_dest none',
        '',
      ].join('\n'),
    );
    const m = new Mosquitto(port, dir);
    await m.launch();
    return m;
  }

  private async launch(): Promise<void> {
    const child = spawn(MOSQUITTO, ['-c', path.join(this.dir, 'mosquitto.conf')], { stdio: 'ignore' });
    this.child = child;
    this.exited = new Promise((r) => child.once('exit', () => r()));
    await waitFor(
      'mosquitto listening',
      async () => ((await listening(this.port)) ? true : undefined),
      10_000,
      50,
    );
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await this.exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.launch();
  }

  async destroy(): Promise<void> {
    await this.stop('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function userIds(user: string): Promise<[number, number]> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
    run('id', ['-u', user]),
    run('id', ['-g', user]),
  ]);
  return [Number(uid.trim()), Number(gid.trim())];
}

// --- PostgreSQL ---------------------------------------------------------------------------------------------

const PG_BIN = '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL cluster of the test's own (initdb in a temporary folder, a free port, fsync off), so a test can stop
 * it and start it again. initdb refuses to run as root: the cluster runs as the postgres user.
 */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  /** The cluster's `postgres` database. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async create(): Promise<PrivatePostgres> {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'cellhub-pg-'));
    chownSync(dir, ...(await userIds('postgres')));
    const p = new PrivatePostgres(port, dir);
    await p.asPostgres(`${PG_BIN}/initdb`, [
      '-D',
      p.data,
      '-U',
      'postgres',
      '--auth=trust',
      '-N',
      '-E',
      'UTF8',
    ]);
    await p.start();
    return p;
  }

  private get data(): string {
    return path.join(this.dir, 'data');
  }

  private asPostgres(cmd: string, args: string[]) {
    return run('runuser', ['-u', 'postgres', '--', cmd, ...args], { cwd: this.dir });
  }

  async start(): Promise<void> {
    const opts = [
      `-p ${this.port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${this.dir}`,
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=50',
    ].join(' ');
    await this.asPostgres(`${PG_BIN}/pg_ctl`, [
      '-D',
      this.data,
      '-o',
      opts,
      '-l',
      path.join(this.dir, 'log'),
      '-w',
      'start',
    ]);
  }

  /** `fast`: connections are terminated and it shuts down cleanly, as an operator's stop does. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.asPostgres(`${PG_BIN}/pg_ctl`, ['-D', this.data, '-m', mode, '-w', 'stop']);
  }

  async query<T>(text: string, values: unknown[] = []): Promise<T[]> {
    const c = new pg.Client({ connectionString: this.url });
    await c.connect();
    try {
      return (await c.query(text, values)).rows as T[];
    } finally {
      await c.end();
    }
  }

  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A database of its own on the machine's PostgreSQL (TEST_DATABASE_URL), dropped by `drop()`. */
export async function sharedDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const db = `cellhub_${name}_${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${db}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${db}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Every stored `seq` value per device sn, from the property history. */
export async function storedSeqs(
  query: (text: string) => Promise<{ sn: string; seq: number }[]>,
): Promise<Map<string, number[]>> {
  const rows = await query(`
    select d.sn, p.num::int as seq from device_properties p join devices d on d.id = p.device_id
    where p.key = 'seq'`);
  const out = new Map<string, number[]>();
  for (const r of rows) {
    let list = out.get(r.sn);
    if (!list) out.set(r.sn, (list = []));
    list.push(Number(r.seq));
  }
  return out;
}

// --- devices ------------------------------------------------------------------------------------------------

export interface FleetOptions {
  /** MQTT port the devices connect to (the embedded broker's or Mosquitto's). */
  port: number;
  /** Messages each device sends, numbered 0..messages-1. */
  messages: number;
  /** QoS 1 messages a device keeps in flight without their PUBACK. */
  window: number;
  keepaliveS: number;
  /** External broker: presence comes from `{"online":1}` on connect and a will `{"online":0}`. */
  statusMessages?: boolean;
  /** Wait before reconnecting after a lost connection or a refused CONNECT. */
  retryMs?: number;
  /** At least this long between two new messages of a device (0: as fast as the window allows). */
  intervalMs?: number;
  /** Subscribe to the device's `P/down/#` on every connection (commands). */
  subscribeDown?: boolean;
}

const encode = (p: Packet) => mqttPacket.generate(p, { protocolVersion: 4 });

/**
 * One device as DTU firmware behaves: QoS 1 messages `{"params": {"seq": n}}` in order, a window of them in
 * flight; what is not acknowledged when the connection is lost is sent again (DUP set) on the next connection,
 * which it opens again and again until one is accepted. Sent, acknowledged and resent messages are counted.
 */
export class FleetDevice {
  /** Acknowledged sequence numbers. */
  readonly acked = new Set<number>();
  /** Packet id -> sequence number, on the current connection. */
  private inflight = new Map<number, number>();
  /** Not acknowledged, to send (again) first on the next connection. */
  private unsent: number[] = [];
  private next = 0;
  private nextId = 1;
  private socket: net.Socket | undefined;
  private pinger: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private paceTimer: NodeJS.Timeout | undefined;
  private lastSent = 0;
  /** Sequence number and time of each first send. */
  private readonly sentAt: [number, number][] = [];
  connected = false;
  /** Stopped devices do not reconnect (a device that died with the server, or switched off). */
  stopped = false;
  /** While paused, no new message is started (resends still go). */
  paused = false;
  readonly stats = { connects: 0, refused: 0, lost: 0, resent: 0, published: 0 };
  /** Packets other than acknowledgements (commands on P/down/cmd). */
  readonly received: { topic: string; payload: Buffer }[] = [];
  onAck: (() => void) | undefined;

  constructor(
    readonly device: TestDevice,
    private readonly o: FleetOptions,
  ) {}

  get done(): boolean {
    return this.acked.size >= this.o.messages;
  }

  /** The first new message (not a resend) sent at or after `since` (ms since the epoch), if there is one yet. */
  firstSentSince(since: number): number | undefined {
    return this.sentAt.find(([, at]) => at >= since)?.[0];
  }

  /** The sequence numbers sent at least once and not acknowledged. */
  unacknowledged(): number[] {
    return [...this.inflight.values(), ...this.unsent];
  }

  /** Sequence numbers sent at least once and not acknowledged. */
  get pending(): number {
    return this.inflight.size + this.unsent.length;
  }

  connect(): void {
    if (this.stopped || this.socket) return;
    const socket = net.connect(this.o.port, '127.0.0.1');
    this.socket = socket;
    socket.setNoDelay(true);
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    parser.on('packet', (p: Packet) => this.onPacket(p));
    parser.on('error', () => socket.destroy());
    socket.on('data', (b: Buffer) => parser.parse(b));
    socket.on('error', () => undefined);
    socket.once('close', () => this.onClose());
    const { sn, secret, productKey } = this.device;
    socket.write(
      encode({
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 4,
        clean: true,
        keepalive: this.o.keepaliveS,
        clientId: sn,
        username: sn,
        password: Buffer.from(secret),
        ...(this.o.statusMessages
          ? {
              will: {
                topic: upTopic(productKey, sn, 'status'),
                payload: Buffer.from('{"online":0}'),
                qos: 1,
                retain: false,
              },
            }
          : {}),
      }),
    );
  }

  /** Drops the connection without a DISCONNECT and stays away (`stopped`). */
  drop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    clearTimeout(this.paceTimer);
    this.socket?.destroy();
  }

  /** Subscribes to the device's commands. */
  subscribe(): void {
    const { productKey, sn } = this.device;
    this.socket?.write(
      encode({
        cmd: 'subscribe',
        messageId: this.id(),
        subscriptions: [{ topic: `dev/${productKey}/${sn}/down/#`, qos: 1 }],
      }),
    );
  }

  publishStatus(): void {
    const { productKey, sn } = this.device;
    this.socket?.write(
      encode({
        cmd: 'publish',
        topic: upTopic(productKey, sn, 'status'),
        payload: Buffer.from('{"online":1}'),
        // QoS 1, as docs/operations.md asks of devices; its PUBACK is not tracked (no sequence number).
        qos: 1,
        messageId: this.id(),
        dup: false,
        retain: false,
      }),
    );
  }

  private id(): number {
    const id = this.nextId;
    this.nextId = id === 65535 ? 1 : id + 1;
    return id;
  }

  private send(seq: number, dup: boolean): void {
    let id = this.id();
    while (this.inflight.has(id)) id = this.id();
    this.inflight.set(id, seq);
    if (dup) this.stats.resent++;
    else {
      this.stats.published++;
      this.sentAt.push([seq, Date.now()]);
    }
    this.socket!.write(
      encode({
        cmd: 'publish',
        topic: upTopic(this.device.productKey, this.device.sn, 'property'),
        payload: Buffer.from(`{"params":{"seq":${seq}}}`),
        qos: 1,
        messageId: id,
        dup,
        retain: false,
      }),
    );
  }

  /** Starts new messages while the window has room (one per `intervalMs` when paced). */
  pump(): void {
    if (!this.connected || this.paused) return;
    const interval = this.o.intervalMs ?? 0;
    if (interval === 0) {
      while (this.inflight.size < this.o.window && this.next < this.o.messages) this.send(this.next++, false);
      return;
    }
    if (this.paceTimer || this.inflight.size >= this.o.window || this.next >= this.o.messages) return;
    const wait = this.lastSent + interval - Date.now();
    if (wait > 0) {
      this.paceTimer = setTimeout(() => {
        this.paceTimer = undefined;
        this.pump();
      }, wait);
      return;
    }
    this.lastSent = Date.now();
    this.send(this.next++, false);
    this.pump();
  }

  private onPacket(p: Packet): void {
    switch (p.cmd) {
      case 'connack':
        if (p.returnCode !== 0) {
          this.stats.refused++;
          this.socket?.destroy();
          return;
        }
        this.connected = true;
        this.stats.connects++;
        if (this.o.subscribeDown) this.subscribe();
        if (this.o.statusMessages) this.publishStatus();
        this.pinger = setInterval(
          () => this.socket?.write(encode({ cmd: 'pingreq' })),
          (this.o.keepaliveS * 1000) / 2,
        );
        for (const seq of this.unsent.splice(0)) this.send(seq, true);
        this.pump();
        return;
      case 'puback': {
        const seq = this.inflight.get(p.messageId!);
        if (seq === undefined) return;
        this.inflight.delete(p.messageId!);
        this.acked.add(seq);
        this.onAck?.();
        this.pump();
        return;
      }
      case 'publish':
        this.received.push({ topic: p.topic, payload: Buffer.from(p.payload) });
        if (p.qos === 1 && p.messageId) this.socket?.write(encode({ cmd: 'puback', messageId: p.messageId }));
        return;
      default:
        return;
    }
  }

  private onClose(): void {
    clearInterval(this.pinger);
    if (this.connected) this.stats.lost++;
    this.connected = false;
    this.socket = undefined;
    // In order: the oldest unacknowledged first on the next connection.
    const again = [...this.inflight.values(), ...this.unsent].sort((a, b) => a - b);
    this.inflight.clear();
    this.unsent = again;
    if (this.stopped) return;
    this.retry = setTimeout(() => this.connect(), (this.o.retryMs ?? 500) * (0.5 + Math.random()));
  }
}

export class Fleet {
  readonly devices: FleetDevice[];
  private ackWaiters: { n: number; resolve: () => void }[] = [];
  private ackCount = 0;

  constructor(devices: TestDevice[], options: FleetOptions) {
    this.devices = devices.map((d) => new FleetDevice(d, options));
    for (const d of this.devices) {
      d.onAck = () => {
        this.ackCount++;
        if (this.ackWaiters.length === 0) return;
        this.ackWaiters = this.ackWaiters.filter((w) => {
          if (this.ackCount < w.n) return true;
          w.resolve();
          return false;
        });
      };
    }
  }

  /** Connects every device, `concurrency` CONNECTs at a time; resolves when all are connected. */
  async connect(timeoutMs = 60_000, concurrency = 100): Promise<void> {
    let i = 0;
    const worker = async () => {
      while (i < this.devices.length) {
        const d = this.devices[i++]!;
        d.connect();
        await waitFor(`${d.device.sn} connected`, () => (d.connected ? true : undefined), timeoutMs, 10);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  start(): void {
    for (const d of this.devices) d.pump();
  }

  get acked(): number {
    return this.ackCount;
  }

  /** Resolves once `n` messages of the fleet have been acknowledged in all. */
  ackedAtLeast(n: number): Promise<void> {
    if (this.ackCount >= n) return Promise.resolve();
    return new Promise((resolve) => this.ackWaiters.push({ n, resolve }));
  }

  get done(): boolean {
    return this.devices.every((d) => d.stopped || d.done);
  }

  totals() {
    const t = { connects: 0, refused: 0, lost: 0, resent: 0, published: 0 };
    for (const d of this.devices) for (const k of Object.keys(t) as (keyof typeof t)[]) t[k] += d.stats[k];
    return t;
  }

  close(): void {
    for (const d of this.devices) d.drop();
  }
}

/**
 * Checks stored rows against what the devices saw acknowledged: `lost` acknowledged sequence numbers not stored,
 * `duplicates` rows beyond the first per (device, seq), `stored` distinct (device, seq).
 */
export function compare(fleet: Fleet, stored: Map<string, number[]>) {
  let lost = 0;
  let duplicates = 0;
  let distinct = 0;
  let acked = 0;
  const lostExamples: string[] = [];
  for (const d of fleet.devices) {
    const rows = stored.get(d.device.sn) ?? [];
    const set = new Set(rows);
    distinct += set.size;
    duplicates += rows.length - set.size;
    acked += d.acked.size;
    for (const seq of d.acked) {
      if (!set.has(seq)) {
        lost++;
        if (lostExamples.length < 5) lostExamples.push(`${d.device.sn}#${seq}`);
      }
    }
  }
  return { lost, duplicates, distinct, acked, lostExamples };
}

export function tempDir(name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `cellhub-${name}-`));
  mkdirSync(dir, { recursive: true });
  return dir;
}
