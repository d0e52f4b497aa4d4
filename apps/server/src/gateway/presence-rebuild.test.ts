import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { upTopic } from '@cellhub/contract/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, buildTestApp, type TestApp } from '../test/app';
import { eventually, type TestDevice } from '../test/gateway-test-kit';
import { RawMqtt } from '../test/raw-mqtt';
import { onPostgres, type SharedStore, sharedStore } from '../test/shared-store';
import { DEFAULT_PRESENCE_OPTIONS, REBUILT_REASON } from './presence-keeper';

/**
 * Presence after a crash: a server killed with SIGKILL writes no disconnect; the next start (and, on PostgreSQL, the
 * instance that keeps running beside it) sets offline what did not come back within 1.5 x its keep-alive, and
 * nothing else. The killed server runs in a process of its own (src/test/presence-child.ts).
 */

const CHILD = fileURLToPath(new URL('../test/presence-child.ts', import.meta.url));
// The key buildTestApp gives its apps: device secrets are encrypted under it, and both servers read them.
const SECRET_KEY = 'test-secret-key-0123456789abcdef-0123456789';
/** Both servers beat often and give up on each other soon, so the test takes seconds, not minutes. */
// An instance is taken for dead after 3 s without a beat: short for the test, long enough for a busy CI machine.
const FAST = { heartbeatMs: 300, instanceTimeoutMs: 3000 };

interface Child {
  port: number;
  mqttPort: number;
  instance: string;
  kill(): Promise<void>;
}

