#!/usr/bin/env node
// `npm run bench:ota`: one 64 KB firmware rolled out to 10,000 simulated devices. The server runs in its own process
// on the embedded defaults (PGlite, Aedes); the devices are devsim fleets in child processes (they take P/down/ota,
// report 5, download over HTTP, check the MD5, report 1 and 4 and their new fw_version). Prints the dispatch rate
// (devices sent the upgrade per second), the time until every device reported success, peak server memory and CPU,
// and the load average (other processes share the CPU). It ends with one line per figure of issue 23 saying whether
// it holds (a regression guard: run it after any change to the OTA engine, the gateway or the download route):
//   connect storm: every device connected at --connect-rate without a connect error (connack timeout, reset);
//   burst: the first max_concurrent dispatched within 0.5 s of the start;
//   all upgraded in under 60 s, no device retried (no attempt ended by a timeout or a failure);
//   zero failed downloads (devsim's download failures and retried download connections).
// Options: --devices 10000 --workers 2 --size 65536 --update-ms 200 --port 19810 (and 19811 for MQTT) --no-build
//          --connect-rate 600 (fleet-wide, shared by the workers) --max-concurrent 1000 (the task's policy) --timeout-s 60
//          --ota-interrupt R --ota-fail-download R (devsim ratios; failures are retried by the task's policy)
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Api, ensureServerBuilt, root, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '10000' },
    workers: { type: 'string', default: '2' },
    size: { type: 'string', default: '65536' },
    'update-ms': { type: 'string', default: '200' },
    port: { type: 'string', default: '19810' },
    'max-concurrent': { type: 'string', default: '1000' },
    'connect-rate': { type: 'string', default: '600' },
    'timeout-s': { type: 'string', default: '60' },
    'ota-interrupt': { type: 'string', default: '0' },
    'ota-fail-download': { type: 'string', default: '0' },
    'no-build': { type: 'boolean', default: false },
    'raised-limit': { type: 'boolean', default: false },
  },
});
const N = Number(values.devices);
const WORKERS = Number(values.workers);
const SIZE = Number(values.size);
const PORT = Number(values.port);
const TARGET_S = 60;
const BURST_TARGET_S = 0.5;
const CONNECT_RATE = Number(values['connect-rate']);
// Options are documented at the top; the task's policy: everything in one wave, retries after 5 s.

