#!/usr/bin/env node
// `npm run bench:modbus`: platform polling (issue 16). 500 devsim DTUs in transparent mode, each with one Modbus
// slave of 20 holding registers; a data template in `platform` collect mode (one slave, 20 variables with a capture
// formula, 1 s sampling cycle) is the product's default, so the server polls every DTU once a second through
// P/down/raw and P/up/raw. After a warm-up the bench measures `--seconds` and prints variable reads stored per second,
// scheduled vs stored vs failed counts, p50/p99 from when a read was due to when its values were stored, the server's
// CPU per read (/proc/<pid>/stat) and the load average. Target: every scheduled read stored, >= 10,000 reads/s.
// The server writes its poller totals to MODBUS_STATS_FILE every second (modbus-polling.plugin.ts).
// Options: --devices 500 --variables 20 --seconds 60 --warmup 15 --workers 2 --pg postgres://… --no-build
import { fork } from 'node:child_process';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Api, ensureServerBuilt, root, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '500' },
    variables: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '15' },
    workers: { type: 'string', default: '2' },
    pg: { type: 'string' },
    floor: { type: 'boolean', default: true },
    'no-build': { type: 'boolean', default: false },
  },
});
const N = Number(values.devices);
const VARS = Number(values.variables);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const WORKERS = Number(values.workers);
const TARGET = 10_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fmt = (n, d = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
    : 'n/a';
const CLK_TCK = 100; // Linux USER_HZ

/** utime + stime of a process in milliseconds. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

function readStats(file) {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // caught mid-write; the next second's copy will do
  }
}

/** Percentile of the difference of two latency histograms ({ms: count}). */
function histPercentiles(before, after, ps) {
  const diff = [];
  for (const [ms, n] of Object.entries(after)) {
    const d = n - (before[ms] ?? 0);
    if (d > 0) diff.push([Number(ms), d]);
  }
  diff.sort((a, b) => a[0] - b[0]);
  const total = diff.reduce((s, [, n]) => s + n, 0);
  return ps.map((p) => {
    let seen = 0;
    for (const [ms, n] of diff) {
      seen += n;
      if (seen >= p * total) return ms;
    }
    return NaN;
  });
}

function startFleet(file, url) {
  const child = fork(
    join(root, 'bench/lib/modbus-fleet.mjs'),
    ['--file', file, '--url', url, '--registers', String(VARS)],
    {
      cwd: root,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const ready = new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`modbus fleet exited with ${code}`)));
  });
  return { child, ready };
}

/** Modbus RTU CRC16 (polynomial 0xA001), low byte first. */
function crc16(bytes) {
  let crc = 0xffff;
  for (const b of bytes) {
    crc ^= b;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >> 1) ^ 0xa001 : crc >> 1;
  }
  return [crc & 0xff, crc >> 8];
}

/**
 * The machine's floor for the same traffic: the same devsim fleets against a bare Aedes (no auth, no database) and
 * a bare poller (one MQTT client) that sends each DTU the same read (function 3, VARS registers) once a second, one
 * in flight, and counts the answers. No decoding, no storing: what MQTT round trips alone allow on this machine now.
 */
