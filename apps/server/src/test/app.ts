import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../app';
import type { Config } from '../config';
import { openDatabase } from '../db/client';
import { migrationsFolder } from '../lib/paths';
import { CapturingSmsProvider } from './capturing-sms';
import { testOutboundAllow } from './outbound';

export const ADMIN_PASSWORD = 'Admin123';
export const USER_PASSWORD = 'User1234';

/** A clock tests can move forward (code and ticket expiry) without sleeping. */
export class TestClock {
  offsetMs = 0;
  private frozenAt: number | undefined;
  now = (): Date => new Date(this.frozenAt ?? Date.now() + this.offsetMs);
  advance(ms: number): void {
    this.offsetMs += ms;
    if (this.frozenAt !== undefined) this.frozenAt += ms;
  }
  /** Stops time (until `advance`), so window boundaries cannot fall in the middle of a test. */
  freeze(): void {
    this.frozenAt = this.now().getTime();
  }
  /** Lets time run again from where it was frozen (the frozen span is skipped, not caught up). */
  thaw(): void {
    if (this.frozenAt === undefined) return;
    this.offsetMs = this.frozenAt - Date.now();
    this.frozenAt = undefined;
  }
  /** Jumps to the start of the next UTC day plus `ms` (fixed-window limits become deterministic). */
  toNextDay(ms = 0): void {
    const now = this.now().getTime();
    const next = Math.ceil(now / 86_400_000) * 86_400_000 + ms;
    this.advance(next - now);
  }
}