// The server holds one file descriptor per connected device plus one per download in progress: raise the soft
// open files limit to the hard one through a shell (Node cannot call setrlimit) and run again, as
// bench/connections.mjs does. The task's max_concurrent bounds the downloads in progress.
const limits = readFileSync('/proc/self/limits', 'utf8');
const soft = Number(/Max open files\s+(\d+)/.exec(limits)?.[1] ?? 0);
const hard = Number(/Max open files\s+\d+\s+(\d+)/.exec(limits)?.[1] ?? 0);
const MAX_CONCURRENT = Number(values['max-concurrent']);
const needed = N + MAX_CONCURRENT + 2048;
if (soft < Math.min(needed, hard) && !values['raised-limit']) {
  const argv = process.argv.slice(1).map((a) => `'${a.replace(/'/g, `'\\''`)}'`);
  console.log(`raising the open files limit (soft ${soft}, hard ${hard}, need about ${needed})`);
  const r = spawnSync(
    'sh',
    ['-c', `ulimit -n ${hard} 2>/dev/null; exec '${process.execPath}' ${argv.join(' ')} --raised-limit`],
    { stdio: 'inherit' },
  );
  process.exit(r.status ?? 1);
}
if (Math.min(soft, hard) < needed)
  console.log(
    `warning: open files limit ${Math.min(soft, hard)} < ${needed}: lower --max-concurrent or --devices`,
  );

const fmt = (n, d = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d }) : 'n/a';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const CLK_TCK = 100;

/** CPU seconds (user + system) and memory of a process, from /proc. */
function proc(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpu = (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { cpu, rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

/** A firmware of the product with one version holding `size` random bytes (an ELF header, so it is binary). */
async function uploadFirmware(api, productKey, size) {
  const fw = (
    await api.call('POST', '/api/firmware', { name: 'bench firmware', product_key: productKey, type: 1 })
  ).data;
  const image = randomBytes(size);
  image.writeUInt32BE(0x7f454c46, 0);
  const form = new FormData();
  form.append('version', '2.0.0');
  form.append('algorithm', 'md5');
  form.append('file', new Blob([image]), 'bench-2.0.0.bin');
  const res = await fetch(`${api.base}/api/firmware/${fw.id}/versions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}` },
    body: form,
  });
  const json = await res.json();
  if (!res.ok || json.status !== true) throw new Error(`upload: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** A devsim fleet in its own process; resolves once it says every device tried to connect. */
function startFleet(file, mqttUrl, index) {
  const tsx = join(root, 'node_modules/.bin/tsx');
  const child = spawn(
    tsx,
    [
      join(root, 'apps/devsim/src/cli.ts'),
      '--file',
      file,
      '--url',
      mqttUrl,
      '--rate',
      '0',
      '--connect-rate',
      String(CONNECT_RATE / WORKERS),
      '--info-every',
      '0',
      '--keepalive',
      '300',
      '--status-every',
      '10',
      '--ota-update-ms',
      values['update-ms'],
      '--ota-interrupt',
      values['ota-interrupt'],
      '--ota-fail-download',
      values['ota-fail-download'],
      '--seed',
      String(index + 1),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let last = '';
  const counters = { errors: 0, downloadFailed: 0, downloadRetries: 0 };
  const ready = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      for (const line of String(d).split('\n')) {
        if (!line.trim()) continue;
        last = line;
        const n = (re) => Number(re.exec(line)?.[1] ?? NaN);
        if (Number.isFinite(n(/ errors (\d+)/))) counters.errors = n(/ errors (\d+)/);
        if (Number.isFinite(n(/download-failed (\d+)/))) counters.downloadFailed = n(/download-failed (\d+)/);
        if (Number.isFinite(n(/download-retries (\d+)/)))
          counters.downloadRetries = n(/download-retries (\d+)/);
        if (line.includes('every device tried once')) resolve();
      }
    });
    child.stderr.on('data', (d) => (last = String(d)));
    child.once('exit', (code) => reject(new Error(`devsim ${index} exited with ${code}: ${last}`)));
  });
  return { child, ready, counters, lastLine: () => last };
}