async function measureFloor(identities) {
  const broker = await Aedes.createBroker();
  const tcp = createServer(broker.handle);
  await new Promise((r) => tcp.listen(0, '127.0.0.1', r));
  const url = `mqtt://127.0.0.1:${tcp.address().port}`;
  const body = [1, 3, 0, 0, 0, VARS];
  const frame = Buffer.from([...body, ...crc16(body)]);
  const poller = await mqtt.connectAsync(url, { clientId: `bench-floor-${process.pid}`, reconnectPeriod: 0 });
  const state = new Map(identities.map((id) => [id.sn, { id, inFlight: 0, due: 0 }]));
  let answered = 0;
  let timeouts = 0;
  let sent = 0;
  const lat = [];
  poller.on('message', (topic) => {
    const st = state.get(topic.split('/')[2]);
    if (!st || !st.inFlight) return;
    answered++;
    lat.push(performance.now() - st.due);
    st.inFlight = 0;
  });
  await poller.subscribeAsync('dev/+/+/up/raw', { qos: 1 });
  const floorFleets = [];
  const per = Math.ceil(identities.length / WORKERS);
  for (let w = 0; w < WORKERS; w++) {
    const part = identities.slice(w * per, (w + 1) * per);
    if (part.length === 0) continue;
    const file = join(dataDir, `floor-${w}.json`);
    writeFileSync(file, JSON.stringify(part));
    floorFleets.push(startFleet(file, url));
  }
  await Promise.all(floorFleets.map((f) => f.ready));
  let counting = false;
  const start = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    for (const st of state.values()) {
      if (st.inFlight && now - st.inFlight > 2000) {
        st.inFlight = 0;
        if (counting) timeouts++;
      }
      if (st.inFlight || now < st.due + 1000) continue;
      st.due = st.due === 0 ? start : Math.max(st.due + 1000, now - 1000);
      st.inFlight = now;
      if (counting) sent++;
      poller.publish(`dev/${st.id.product_key}/${st.id.sn}/down/raw`, frame, { qos: 1 });
    }
  }, 20);
  await sleep(WARMUP * 1000);
  answered = 0;
  lat.length = 0;
  counting = true;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(SECONDS * 1000);
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  const got = answered;
  clearInterval(timer);
  lat.sort((a, b) => a - b);
  for (const f of floorFleets) f.child.send('stop');
  await Promise.all(
    floorFleets.map((f) => new Promise((r) => (f.child.exitCode !== null ? r() : f.child.once('exit', r)))),
  );
  await poller.endAsync(true);
  await new Promise((r) => broker.close(r));
  tcp.close();
  return {
    readsPerSec: (got * VARS) / secs,
    requests: sent,
    timeouts,
    p99: lat[Math.floor(0.99 * (lat.length - 1))],
    cpuPerRead: (cpu.user + cpu.system) / Math.max(1, got * VARS),
  };
}

