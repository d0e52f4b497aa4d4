// Reliability suite support (not shipped): a Cellhub server in a child process, started from source (bundled) on a
// PostgreSQL database of its own, that a test kills with SIGKILL and starts again on the same database and ports.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { bundleEntry, removeBundles } from '../test/server-process';

const ENTRY = fileURLToPath(new URL('./clock-child.ts', import.meta.url));
const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** The child's entry bundled from the current sources, once per test process (test/server-process.ts). */
const childEntry = (): Promise<string> => bundleEntry(ENTRY);

/** Removes this process's bundles. */
export function removeChildBundle(): void {
  removeBundles();
}
/** The key buildTestApp gives its apps, so a test process may open what the child sealed. */
export const SECRET_KEY = 'test-secret-key-0123456789abcdef-0123456789';
/** The first admin's password in every child (CELLHUB_ADMIN_PASSWORD). */
export const ADMIN_PASSWORD = 'Admin123';
export const PG_BASE = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A PostgreSQL database and a data folder of their own, dropped at the end. */
export interface Store {
  dataDir: string;
  databaseUrl: string;
  drop(): Promise<void>;
}

export async function privateStore(name: string): Promise<Store> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `cellhub-${name}-`));
  const db = `cellhub_${name.replace(/[^a-z0-9_]/g, '_')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_BASE });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${db}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_BASE);
  url.pathname = `/${db}`;
  return {
    dataDir,
    databaseUrl: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_BASE });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      } finally {
        await c.end();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `n` distinct TCP ports nobody listens on now (all held open together, then released). The child keeps them across
 * restarts, so devices reconnect to the same broker address.
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const s = createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

export interface ServerChild {
  port: number;
  mqttPort: number;
  pid: number;
  /** Starts at the wall clock + CLOCK_OFFSET_MS; `advance` moves it on. */
  advance(ms: number): void;
  /** SIGKILL: no shutdown, nothing written on the way out. */
  kill(): Promise<void>;
  /** SIGTERM: the graceful stop. */
  stop(): Promise<void>;
  exited: Promise<void>;
  /** Resident set size of the process in KiB (/proc/<pid>/status VmRSS). */
  rssKb(): number;
  /** The child's process.memoryUsage(). */
  memory(): Promise<NodeJS.MemoryUsage>;
}

export interface ServerChildOptions {
  store: Store;
  port: number;
  mqttPort: number;
  clockOffsetMs?: number;
  env?: Record<string, string>;
  /** Node flags for the child (e.g. --expose-gc). */
  nodeArgs?: string[];
}

export async function startServerChild(o: ServerChildOptions): Promise<ServerChild> {
  const entry = await childEntry();
  const child: ChildProcess = spawn(process.execPath, [...(o.nodeArgs ?? []), entry], {
    cwd: SERVER_DIR,
    env: {
      ...process.env,
      DATA_DIR: o.store.dataDir,
      DATABASE_URL: o.store.databaseUrl,
      PORT: String(o.port),
      MQTT_PORT: String(o.mqttPort),
      SECRET_KEY,
      CELLHUB_ADMIN_PASSWORD: ADMIN_PASSWORD,
      CONSOLE_DIST: path.join(o.store.dataDir, 'no-console'),
      LOG_LEVEL: 'error',
      CLOCK_OFFSET_MS: String(o.clockOffsetMs ?? 0),
      ...o.env,
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    void exited.then(() => reject(new Error('the child server exited before it listened')));
  });
  const info = JSON.parse(line) as { port: number; mqttPort: number; pid: number };
  const memoryWaiters: ((m: NodeJS.MemoryUsage) => void)[] = [];
  let rest = '';
  child.stdout!.on('data', (b: Buffer) => {
    rest += b.toString();
    for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n')) {
      const text = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      if (text.startsWith('{"memory"'))
        memoryWaiters.shift()?.((JSON.parse(text) as { memory: NodeJS.MemoryUsage }).memory);
    }
  });
  return {
    ...info,
    exited,
    advance(ms) {
      child.stdin!.write(`advance ${ms}\n`);
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
    memory() {
      return new Promise((resolve) => {
        memoryWaiters.push(resolve);
        child.stdin!.write('memory\n');
      });
    },
    rssKb() {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${info.pid}/status`, 'utf8'));
      return m ? Number(m[1]) : 0;
    },
  };
}

/** The child's HTTP API as another program calls it: answers `data`, throws on anything but 200. */
export async function api<T = unknown>(
  port: number,
  token: string | undefined,
  method: string,
  url: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${port}${url}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data: T };
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

export async function adminLogin(port: number): Promise<string> {
  const { token } = await api<{ token: string }>(port, undefined, 'POST', '/api/auth/login', {
    username: 'admin',
    password: ADMIN_PASSWORD,
  });
  return token;
}

/** A seeded pseudo-random generator (mulberry32): the same kill moments every run of a seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
