#!/usr/bin/env node
// npm run bench:scene — the live view of a scene with 200 bound widgets, every variable updating once a second
// (40 devsim devices x 5 properties over MQTT), in Chromium at 4x CPU throttling for 60 s. Prints main-thread busy
// time (CDP Performance.getMetrics TaskDuration delta / wall time; target < 30 %), dropped frames (rAF gaps over
// 1.5 frames), JS heap growth (target < 10 %) and the load average.
// Options: --no-build (reuse apps/console/dist and apps/server/dist), --dist DIR (a console built elsewhere),
// --seconds N (default 60).
import { spawn, spawnSync } from 'node:child_process';
/* global window, document, requestAnimationFrame, cancelAnimationFrame -- page.evaluate runs in the browser */
import { existsSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const dist = resolve(opt('--dist', join(root, 'apps/console/dist')));
const seconds = Number(opt('--seconds', 60));
const PORT = 18491;
const MQTT = 18492;
const DEVICES = 40;
const KEYS = ['temperature', 'humidity', 'rssi', 'csq', 'voltage'];
const base = `http://127.0.0.1:${PORT}`;
const password = 'BenchScene1234';

if (!argv.includes('--no-build')) {
  for (const w of ['apps/console', 'apps/server']) {
    const r = spawnSync('npm', ['run', 'build', '-w', w], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
}
if (!existsSync(join(dist, 'index.html'))) {
  console.error(`${dist}/index.html is missing`);
  process.exit(1);
}

const dataDir = join(tmpdir(), `cellhub-bench-scene-${process.pid}`);
rmSync(dataDir, { recursive: true, force: true });
const children = [];
const server = spawn('node', ['apps/server/dist/main.js'], {
  cwd: root,
  env: {
    ...process.env,
    PORT: String(PORT),
    MQTT_PORT: String(MQTT),
    DATA_DIR: dataDir,
    DATABASE_URL: 'memory://',
    CONSOLE_DIST: dist,
    CELLHUB_ADMIN_PASSWORD: password,
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
children.push(server);
const stop = () => children.forEach((c) => c.kill());
process.on('exit', stop);

async function api(method, path, body, token) {
  const r = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const j = await r.json();
  if (!r.ok) throw new Error(`${method} ${path}: ${JSON.stringify(j)}`);
  return j.data;
}

async function until(what, fn, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch {
      // not yet
    }
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

await until('server', async () => (await fetch(`${base}/api/health`)).ok);
const { token } = await api('POST', '/api/auth/login', { username: 'admin', password });
const { product_key: pk } = await api('POST', '/api/products', { name: 'Bench scene' }, token);

// The fleet: devsim creates the devices and reports every property once a second.
const sim = spawn(
  'npm',
  [
    'run',
    'devsim',
    '--',
    '--api',
    base,
    '--user',
    'admin',
    '--password',
    password,
    '--product',
    pk,
    '--create',
    String(DEVICES),
    '--prefix',
    'SCN',
    '--rate',
    '1',
    '--props',
    KEYS.join(','),
    '--url',
    `mqtt://127.0.0.1:${MQTT}`,
  ],
  { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], detached: false },
);
children.push(sim);
const sns = Array.from({ length: DEVICES }, (_, i) => `SCN${String(i + 1).padStart(6, '0')}`);
await until(
  'devices online',
  async () =>
    (await api('GET', `/api/devices?current=1&per_page=100&product_key=${pk}`, undefined, token)).filter(
      (d) => d.online === 1,
    ).length >= DEVICES,
  120_000,
).catch(async () => {
  const list = await fetch(`${base}/api/devices?current=1&per_page=100&product_key=${pk}`, {
    headers: { authorization: `Bearer ${token}` },
  }).then((r) => r.json());
  console.error(`devices: ${list.total}, online: ${list.data?.filter((d) => d.online === 1).length}`);
  throw new Error('the devsim fleet did not come online');
});

// 200 widgets: one per (device, property), alternating value / gauge / bar / lamp, and 8 trends.
const widgets = [];
let i = 0;
for (const sn of sns)
  for (const key of KEYS) {
    const col = i % 20;
    const row = Math.floor(i / 20);
    const x = 20 + col * 94;
    const y = 20 + row * 105;
    const id = `w${i}`;
    const binding = { sn, key };
    const kind = i < 8 ? 'trend' : ['value', 'gauge', 'bar', 'value'][i % 4];
    const common = { id, x, y, w: 90, h: 100, z: i, style: {}, binding };
    if (kind === 'trend') widgets.push({ ...common, kind, minutes: 5 });
    else if (kind === 'value')
      widgets.push({
        ...common,
        kind,
        h: 50,
        unit: '',
        decimals: 1,
        thresholds: [{ from: 50, color: '#f53f3f' }],
      });
    else if (kind === 'gauge')
      widgets.push({ ...common, kind, min: -50, max: 100, unit: '', decimals: 1, thresholds: [] });
    else widgets.push({ ...common, kind, w: 30, min: -50, max: 100, orientation: 'vertical' });
    i++;
  }
const doc = { format: 'cellhub.scene', version: 1, canvas: { width: 1920, height: 1080, grid: 10 }, widgets };
const scene = await api('POST', '/api/scenes', { name: 'Bench 200', remark: '', document: doc }, token);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
const ctx = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
const page = await ctx.newPage();
await page.addInitScript((t) => localStorage.setItem('token', t), token);
await page.goto(`${base}/scene/detail/${scene.id}`);
await page.waitForSelector('[data-testid="scene-view"] [data-widget="w199"]');
// Values arrive: a widget shows a number.
await page.waitForFunction(
  () => /\d/.test(document.querySelector('[data-widget="w9"] [data-role="value"]')?.textContent ?? ''),
  null,
  { timeout: 30_000 },
);

const cdp = await ctx.newCDPSession(page);
await cdp.send('Performance.enable');
await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
await page.evaluate(() => {
  window.__gaps = [];
  let last = performance.now();
  const loop = (t) => {
    window.__gaps.push(t - last);
    last = t;
    window.__raf = requestAnimationFrame(loop);
  };
  window.__raf = requestAnimationFrame(loop);
});
const metrics = async () =>
  Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
await cdp.send('HeapProfiler.collectGarbage');
const m0 = await metrics();
const t0 = Date.now();
const load0 = loadavg()[0];
// A value changed on screen during the run (not only at start).
const sample = () =>
  page.evaluate(() => document.querySelector('[data-widget="w9"] [data-role="value"]')?.textContent);
const before = await sample();
await new Promise((r) => setTimeout(r, seconds * 1000));
const after = await sample();
const m1 = await metrics();
await cdp.send('HeapProfiler.collectGarbage');
const m2 = await metrics();
const wall = (Date.now() - t0) / 1000;
const gaps = await page.evaluate(() => {
  cancelAnimationFrame(window.__raf);
  return window.__gaps.slice(1);
});
const frame = 1000 / 60;
const dropped = gaps.filter((g) => g > 1.5 * frame).length;
const busy = ((m1.TaskDuration - m0.TaskDuration) / wall) * 100;
const heap = ((m2.JSHeapUsedSize - m0.JSHeapUsedSize) / m0.JSHeapUsedSize) * 100;
await browser.close();
stop();

console.log(
  `scene bench: ${widgets.length} bound widgets, ${DEVICES} devices x ${KEYS.length} properties at 1/s, 4x CPU throttling, ${wall.toFixed(0)} s`,
);
console.log(`  value moved during the run: ${before} -> ${after}`);
console.log(`  main-thread busy: ${busy.toFixed(1)} % (target < 30 %)`);
console.log(
  `  frames: ${gaps.length}, dropped (gap > 1.5 frames): ${dropped} (${((dropped / Math.max(1, gaps.length)) * 100).toFixed(1)} %)`,
);
console.log(
  `  JS heap: ${(m0.JSHeapUsedSize / 1e6).toFixed(1)} MB -> ${(m2.JSHeapUsedSize / 1e6).toFixed(1)} MB after GC (${heap >= 0 ? '+' : ''}${heap.toFixed(1)} %, target < 10 %)`,
);
console.log(
  `  load average (1 min): ${load0.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end (2 cores)`,
);
process.exit(0);