if (!values['no-build']) ensureServerBuilt();
const dataDir = mkdtempSync(join(tmpdir(), 'cellhub-bench-modbus-'));
const statsFile = join(dataDir, 'modbus-stats.json');
console.log(
  `modbus bench: ${fmt(N)} DTUs x 1 slave x ${VARS} variables, 1 s cycle, ${SECONDS} s measured after ${WARMUP} s, ` +
    `${WORKERS} devsim processes, ${values.pg ? 'PostgreSQL' : 'PGlite'}`,
);
const server = await startServer({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'error',
  MODBUS_STATS_FILE: statsFile,
  ...(values.pg ? { DATABASE_URL: values.pg } : {}),
});
const fleets = [];
let identities = [];
let cellhubPerSec = NaN;
try {
  const api = new Api(server.base);
  await api.login();
  const run = Date.now().toString(36);
  const productKey = `mb-${run}`;
  identities = await api.createFleet({
    productKey,
    productName: `modbus bench ${run}`,
    count: N,
    prefix: `M${run}`,
  });
  const tpl = (
    await api.call('POST', '/api/data-templates', {
      name: `bench meter ${run}`,
      type: 'modbus_rtu',
      collect_mode: 'platform',
    })
  ).data;
  const slave = (
    await api.call('POST', `/api/data-templates/${tpl.id}/slaves`, {
      name: 'meter',
      address: 1,
      serial_port: 'rs485',
    })
  ).data;
  for (let i = 0; i < VARS; i++)
    await api.call('POST', `/api/data-templates/${tpl.id}/slaves/${slave.id}/variables`, {
      name: `Register ${i + 1}`,
      tag: `r${i + 1}`,
      register_type: 'holding',
      register_address: i + 1,
      data_format: 'uint16',
      decimals: 1,
      capture_formula: 'x*0.1+2',
      sampling_cycle_s: 1,
      report_method: 'cycle',
    });
  await api.call('PUT', `/api/products/${productKey}/data-template`, { template_id: tpl.id });

  const mqttUrl = `mqtt://127.0.0.1:${server.mqttPort}`;
  const per = Math.ceil(N / WORKERS);
  for (let w = 0; w < WORKERS; w++) {
    const part = identities.slice(w * per, (w + 1) * per);
    if (part.length === 0) continue;
    const file = join(dataDir, `fleet-${w}.json`);
    writeFileSync(file, JSON.stringify(part));
    fleets.push(startFleet(file, mqttUrl));
  }
  const connected = (await Promise.all(fleets.map((f) => f.ready))).reduce((s, m) => s + m.connected, 0);
  console.log(`${fmt(connected)} of ${fmt(N)} DTUs connected; warming up ${WARMUP} s`);
  await sleep(WARMUP * 1000);

  const s0 = readStats(statsFile);
  if (!s0) throw new Error(`the server wrote no poller totals to ${statsFile}`);
  const c0 = cpuMs(server.pid);
  const t0 = s0.at;
  await sleep(SECONDS * 1000);
  // The totals file is rewritten every second: take the first copy written after the window.
  let s1;
  for (;;) {
    s1 = readStats(statsFile);
    if (s1 && s1.at >= t0 + SECONDS * 1000) break;
    await sleep(100);
  }
  const c1 = cpuMs(server.pid);
  const load = loadavg();
  const secs = (s1.at - s0.at) / 1000;
  const scheduled = s1.scheduledVariables - s0.scheduledVariables;
  const stored = s1.storedVariables - s0.storedVariables;
  const failed = s1.failedVariables - s0.failedVariables;
  const requests = s1.requests - s0.requests;
  const expected = N * VARS * secs;
  const [p50, p99] = histPercentiles(s0.latencyMs, s1.latencyMs, [0.5, 0.99]);
  const perSec = stored / secs;
  cellhubPerSec = perSec;
  const cpuPerRead = ((c1 - c0) * 1000) / Math.max(1, stored);
  console.log('');
  console.log('| figure | value |');
  console.log('| --- | ---: |');
  console.log(`| window | ${fmt(secs, 1)} s |`);
  console.log(`| reads due (DTUs x variables x seconds) | ${fmt(expected)} |`);
  console.log(`| reads scheduled | ${fmt(scheduled)} (${fmt(requests)} requests) |`);
  console.log(`| reads stored | ${fmt(stored)} |`);
  console.log(`| reads failed (timeout, exception, CRC, invalid) | ${fmt(failed)} |`);
  console.log(`| reads stored per second | ${fmt(perSec)} |`);
  console.log(`| due to stored p50 / p99 | ${fmt(p50)} / ${fmt(p99)} ms |`);
  console.log(`| server CPU | ${fmt((c1 - c0) / 1000 / secs, 2)} cores, ${fmt(cpuPerRead, 1)} µs per read |`);
  console.log(`| load average (1/5/15 min) | ${load.map((l) => l.toFixed(2)).join(' / ')} |`);
  const allDone = stored >= expected * 0.99 && failed === 0;
  console.log('');
  console.log(
    `target: every due read stored (${fmt((100 * stored) / expected, 1)} %), >= ${fmt(TARGET)} reads/s: ` +
      (allDone && perSec >= TARGET ? 'met' : 'NOT met'),
  );
} finally {
  for (const f of fleets) {
    f.child.send?.('stop');
  }
  await Promise.all(
    fleets.map(
      (f) =>
        new Promise((r) => {
          if (f.child.exitCode !== null) return r();
          f.child.once('exit', r);
          setTimeout(() => f.child.kill('SIGKILL'), 10_000);
        }),
    ),
  );
  await server.stop();
}

if (values.floor && identities.length > 0) {
  console.log('');
  console.log(
    `floor: the same fleets against a bare Aedes and a bare poller (${WARMUP} s warm-up, ${SECONDS} s)`,
  );
  const f = await measureFloor(identities);
  console.log('| figure | value |');
  console.log('| --- | ---: |');
  console.log(`| reads answered per second | ${fmt(f.readsPerSec)} |`);
  console.log(`| requests sent / timed out | ${fmt(f.requests)} / ${fmt(f.timeouts)} |`);
  console.log(`| sent to answered p99 | ${fmt(f.p99)} ms |`);
  console.log(`| bare poller CPU per read | ${fmt(f.cpuPerRead, 1)} µs (broker in the same process) |`);
  console.log(
    `| load average (1/5/15 min) | ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')} |`,
  );
  console.log(`Cellhub / floor: ${fmt((100 * cellhubPerSec) / f.readsPerSec, 0)} %`);
}