async function startChild(store: SharedStore, env: Record<string, string> = {}): Promise<Child> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: {
      ...process.env,
      DATA_DIR: store.dataDir,
      ...(store.databaseUrl ? { DATABASE_URL: store.databaseUrl } : {}),
      PORT: '0',
      MQTT_PORT: '0',
      SECRET_KEY,
      CELLHUB_ADMIN_PASSWORD: ADMIN_PASSWORD,
      CONSOLE_DIST: path.join(store.dataDir, 'no-console'),
      LOG_LEVEL: 'error',
      PRESENCE_HEARTBEAT_MS: String(FAST.heartbeatMs),
      PRESENCE_INSTANCE_TIMEOUT_MS: String(FAST.instanceTimeoutMs),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
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
  const info = JSON.parse(line) as Omit<Child, 'kill'>;
  return {
    ...info,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The child's HTTP API, as the console calls it. */
async function api<T>(port: number, token: string | undefined, method: string, url: string, body?: unknown) {
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

/** Signs in as admin on the child and creates a product with these devices; returns them with their secrets. */
async function childDevices(port: number, sns: string[]): Promise<{ token: string; devices: TestDevice[] }> {
  const { token } = await api<{ token: string }>(port, undefined, 'POST', '/api/auth/login', {
    username: 'admin',
    password: ADMIN_PASSWORD,
  });
  const { product_key: productKey } = await api<{ product_key: string }>(
    port,
    token,
    'POST',
    '/api/products',
    {
      name: 'Rebuild',
    },
  );
  await api(port, token, 'POST', '/api/devices', { product_key: productKey, sn: sns });
  const devices: TestDevice[] = [];
  for (const sn of sns) {
    const d = await api<{ secret: string }>(port, token, 'GET', `/api/devices/${sn}`);
    devices.push({ sn, productKey, secret: d.secret });
  }
  return { token, devices };
}

const state = async (t: TestApp, token: string, sn: string) => {
  const r = await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token });
  return (r.json() as { data: { online: number } }).data.online;
};
const disconnects = async (t: TestApp, token: string, sn: string) => {
  const r = await t.inject({ method: 'GET', url: `/api/devices/${sn}/logs?event=disconnect`, token });
  return (r.json() as { data: { detail: { reason?: string; instance?: string } }[] }).data.map(
    (l) => l.detail,
  );
};

/** QUICK's keep-alive: short, yet its pings (every half of it) survive a busy test process. */
const QUICK_KEEPALIVE_S = 3;

/** A quiet DTU: connected with a keep-alive, sending nothing but its PINGREQs. */
interface Quiet {
  raw: RawMqtt;
  /** The connection ends without a DISCONNECT, as when its server dies. */
  drop(): void;
}

async function connectQuiet(mqttPort: number, d: TestDevice, keepalive: number): Promise<Quiet> {
  const raw = await RawMqtt.open({ tcp: mqttPort }, 4);
  raw.send(raw.connectPacket(d, { keepalive }));
  expect((await raw.next('connack')).returnCode).toBe(0);
  const pinger = setInterval(() => raw.send({ cmd: 'pingreq' }), (keepalive * 1000) / 2);
  return {
    raw,
    drop() {
      clearInterval(pinger);
      raw.destroy();
    },
  };
}

let saved: typeof DEFAULT_PRESENCE_OPTIONS;
beforeAll(() => {
  saved = { ...DEFAULT_PRESENCE_OPTIONS };
  Object.assign(DEFAULT_PRESENCE_OPTIONS, FAST);
});
afterAll(() => {
  Object.assign(DEFAULT_PRESENCE_OPTIONS, saved);
});

describe(`a server killed with devices connected (${onPostgres ? 'PostgreSQL, two instances' : 'PGlite'})`, () => {
  let store: SharedStore;
  beforeAll(async () => {
    store = await sharedStore('presence');
  });
  afterAll(() => store.drop());

  it('sets offline what did not come back within 1.5 x its keep-alive, and nothing else', async () => {
    const raws: Quiet[] = [];
    let a: Child | undefined = await startChild(store);
    let b: TestApp | undefined;
    try {
      const { token, devices } = await childDevices(a.port, ['KB-BACK', 'KB-GONE', 'KB-LONG', 'KB-QUICK']);
      const [back, gone, long, quick] = devices as [TestDevice, TestDevice, TestDevice, TestDevice];
      const config = { dataDir: store.dataDir, databaseUrl: store.databaseUrl };
      // BACK comes back after the crash, GONE (same keep-alive) does not: it is the sentinel that BACK's time
      // passed. LONG's keep-alive is far longer. QUICK (3 s) would be gone soon if its instance were.
      raws.push(await connectQuiet(a.mqttPort, back, 12));
      raws.push(await connectQuiet(a.mqttPort, gone, 12));
      raws.push(await connectQuiet(a.mqttPort, long, 600));
      raws.push(await connectQuiet(a.mqttPort, quick, QUICK_KEEPALIVE_S));
      await eventually(async () => {
        const list = await api<{ online: number }[]>(a!.port, token, 'GET', '/api/devices?per_page=10');
        return list.filter((d) => d.online === 1).length === 4 ? true : undefined;
      }, 15_000);
      const connectedAt = Date.now();

      if (onPostgres) {
        // A second instance beside the first: however long QUICK has been connected to the other one, its
        // sweeps leave it online while that one beats.
        b = await buildTestApp({ config });
        await eventually(async () =>
          Date.now() > connectedAt + 1500 * QUICK_KEEPALIVE_S + 3 * FAST.heartbeatMs ? true : undefined,
        );
        await b.app.gateway.keeper.runNow();
        const bToken = await b.adminToken();
        for (const d of devices) expect(await state(b, bToken, d.sn), d.sn).toBe(1);
      }

      const instance = a.instance;
      await a.kill();
      a = undefined;
      for (const r of raws.splice(0)) r.drop();
      b ??= await buildTestApp({ config });
      const admin = await b.adminToken();
      raws.push(await connectQuiet(b.app.broker.port!, back, 12));

      await eventually(async () => ((await state(b!, admin, gone.sn)) === 0 ? true : undefined), 60_000);
      expect(await disconnects(b, admin, gone.sn)).toEqual([{ reason: REBUILT_REASON, instance }]);
      expect(await disconnects(b, admin, quick.sn)).toEqual([{ reason: REBUILT_REASON, instance }]);
      expect(await state(b, admin, quick.sn)).toBe(0);
      // Came back in time, to the other instance: left alone.
      expect(await state(b, admin, back.sn)).toBe(1);
      expect(await disconnects(b, admin, back.sn)).toEqual([]);
      // 1.5 x 600 s have not passed.
      expect(await state(b, admin, long.sn)).toBe(1);
      expect(await disconnects(b, admin, long.sn)).toEqual([]);
    } finally {
      for (const r of raws) r.drop();
      await a?.kill();
      await b?.close();
    }
  }, 180_000);
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A Mosquitto of this test's own. */
async function mosquitto(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'cellhub-presence-mosquitto-'));
  const conf = path.join(dir, 'mosquitto.conf');
  writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\n`);
  const child = spawn('/usr/sbin/mosquitto', ['-c', conf], { stdio: 'ignore' });
  await eventually(
    () =>
      new Promise<true | undefined>((resolve) => {
        const s = createServer();
        s.once('error', () => resolve(true));
        s.listen(port, '127.0.0.1', () => s.close(() => resolve(undefined)));
      }),
  );
  return {
    url: `mqtt://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe.skipIf(!existsSync('/usr/sbin/mosquitto'))('a server killed on an external broker', () => {
  let store: SharedStore;
  beforeAll(async () => {
    store = await sharedStore('presence-ext');
  });
  afterAll(() => store.drop());

  it("leaves the broker's connections online, and sets offline what no instance holds", async () => {
    const broker = await mosquitto();
    const raws: Quiet[] = [];
    let a: Child | undefined;
    let b: TestApp | undefined;
    try {
      a = await startChild(store, { MQTT_URL: broker.url, MQTT_SHARE_GROUP: 'presence' });
      const { token, devices } = await childDevices(a.port, ['KE-STAY', 'KE-ORPHAN']);
      const [stay, orphan] = devices as [TestDevice, TestDevice];
      // STAY is connected to the broker, quiet, with a keep-alive of 1 s: the broker holds it, not a server.
      const mqttPort = Number(new URL(broker.url).port);
      const quiet = await connectQuiet(mqttPort, stay, 1);
      raws.push(quiet);
      quiet.raw.send({
        cmd: 'publish',
        topic: upTopic(stay.productKey, stay.sn, 'status'),
        payload: Buffer.from('{"online":1}'),
        qos: 1,
        messageId: 1,
        dup: false,
        retain: false,
      });
      await eventually(async () => {
        const d = await api<{ online: number }>(a!.port, token, 'GET', `/api/devices/${stay.sn}`);
        return d.online === 1 ? true : undefined;
      }, 15_000);
      await a.kill();
      a = undefined;

      b = await buildTestApp({
        config: {
          dataDir: store.dataDir,
          databaseUrl: store.databaseUrl,
          mqttUrl: broker.url,
          mqttShareGroup: 'presence',
        },
      });
      const admin = await b.adminToken();
      // ORPHAN: online with no record of who holds it (as rows from before records existed), silent for long.
      await b.app.deps.db.execute(sql`
        update devices set online = 1, lastcommunicationat = now() - interval '1 hour' where sn = ${orphan.sn}`);
      await eventually(async () => ((await state(b!, admin, orphan.sn)) === 0 ? true : undefined), 30_000);
      expect(await disconnects(b, admin, orphan.sn)).toEqual([{ reason: REBUILT_REASON, instance: null }]);
      // Sweeps ran well past 1.5 x STAY's keep-alive since its server died: the broker still holds it.
      expect(await state(b, admin, stay.sn)).toBe(1);
      expect(await disconnects(b, admin, stay.sn)).toEqual([]);
    } finally {
      for (const r of raws) r.drop();
      await a?.kill();
      await b?.close();
      await broker.stop();
    }
  }, 180_000);
});
