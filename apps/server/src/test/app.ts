import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../app';
import type { Config } from '../config';
import { CapturingSmsProvider } from '../lib/sms';

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

/** A fresh PostgreSQL database per app when TEST_DB=postgres, else PGlite in memory. */
async function testDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (process.env.TEST_DB !== 'postgres') return { url: 'memory://', drop: async () => undefined };
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL');
  const name = `cellhub_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
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
