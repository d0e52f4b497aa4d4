#!/usr/bin/env node
// `npm run bench:reconnect`: a reconnect storm after a coverage gap (issue 12, item 4). 1,000 devices are connected;
// each then goes dark on its connection (the server still holds it) and at once reconnects, writing its CONNECT and
// the 100 QoS 1 property messages it buffered in one write, without waiting for the CONNACK; the new CONNECT takes
// the old connection over. The server runs in its own process on the embedded defaults (PGlite, Aedes); the devices
// are raw MQTT connections in child processes (bench/lib/reconnect-worker.mjs). Prints the load average, connects
// refused and connections dropped (target 0; a device retries after 1 s with what is unacknowledged, DUP set), the
// CONNACK time, messages acknowledged against messages stored (read back through the API: equal), duplicates stored
// (0), and the time until every message was acknowledged (a PUBACK means stored on the embedded broker).
// Options: --devices 1000 --messages 100 --workers 2 --version 4 (or 5) --timeout-s 300 --no-build
import { fork, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Api, ensureServerBuilt, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '1000' },
    messages: { type: 'string', default: '100' },
    workers: { type: 'string', default: '2' },
    version: { type: 'string', default: '4' },
    'timeout-s': { type: 'string', default: '300' },
    // Devices whose earlier connection the server already dropped (keep-alive): no takeover.
    'no-takeover': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    'raised-limit': { type: 'boolean', default: false },
  },
});
const N = Number(values.devices);
const M = Number(values.messages);
const WORKERS = Number(values.workers);
const VERSION = Number(values.version);