if (!values['no-build']) ensureServerBuilt();
const load0 = loadavg();
console.log(
  `ota bench: ${fmt(N)} devices, ${fmt(SIZE)} byte firmware, ${WORKERS} devsim processes, ` +
    `load average ${load0.map((l) => l.toFixed(2)).join(' ')}`,
);
const server = await startServer({
  PORT: String(PORT),
  MQTT_PORT: String(PORT + 1),
  PUBLIC_URL: `http://127.0.0.1:${PORT}`,
  LOG_LEVEL: 'error',
});
const fleets = [];
const tmpFiles = [];
try {
  const api = new Api(server.base);
  await api.login();
  const run = Date.now().toString(36);
  const productKey = `ota-${run}`;
  let t0 = performance.now();
  const ids = await api.createFleet({
    productKey,
    productName: `ota bench ${run}`,
    count: N,
    prefix: `O${run}`,
  });
  const version = await uploadFirmware(api, productKey, SIZE);
  console.log(`created ${fmt(N)} devices and a firmware in ${fmt((performance.now() - t0) / 1000, 1)} s`);

  t0 = performance.now();
  const per = Math.ceil(N / WORKERS);
  for (let w = 0; w < WORKERS; w++) {
    const file = join(server.dataDir, `fleet-${w}.json`);
    writeFileSync(file, JSON.stringify(ids.slice(w * per, (w + 1) * per)));
    tmpFiles.push(file);
    fleets.push(startFleet(file, `mqtt://127.0.0.1:${server.mqttPort}`, w));
  }
  await Promise.all(fleets.map((f) => f.ready));
  // Devices whose connect failed retry with back-off; start once all are online, or once the count has not moved
  // for 30 s (those still offline get their upgrade when they connect, and count against the time).
  let online = 0;
  let moved = performance.now();
  let shown = 0;
  for (;;) {
    const now = (await api.call('GET', `/api/devices?product_key=${productKey}&online=1&per_page=1`)).total;
    if (now !== online) moved = performance.now();
    online = now;
    if (online >= N || performance.now() - moved > 30_000) break;
    if (performance.now() - shown > 10_000) {
      shown = performance.now();
      console.log(`  ${fmt(online)} online; ${fleets.map((f) => f.lastLine().trim()).join(' | ')}`);
    }
    await sleep(1000);
  }
  const connectSecs = (performance.now() - t0) / 1000;
  const connectErrors = fleets.reduce((n, f) => n + f.counters.errors, 0);
  const connectLast = fleets.map((f) => /last connect error: (.*)$/.exec(f.lastLine())?.[1]).filter(Boolean);
  console.log(`${fmt(online)} of ${fmt(N)} devices online after ${fmt(connectSecs, 1)} s`);
  await sleep(2000);

  const task = (
    await api.call('POST', '/api/ota/tasks', {
      name: `bench ${run}`,
      product_key: productKey,
      version_id: version.id,
      targets: { type: 'all' },
      policy: {
        max_concurrent: MAX_CONCURRENT,
        timeout_s: Number(values['timeout-s']),
        retries: 2,
        retry_backoff_s: 5,
        failure_threshold: null,
      },
    })
  ).data;
  const preview = `${fmt(task.device_count)} devices, download volume ${fmt(task.download_bytes / 1048576, 1)} MB`;
  console.log(`task ${task.id}: ${preview}`);

  const before = proc(server.pid);
  let peakCpu = 0;
  let lastCpu = { at: performance.now(), cpu: before.cpu };
  let dispatchedAt;
  const start = performance.now();
  const startWall = Date.now();
  await api.call('POST', `/api/ota/tasks/${task.id}/start`);
  let detail;
  let lastPrint = 0;
  for (;;) {
    await sleep(250);
    detail = (await api.call('GET', `/api/ota/tasks/${task.id}`)).data;
    const now = performance.now();
    const p = proc(server.pid);
    if (now - lastCpu.at >= 1000) {
      peakCpu = Math.max(peakCpu, ((p.cpu - lastCpu.cpu) / ((now - lastCpu.at) / 1000)) * 100);
      lastCpu = { at: now, cpu: p.cpu };
    }
    const sent = detail.device_count - detail.pending_count - detail.skipped_count - detail.cancelled_count;
    if (dispatchedAt === undefined && sent >= detail.device_count - detail.skipped_count) dispatchedAt = now;
    if (now - lastPrint > 5000) {
      lastPrint = now;
      console.log(
        `[${fmt((now - start) / 1000, 1)} s] sent ${fmt(sent)}  upgrading ${fmt(detail.upgrading_count)}  ` +
          `succeeded ${fmt(detail.success_count)}  failed ${fmt(detail.fail_count)}  server RSS ${fmt(p.rssKb / 1024)} MB`,
      );
    }
    if (detail.status === 'done' || detail.status === 'paused') break;
    if (now - start > 600_000) break;
  }
  const end = performance.now();
  const after = proc(server.pid);
  // Download counts are written once a second; read them once more.
  await sleep(1500);
  detail = (await api.call('GET', `/api/ota/tasks/${task.id}`)).data;
  const secs = (end - start) / 1000;
  // Dispatch times from the upgrade log (first attempts): the burst up to max_concurrent, and all devices.
  const sentAt = [];
  let retried = 0;
  for (let page = 1; page <= Math.ceil(N / 1000); page++) {
    const rows = (await api.call('GET', `/api/ota/tasks/${task.id}/devices?per_page=1000&current=${page}`))
      .data;
    for (const r of rows) {
      if (r.attempts === 1 && r.dispatched_at) sentAt.push(Date.parse(r.dispatched_at));
      if (r.attempts > 1 || r.timed_out) retried++;
    }
  }
  sentAt.sort((a, b) => a - b);
  const burst = Math.min(MAX_CONCURRENT, sentAt.length);
  const burstSecs = burst > 0 ? Math.max(0.001, (sentAt[burst - 1] - startWall) / 1000) : NaN;
  const dispatchSecs = ((dispatchedAt ?? end) - start) / 1000;
  const cpuSecs = after.cpu - before.cpu;
  const load1 = loadavg();
  for (const f of fleets) console.log(`devsim: ${f.lastLine().trim()}`);
  if (detail.fail_count > 0 || detail.status !== 'done') {
    // Why devices failed, and the server's last words: what to look at before reading the figures.
    const reasons = new Map();
    for (let page = 1; page <= 20; page++) {
      const rows = (
        await api.call('GET', `/api/ota/tasks/${task.id}/devices?phase=failed&per_page=1000&current=${page}`)
      ).data;
      for (const r of rows) reasons.set(r.result, (reasons.get(r.result) ?? 0) + 1);
      if (rows.length < 1000) break;
    }
    console.log(`status ${detail.status}; failures by result:`, Object.fromEntries(reasons));
    const log = readFileSync(server.logPath, 'utf8').trim().split('\n').slice(-10);
    console.log(`server log (last lines):\n${log.join('\n')}`);
  }
  console.log(
    '\n| date | load (1/5/15 min) | devices | firmware | dispatch rate | all sent after | all upgraded after | ' +
      'succeeded / failed | server peak RSS | server CPU (avg / peak 1 s) | target |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const rates = `${fmt(burst)} in ${fmt(burstSecs, 2)} s (${fmt(burst / burstSecs)}/s); all: ${fmt(N / dispatchSecs)}/s`;
  console.log(
    `| ${new Date().toISOString().slice(0, 16).replace('T', ' ')} | ${load1.map((l) => l.toFixed(1)).join(' / ')} | ` +
      `${fmt(N)} | ${fmt(SIZE / 1024)} KB | ${rates} | ${fmt(dispatchSecs, 1)} s | ` +
      `**${fmt(secs, 1)} s** | ${fmt(detail.success_count)} / ${fmt(detail.fail_count)} | ` +
      `${fmt(after.hwmKb / 1024)} MB | ${fmt((cpuSecs / secs) * 100)} % / ${fmt(peakCpu)} % | < ${TARGET_S} s |`,
  );
  const downloadFailed = fleets.reduce((n, f) => n + f.counters.downloadFailed, 0);
  const downloadRetries = fleets.reduce((n, f) => n + f.counters.downloadRetries, 0);
  const figures = [
    [
      online === N && connectErrors === 0,
      `connect storm: ${fmt(N)} devices at ${fmt(CONNECT_RATE)} connects/s without a connect error ` +
        `(${fmt(online)} online after ${fmt(connectSecs, 1)} s, ${fmt(connectErrors)} errors` +
        `${connectLast.length ? `, last: ${connectLast.join(' | ')}` : ''})`,
    ],
    [
      burstSecs < BURST_TARGET_S,
      `burst: the first ${fmt(MAX_CONCURRENT)} dispatched in under ${BURST_TARGET_S} s ` +
        `(${fmt(burst)} in ${fmt(burstSecs, 2)} s)`,
    ],
    [
      detail.success_count === N && secs < TARGET_S && retried === 0,
      `rollout: ${fmt(N)} devices upgraded in under ${TARGET_S} s, none retried or timed out ` +
        `(${fmt(detail.success_count)} upgraded in ${fmt(secs, 1)} s; ${fmt(retried)} retried; ` +
        `${fmt(detail.downloads)} downloads)`,
    ],
    [
      downloadFailed === 0 && downloadRetries === 0,
      `downloads: none failed or retried (${fmt(downloadFailed)} failed, ${fmt(downloadRetries)} connections retried)`,
    ],
  ];
  for (const [ok, text] of figures) console.log(`${ok ? 'HOLDS ' : 'MISSES'} ${text}`);
  if (figures.some(([ok]) => !ok)) process.exitCode = 1;
} finally {
  for (const f of fleets) f.child.kill('SIGTERM');
  await Promise.all(
    fleets.map((f) => new Promise((r) => (f.child.exitCode !== null ? r() : f.child.once('exit', r)))),
  );
  await server.stop();
  for (const f of tmpFiles) rmSync(f, { force: true });
  rmSync(server.dataDir, { recursive: true, force: true });
}