export interface TestApp {
  app: FastifyInstance;
  sms: CapturingSmsProvider;
  clock: TestClock;
  dataDir: string;
  inject(opts: InjectOptions & { token?: string }): Promise<LightMyRequestResponse>;
  login(username: string, password: string): Promise<{ token: string; uid: number }>;
  adminToken(): Promise<string>;
  /** Registers a user (role user) and signs them in. */
  createUser(username?: string, password?: string): Promise<{ uid: number; token: string; username: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  /** Called before app.ready(): add throwaway routes for tests. */
  beforeReady?: (app: FastifyInstance) => void | Promise<void>;
}

/**
 * Migrating a fresh database is most of an app's start (PGlite about 3 s, PostgreSQL about 1 s), and every test file
 * builds apps. So one PGlite is migrated once and the others start from its dump (a file in the temporary
 * directory, named by a hash of the migrations), and PostgreSQL test
 * databases are copies of one migrated template database (named by a hash of the migrations, so a new migration
 * makes a new template).
 */
let pgliteTemplate: Promise<Blob> | undefined;
function migratedPglite(): Promise<Blob> {
  // On disk, so the other test files (each imports this module afresh) and workers reuse it.
  const file = path.join(tmpdir(), `cellhub-pglite-${migrationsHash()}.tar`);
  pgliteTemplate ??= (async () => {
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    const database = await openDatabase('memory://', tmpdir());
    try {
      await database.migrate();
      const dump = await database.dumpDataDir!();
      const partial = `${file}.${process.pid}`;
      writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      renameSync(partial, file);
      return dump;
    } finally {
      await database.close();
    }
  })();
  return pgliteTemplate;
}

/** Names the migrated templates: the journal and every migration's text, so an edited migration makes a new one. */
const migrationsHash = (): string => {
  const hash = createHash('sha256').update(
    readFileSync(path.join(migrationsFolder(), 'meta', '_journal.json')),
  );
  for (const file of readdirSync(migrationsFolder())
    .filter((f) => f.endsWith('.sql'))
    .sort())
    hash.update(file).update(readFileSync(path.join(migrationsFolder(), file)));
  return hash.digest('hex').slice(0, 12);
};

// Arbitrary constant: one worker creates the template while the others wait.
const TEMPLATE_LOCK = 727_002;

async function templateDatabase(admin: pg.Client, base: string): Promise<string> {
  const name = `cellhub_tpl_${migrationsHash()}`;
  const exists = async () =>
    (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  if (await exists()) return name;
  await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
  try {
    if (await exists()) return name;
    // Built under another name and renamed when complete, so no one copies a half-migrated template.
    const building = `${name}_building`;
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${building}`);
    const url = new URL(base);
    url.pathname = `/${building}`;
    const database = await openDatabase(url.toString(), tmpdir());
    try {
      await database.migrate();
    } finally {
      await database.close();
    }
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    return name;
  } finally {
    await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
  }
}

/** A fresh PostgreSQL database per app when TEST_DB=postgres, else PGlite in memory (from the worker's dump). */
async function testDatabase(): Promise<{ url: string; template?: Blob; drop(): Promise<void> }> {
  if (process.env.TEST_DB !== 'postgres') {
    return { url: 'memory://', template: await migratedPglite(), drop: async () => undefined };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL');
  const name = `cellhub_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    const template = await templateDatabase(admin, base);
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

let counter = 0;

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cellhub-test-'));
  const database = await testDatabase();
  const sms = new CapturingSmsProvider();
  const clock = new TestClock();
  const cleanUp = async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  let app: FastifyInstance;
  try {
    app = await buildApp({
      env: {},
      logger: false,
      smsProvider: sms,
      now: clock.now,
      pgliteTemplate: database.template,
      config: {
        dataDir,
        databaseUrl: database.url,
        host: '127.0.0.1',
        mqttPort: 0,
        adminPassword: ADMIN_PASSWORD,
        secretKey: 'test-secret-key-0123456789abcdef-0123456789',
        consoleDist: path.join(dataDir, 'no-console'),
        // The flood guard has its own tests; elsewhere it would only make tests depend on their speed.
        rateLimitPerMinute: 0,
        // Tests share one Mosquitto (TEST_MQTT_URL) and run in parallel: apps of different tests must not split
        // each other's device traffic in one shared-subscription group. Instances of one test pass the same group.
        mqttShareGroup: `test-${randomBytes(6).toString('hex')}`,
        // The fakes this test file started, and nothing else (./outbound.ts); read on every call, so fakes started
        // after the app are reachable too.
        outboundAllow: testOutboundAllow,
        // TEST_FILE_STORE=postgres runs the upload and download tests on the shared file store (docs/storage.md).
        fileStore: process.env.TEST_FILE_STORE === 'postgres' ? 'postgres' : 'dir',
        ...options.config,
      },
    });
  } catch (err) {
    await cleanUp();
    throw err;
  }
  try {
    await options.beforeReady?.(app);
    await app.ready();
  } catch (err) {
    await app.close().catch(() => undefined);
    await cleanUp();
    throw err;
  }

  const inject: TestApp['inject'] = ({ token, headers, ...rest }) =>
    app.inject({ ...rest, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

  const login: TestApp['login'] = async (username, password) => {
    const res = await inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });
    if (res.statusCode !== 200) throw new Error(`login ${username} failed: ${res.body}`);
    const data = res.json().data as { token: string; uid: number };
    return { token: data.token, uid: data.uid };
  };

  return {
    app,
    sms,
    clock,
    dataDir,
    inject,
    login,
    adminToken: async () => (await login('admin', ADMIN_PASSWORD)).token,
    async createUser(
      username = `user${++counter}_${randomBytes(2).toString('hex')}`,
      password = USER_PASSWORD,
    ) {
      const res = await inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username, password, password2: password },
      });
      if (res.statusCode !== 200) throw new Error(`register ${username} failed: ${res.body}`);
      const { token, uid } = await login(username, password);
      return { uid, token, username };
    },
    async close() {
      await app.close();
      await cleanUp();
    },
  };
}

/** Asserts the error body of CONTRACT.md and returns it. */
export function errorOf(res: LightMyRequestResponse): { code: number; message: string; details?: unknown } {
  const body = res.json() as Record<string, unknown>;
  if ('status' in body) throw new Error(`error body has a status field: ${res.body}`);
  return body as { code: number; message: string; details?: unknown };
}