// The server holds two connections per device during the storm (the dark one until its takeover, and the new one),
// and so do the load processes: raise the soft open files limit through a shell as bench/connections.mjs does.
const limits = readFileSync('/proc/self/limits', 'utf8');
const soft = Number(/Max open files\s+(\d+)/.exec(limits)?.[1] ?? 0);
const needed = 2 * N + 1024;
if (soft < needed && !values['raised-limit']) {
  const argv = process.argv.slice(1).map((a) => `'${a.replace(/'/g, `'\\''`)}'`);
  console.log(`raising the open files limit (soft ${soft}, need about ${needed})`);
  const r = spawnSync(
    'sh',
    [
      '-c',
      `ulimit -n 65535 2>/dev/null || ulimit -n hard; exec '${process.execPath}' ${argv.join(' ')} --raised-limit`,
    ],
    { stdio: 'inherit' },
  );
  process.exit(r.status ?? 1);
}

const fmt = (n, d = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d }) : 'n/a';
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const pct = (list, p) => {
  if (list.length === 0) return NaN;
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const CLK_TCK = 100;
/** CPU seconds (user + system) a process used so far, from /proc. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}
const ask = (child, msg) =>
  new Promise((resolve) => {
    child.once('message', resolve);
    child.send(msg);
  });

if (!values['no-build']) ensureServerBuilt();
console.log(
  `reconnect bench: ${fmt(N)} devices x ${fmt(M)} buffered QoS 1 messages, MQTT ${VERSION === 5 ? '5.0' : '3.1.1'}, ` +
    `${WORKERS} load processes; load average ${load()}`,
);
const server = await startServer({ LOG_LEVEL: 'error' });
const workers = [];
let failed = true;
try {
  const api = new Api(server.base);
  await api.login();
  const run = Date.now().toString(36);
  let t0 = performance.now();
  const ids = await api.createFleet({
    productKey: `rc-${run}`,
    productName: `reconnect bench ${run}`,
    count: N,
    prefix: `R${run}`,
  });
  console.log(`created ${fmt(N)} devices in ${fmt((performance.now() - t0) / 1000, 1)} s`);

  const per = Math.ceil(N / WORKERS);
  const target = { host: '127.0.0.1', port: server.mqttPort };
  t0 = performance.now();
  const connected = await Promise.all(
    Array.from({ length: WORKERS }, (_, w) => {
      const child = fork(new URL('./lib/reconnect-worker.mjs', import.meta.url));
      workers.push(child);
      return ask(child, {
        cmd: 'connect',
        target,
        version: VERSION,
        identities: ids.slice(w * per, (w + 1) * per),
        concurrency: 100,
        skip: values['no-takeover'],
      });
    }),
  );
  const online = connected.reduce((s, r) => s + r.connected, 0);
  const first = connected.find((r) => r.firstError)?.firstError;
  if (!values['no-takeover'])
    console.log(
      `${fmt(online)}/${fmt(N)} connected in ${fmt((performance.now() - t0) / 1000, 1)} s` +
        (first ? ` (first failure: ${first})` : ''),
    );

  // A base timestamp per run: each message carries ts = base + seq, so the rows of a run are told apart.
  const base = Date.now() - 60_000;
  const loadBefore = load();
  const cpuBefore = cpuSeconds(server.pid);
  const results = await Promise.all(
    workers.map((child) =>
      ask(child, { cmd: 'reconnect', messages: M, base, timeoutMs: Number(values['timeout-s']) * 1000 }),
    ),
  );
  const loadAfter = load();
  const cpuStorm = cpuSeconds(server.pid) - cpuBefore;
  const all = (key) => results.flatMap((r) => r[key]);
  const sum = (key) => results.reduce((s, r) => s + r[key], 0);
  const acked = sum('acked');
  const refused = sum('refused');
  const dropped = sum('dropped');
  const unfinished = sum('unfinished');
  const doneMs = all('doneMs');
  const connackMs = all('connackMs');
  const lastAck = Math.max(0, ...doneMs) / 1000;
  console.log(`storm: load average ${loadBefore} at the start, ${loadAfter} at the end`);
  console.log(
    `  connects refused ${fmt(refused)}, connections dropped ${fmt(dropped)} (target 0 and 0; ` +
      `${fmt(sum('attempts'))} connection attempts for ${fmt(N)} devices)` +
      (results.find((r) => r.firstRefusal)?.firstRefusal
        ? `, first refusal ${results.find((r) => r.firstRefusal).firstRefusal}`
        : ''),
  );
  console.log(
    connackMs.length
      ? `  CONNACK after the CONNECT write: p50 ${fmt(pct(connackMs, 50))} ms, p99 ${fmt(pct(connackMs, 99))} ms, ` +
          `max ${fmt(Math.max(...connackMs))} ms (${fmt(connackMs.length)} accepted first attempts)`
      : '  CONNACK: no first attempt was accepted',
  );
  console.log(
    `  messages acknowledged (= stored) ${fmt(acked)} of ${fmt(N * M)}` +
      (unfinished === 0
        ? `, the last after ${fmt(lastAck, 1)} s (${fmt(acked / lastAck)} msg/s); devices done p50 ` +
          `${fmt(pct(doneMs, 50) / 1000, 1)} s`
        : `; ${fmt(unfinished)} devices unfinished at the ${values['timeout-s']} s timeout`) +
      `; server CPU ${fmt(cpuStorm, 1)} s`,
  );

  // Stored, read back: every device's seq history must hold each of its acknowledged messages exactly once.
  t0 = performance.now();
  let stored = 0;
  let duplicates = 0;
  let missing = 0;
  let next = 0;
  const check = async () => {
    while (next < ids.length) {
      const id = ids[next++];
      const r = await api.call(
        'GET',
        `/api/devices/${id.sn}/properties?key=seq&per_page=${Math.max(M * 2, 10)}`,
      );
      const seqs = r.data.map((p) => p.value);
      stored += r.total;
      duplicates += r.total - new Set(seqs).size;
      for (let i = 1; i <= M; i++) if (!seqs.includes(i)) missing++;
    }
  };
  await Promise.all(Array.from({ length: 8 }, check));
  console.log(
    `  stored ${fmt(stored)} rows for ${fmt(acked)} acknowledged messages (${stored === acked ? 'equal' : 'NOT equal'}), ` +
      `duplicates stored ${fmt(duplicates)}, messages missing ${fmt(missing)} ` +
      `(read back through the API in ${fmt((performance.now() - t0) / 1000, 1)} s)`,
  );
  const holds = refused === 0 && dropped === 0 && stored === acked && duplicates === 0 && missing === 0;
  console.log(`issue 12 item 4 figures: ${holds ? 'hold' : 'DO NOT hold'}`);
  failed = !holds;
} finally {
  for (const child of workers) child.send({ cmd: 'stop' });
  await server.stop();
  // Kept when a figure does not hold, for its server.log.
  if (failed) console.log(`server data and log kept in ${server.dataDir}`);
  else rmSync(server.dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
