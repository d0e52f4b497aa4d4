// Starts a Cellhub server for a benchmark in its own process (as in production) and talks to its API.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const ADMIN_PASSWORD = 'bench-admin-password';
/** The server bundle to run; CELLHUB_SERVER_ENTRY points a bench at another build. */
export const serverEntry = process.env.CELLHUB_SERVER_ENTRY ?? join(root, 'apps/server/dist/main.js');

export async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** Newest modification time under a folder (sources), to tell a stale build from a fresh one. */
function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}
const stale = (bundle, ...sourceDirs) =>
  !existsSync(bundle) || sourceDirs.some((d) => newestMtime(join(root, d)) > statSync(bundle).mtimeMs);

/** Builds the server if its bundle is missing or older than its sources (or when asked). */
export function ensureServerBuilt(force = false) {
  if (process.env.CELLHUB_SERVER_ENTRY) return;
  if (!force && !stale(serverEntry, 'apps/server/src', 'packages/contract/src')) return;
  const r = spawnSync('npm', ['run', 'build', '-w', 'apps/server'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('server build failed');
}

/** Starts the built server with the bench's environment; resolves once /api/health answers. */
export async function startServer(env = {}) {
  // A bench may pin its ports (PORT, MQTT_PORT in `env`), e.g. to stay in a range or to build PUBLIC_URL.
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const mqttPort = env.MQTT_URL ? undefined : env.MQTT_PORT ? Number(env.MQTT_PORT) : await freePort();
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'cellhub-bench-'));
  const logPath = join(dataDir, 'server.log');
  const log = createWriteStream(logPath);
  // CELLHUB_SERVER_NODE_ARGS: extra node flags for the server only, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.CELLHUB_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, serverEntry], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      ...(mqttPort ? { MQTT_PORT: String(mqttPort) } : {}),
      DATA_DIR: dataDir,
      CELLHUB_ADMIN_PASSWORD: ADMIN_PASSWORD,
      // The bench reads thousands of device secrets; the per-route flood guard would only slow set-up.
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  let exited = false;
  child.once('exit', () => (exited = true));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`server exited during start-up; see ${logPath}`);
    try {
      const res = await fetch(`${base}/api/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      // Left running, it would hold the bench's ports and answer the next run in place of that run's server.
      child.kill('SIGKILL');
      throw new Error(`server not healthy after 60 s; see ${logPath}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    pid: child.pid,
    base,
    port,
    mqttPort,
    dataDir,
    logPath,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      await Promise.race([
        new Promise((r) => child.once('exit', r)),
        new Promise((r) => setTimeout(r, 15_000)).then(() => child.kill('SIGKILL')),
      ]);
    },
  };
}

/** Minimal API client: envelope of CONTRACT.md, Bearer token. */
export class Api {
  constructor(base) {
    this.base = base;
  }

  async call(method, path, body) {
    const res = await fetch(this.base + path, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json().catch(() => ({}));
    if (!res.ok || json.status !== true)
      throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return json;
  }

  async login(username = 'admin', password = ADMIN_PASSWORD) {
    this.token = (await this.call('POST', '/api/auth/login', { username, password })).data.token;
  }

  /** Creates a product and `count` devices, and returns their identities with secrets. */
  async createFleet({ productKey, productName, count, prefix, properties }) {
    await this.createProduct({ productKey, productName, properties });
    const sns = Array.from({ length: count }, (_, i) => `${prefix}${String(i + 1).padStart(6, '0')}`);
    for (let i = 0; i < sns.length; i += 500)
      await this.call('POST', '/api/devices', { product_key: productKey, sn: sns.slice(i, i + 500) });
    const out = new Array(sns.length);
    let next = 0;
    const worker = async () => {
      while (next < sns.length) {
        const i = next++;
        const d = (await this.call('GET', `/api/devices/${sns[i]}`)).data;
        out[i] = { sn: d.sn, product_key: d.product_key, secret: d.secret };
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    return out;
  }

  async createProduct({ productKey, productName, properties }) {
    await this.call('POST', '/api/products', {
      product_key: productKey,
      name: productName,
      ...(properties ? { properties } : {}),
    });
  }
}

/** Peak and current memory of a process, from /proc (Linux). */
export function procStatus(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}
