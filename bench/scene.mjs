#!/usr/bin/env node
// npm run bench:scene — the live view of a scene with 200 bound widgets, every variable updating once a second
// (40 devsim devices x 5 properties over MQTT), in Chromium at 4x CPU throttling for 60 s. Prints main-thread busy
// time (CDP Performance.getMetrics TaskDuration delta / wall time; target < 30 %), dropped frames (the compositor's
// frame reports, as DevTools counts them), JS heap growth after GC (target < 10 %), how many value changes reached
// the page, and the load average.
//
// The server runs as bench/lib/server.mjs starts it (its own process, a temporary DATA_DIR, no flood guard);
// CELLHUB_SERVER_ENTRY runs another server bundle. The fleet is devsim's Fleet in a child process fed with the
// identities the bench created (no second login, no npm wrapper, so stopping the bench stops the devices).
// Options: --no-build (reuse apps/console/dist and the server bundle), --dist DIR (a console built elsewhere),
// --seconds N (default 60), --port N (HTTP; MQTT is N+1; default 19110), --devices N (default 40).
/* global window, document, MutationObserver -- page scripts */
import { fork, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { Api, ensureServerBuilt, root, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    dist: { type: 'string' },
    seconds: { type: 'string', default: '60' },
    port: { type: 'string', default: '19110' },
    devices: { type: 'string', default: '40' },
    'no-build': { type: 'boolean', default: false },
    /** Writes a CPU profile of the page during the measurement and prints its heaviest functions. */
    profile: { type: 'string' },
  },
});
const dist = resolve(values.dist ?? join(root, 'apps/console/dist'));
const SECONDS = Number(values.seconds);
const PORT = Number(values.port);
const DEVICES = Number(values.devices);
const KEYS = ['temperature', 'humidity', 'rssi', 'csq', 'voltage'];
const started = Date.now();
const step = (what) => console.error(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${what}`);

if (!values['no-build']) {
  if (!values.dist) {
    step('building the console');
    const r = spawnSync('npm', ['run', 'build', '-w', 'apps/console'], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  ensureServerBuilt();
}
if (!existsSync(join(dist, 'index.html'))) {
  console.error(`${dist}/index.html is missing (build the console, or pass --dist)`);
  process.exit(1);
}

/** Everything started here, stopped on every way out (a hung run left devices and servers behind before). */
const cleanups = [];
let cleaning;
async function cleanup() {
  cleaning ??= (async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => void cleanup().then(() => process.exit(130)));

/** Resolves with `fn()`'s first truthy answer; each try has its own time limit so one hung call cannot stall. */
async function until(what, fn, ms) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const v = await Promise.race([
        fn(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('try timed out')), 10_000)),
      ]);
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end)
      throw new Error(`timed out after ${ms / 1000} s: ${what}${last ? ` (${last.message})` : ''}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'cellhub-bench-scene-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  step(`starting the server on 127.0.0.1:${PORT} (MQTT ${PORT + 1})`);
  const server = await startServer({
    PORT: String(PORT),
    MQTT_PORT: String(PORT + 1),
    DATA_DIR: dataDir,
    CONSOLE_DIST: dist,
    LOG_LEVEL: 'warn',
  });
  cleanups.push(() => server.stop());
  const api = new Api(server.base);
  await api.login();

  const productKey = `pkscene${Date.now().toString(36)}`;
  step(`creating product ${productKey} and ${DEVICES} devices`);
  const identities = await api.createFleet({
    productKey,
    productName: 'Bench scene',
    count: DEVICES,
    prefix: 'SCN',
  });
  const sns = identities.map((d) => d.sn);
  const idFile = join(dataDir, 'identities.json');
  writeFileSync(idFile, JSON.stringify(identities));

  // The fleet: devsim's CLI run directly with node + tsx (an `npm run devsim` wrapper survived `kill` before and
  // kept 40 devices connected to the next run's broker).
  step('starting the devsim fleet');
  const sim = fork(
    join(root, 'apps/devsim/src/cli.ts'),
    [
      '--file',
      idFile,
      '--url',
      `mqtt://127.0.0.1:${server.mqttPort}`,
      '--rate',
      '1',
      '--props',
      KEYS.join(','),
      '--info-every',
      '0',
      '--status-every',
      '10',
    ],
    { cwd: root, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
  );
  let simExit;
  sim.once('exit', (code) => (simExit = code));
  sim.stdout.on('data', (b) => process.stderr.write(`  devsim: ${b}`));
  cleanups.push(
    () =>
      new Promise((r) => {
        if (simExit !== undefined) return r();
        sim.once('exit', r);
        sim.kill('SIGTERM');
        setTimeout(() => sim.kill('SIGKILL'), 5000);
      }),
  );
  await until(
    `${DEVICES} devices online`,
    async () => {
      if (simExit !== undefined) throw new Error(`devsim exited with ${simExit}`);
      const list = await api.call('GET', `/api/devices?current=1&per_page=100&product_key=${productKey}`);
      return list.data.filter((d) => d.online === 1).length >= DEVICES;
    },
    120_000,
  );

  // 200 widgets: one per (device, property), alternating value / gauge / bar / lamp-like values, and 8 trends.
  const widgets = [];
  let i = 0;
  for (const sn of sns)
    for (const key of KEYS) {
      const col = i % 20;
      const row = Math.floor(i / 20);
      const id = `w${i}`;
      const common = {
        id,
        x: 20 + col * 94,
        y: 20 + row * 105,
        w: 90,
        h: 100,
        z: i,
        style: {},
        binding: { sn, key },
      };
      const kind = i < 8 ? 'trend' : ['value', 'gauge', 'bar', 'value'][i % 4];
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
        widgets.push({ ...common, kind, min: -120, max: 100, unit: '', decimals: 1, thresholds: [] });
      else widgets.push({ ...common, kind, w: 30, min: -120, max: 100, orientation: 'vertical' });
      i++;
    }
  const doc = {
    format: 'cellhub.scene',
    version: 1,
    canvas: { width: 1920, height: 1080, grid: 10 },
    widgets,
  };
  const scene = (await api.call('POST', '/api/scenes', { name: 'Bench 200', remark: '', document: doc }))
    .data;

  step('opening the live view in Chromium');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  cleanups.push(() => browser.close());
  const ctx = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
  const page = await ctx.newPage();
  await page.addInitScript((t) => localStorage.setItem('token', t), api.token);
  await page.goto(`${server.base}/scene/detail/${scene.id}`);
  await page.waitForSelector(`[data-testid="scene-view"] [data-widget="w${widgets.length - 1}"]`, {
    timeout: 60_000,
  });
  // Values arrive: a value widget shows a number.
  await page.waitForFunction(
    () => /\d/.test(document.querySelector('[data-widget="w9"] [data-role="value"]')?.textContent ?? ''),
    null,
    { timeout: 60_000 },
  );

  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  // How many value texts changed on screen (proof that the page kept up with the updates).
  await page.evaluate(() => {
    window.__changes = 0;
    window.__mo = new MutationObserver((list) => (window.__changes += list.length));
    for (const el of document.querySelectorAll('[data-role="value"]'))
      window.__mo.observe(el, { characterData: true, childList: true, subtree: true });
  });
  const metrics = async () =>
    Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  await cdp.send('HeapProfiler.collectGarbage');
  const m0 = await metrics();
  const t0 = Date.now();
  const load0 = loadavg()[0];
  step(`measuring for ${SECONDS} s at 4x CPU throttling`);
  if (values.profile) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    await cdp.send('Profiler.start');
  }
  // Frames from the compositor's own frame reports (the source of DevTools' dropped-frame count), recorded from the
  // compositor thread: a requestAnimationFrame loop in the page would make the page draw 60 frames a second it
  // otherwise never asks for, and that loop alone cost about 20 points of main-thread busy time at 4x throttling.
  await browser.startTracing(page, { categories: ['benchmark'] });
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const m1 = await metrics();
  const wall = (Date.now() - t0) / 1000;
  const load1 = loadavg()[0];
  const frames = frameStates(JSON.parse((await browser.stopTracing()).toString()).traceEvents);
  if (values.profile) {
    const { profile } = await cdp.send('Profiler.stop');
    writeFileSync(values.profile, JSON.stringify(profile));
    printProfile(profile);
  }
  const { changes, valueWidgets } = await page.evaluate(() => {
    window.__mo.disconnect();
    return {
      changes: window.__changes,
      valueWidgets: document.querySelectorAll('[data-role="value"]').length,
    };
  });
  await cdp.send('HeapProfiler.collectGarbage');
  const m2 = await metrics();
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });

  const busy = ((m1.TaskDuration - m0.TaskDuration) / wall) * 100;
  const script = ((m1.ScriptDuration - m0.ScriptDuration) / wall) * 100;
  const layout =
    ((m1.LayoutDuration - m0.LayoutDuration + m1.RecalcStyleDuration - m0.RecalcStyleDuration) / wall) * 100;
  const heap = ((m2.JSHeapUsedSize - m0.JSHeapUsedSize) / m0.JSHeapUsedSize) * 100;
  const mb = (n) => (n / 1e6).toFixed(1);

  console.log(
    `scene bench: ${widgets.length} bound widgets, ${DEVICES} devices x ${KEYS.length} properties at 1/s, ` +
      `Chromium at 4x CPU throttling, ${wall.toFixed(0)} s`,
  );
  console.log(
    `  value texts changed on screen: ${changes} (${(changes / wall).toFixed(0)}/s over ${valueWidgets} value widgets)`,
  );
  console.log(
    `  main-thread busy: ${busy.toFixed(1)} % (script ${script.toFixed(1)} %, style+layout ${layout.toFixed(1)} %) ` +
      `— target < 30 %: ${busy < 30 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `  frames: ${frames.presented} presented, ${frames.dropped} dropped ` +
      `(${((frames.dropped / Math.max(1, frames.presented + frames.dropped)) * 100).toFixed(1)} % of frames with an update; ` +
      `${frames.idle} vsyncs with nothing to draw)`,
  );
  console.log(
    `  JS heap after GC: ${mb(m0.JSHeapUsedSize)} MB -> ${mb(m2.JSHeapUsedSize)} MB ` +
      `(${heap >= 0 ? '+' : ''}${heap.toFixed(1)} %) — target < 10 %: ${heap < 10 ? 'met' : 'NOT met'}`,
  );
  console.log(`  load average (1 min): ${load0.toFixed(2)} at start, ${load1.toFixed(2)} at end (2 cores)`);
}

/**
 * Frame states of the page's compositor (`PipelineReporter` trace events): presented (all or partial), dropped where
 * it affects smoothness (a frame with an update that missed its vsync, as DevTools counts them), idle (no update).
 */
function frameStates(events) {
  const out = { presented: 0, dropped: 0, idle: 0 };
  const hosts = new Map();
  const reports = events.filter(
    (e) => e.name === 'PipelineReporter' && e.ph === 'b' && e.args?.frame_reporter,
  );
  // The page's renderer is the layer tree host with the most reports (the browser UI has its own).
  for (const e of reports) {
    const h = e.args.frame_reporter.layer_tree_host_id;
    hosts.set(h, (hosts.get(h) ?? 0) + 1);
  }
  const host = [...hosts].sort((a, b) => b[1] - a[1])[0]?.[0];
  for (const e of reports) {
    const r = e.args.frame_reporter;
    if (r.layer_tree_host_id !== host) continue;
    if (r.state === 'STATE_PRESENTED_ALL' || r.state === 'STATE_PRESENTED_PARTIAL') out.presented++;
    else if (r.state === 'STATE_DROPPED' && r.affects_smoothness) out.dropped++;
    else out.idle++;
  }
  return out;
}

/** The heaviest functions of a CPU profile by self time (a first look; open the file in DevTools for more). */
function printProfile(profile) {
  const dt = new Map();
  for (let k = 0; k < profile.samples.length; k++)
    dt.set(profile.samples[k], (dt.get(profile.samples[k]) ?? 0) + (profile.timeDeltas[k] ?? 0));
  const self = new Map();
  let total = 0;
  for (const n of profile.nodes) {
    const us = dt.get(n.id) ?? 0;
    total += us;
    const f = n.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + us);
  }
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 25);
  console.error(`profile: ${values.profile}, ${(total / 1e6).toFixed(1)} s sampled; self time:`);
  for (const [name, us] of top) console.error(`  ${((us / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
}

try {
  await main();
  await cleanup();
  process.exit(0);
} catch (e) {
  console.error(`scene bench failed: ${e.stack ?? e}`);
  await cleanup();
  process.exit(1);
}
