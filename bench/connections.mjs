#!/usr/bin/env node
// `npm run bench:connections`: 10,000 simulated devices connected at once to one server process (embedded broker
// and PGlite, started here). Prints the server's memory per connected idle device (VmRSS and RssAnon from
// /proc/<pid>/status, after minus before) and the connect rate. Target (issue 3): < 50 KB per idle device.
// Options: --devices 10000 --workers 2 --concurrency 200 --idle 15 --no-build
import { spawnSync, fork } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Api, ensureServerBuilt, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '10000' },
    workers: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '200' },
    idle: { type: 'string', default: '15' },
    'no-build': { type: 'boolean', default: false },
    'raised-limit': { type: 'boolean', default: false },
  },
});
const N = Number(values.devices);
const WORKERS = Number(values.workers);
const TARGET_KB = 50;

// Every connection is a file descriptor in the server and in a load worker; raise the soft limit through a shell
// (Node cannot call setrlimit) and run again.
const limits = readFileSync('/proc/self/limits', 'utf8');
const soft = Number(/Max open files\s+(\d+)/.exec(limits)?.[1] ?? 0);
const needed = Math.ceil(N / WORKERS) + N + 1024;
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

const kb = (pid) => {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const get = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: get('VmRSS'), anon: get('RssAnon') };
};
const fmt = (n, d = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d }) : 'n/a';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

if (!values['no-build']) ensureServerBuilt();
console.log(`connections bench: ${fmt(N)} idle devices, ${WORKERS} load processes, soft fd limit ${soft}`);
const server = await startServer({ LOG_LEVEL: 'error' });
const workers = [];
try {
  const api = new Api(server.base);
  await api.login();
  const run = Date.now().toString(36);
  const t0 = performance.now();
  const ids = await api.createFleet({
    productKey: `conn-${run}`,
    productName: `connections bench ${run}`,
    count: N,
    prefix: `C${run}`,
  });
  console.log(
    `created ${fmt(N)} devices and read their secrets in ${fmt((performance.now() - t0) / 1000, 1)} s`,
  );

  await sleep(3000); // let the creation garbage settle before the baseline
  const before = kb(server.pid);
  console.log(
    `server before: VmRSS ${fmt(before.rss / 1024, 1)} MB, RssAnon ${fmt(before.anon / 1024, 1)} MB`,
  );

  const per = Math.ceil(N / WORKERS);
  const start = performance.now();
  const results = await Promise.all(
    Array.from({ length: WORKERS }, (_, w) => {
      const child = fork(new URL('./lib/conn-worker.mjs', import.meta.url));
      workers.push(child);
      return new Promise((resolve) => {
        child.once('message', resolve);
        child.send({
          cmd: 'connect',
          url: `mqtt://127.0.0.1:${server.mqttPort}`,
          identities: ids.slice(w * per, (w + 1) * per),
          concurrency: Math.ceil(Number(values.concurrency) / WORKERS),
        });
      });
    }),
  );
  const secs = (performance.now() - start) / 1000;
  const connected = results.reduce((s, r) => s + r.connected, 0);
  const failed = results.reduce((s, r) => s + r.failed, 0);
  console.log(
    `connected ${fmt(connected)}/${fmt(N)} in ${fmt(secs, 1)} s: ${fmt(connected / secs)} connects/s` +
      (failed ? ` (${fmt(failed)} failed, first: ${results.find((r) => r.firstError)?.firstError})` : ''),
  );

  console.log(`idle for ${values.idle} s ...`);
  let peak = before;
  for (let i = 0; i < Number(values.idle); i++) {
    await sleep(1000);
    const s = kb(server.pid);
    if (s.rss > peak.rss) peak = s;
  }
  const after = kb(server.pid);
  const still = (
    await Promise.all(
      workers.map(
        (child) =>
          new Promise((resolve) => {
            child.once('message', (m) => resolve(m.connected));
            child.send({ cmd: 'count' });
          }),
      ),
    )
  ).reduce((a, b) => a + b, 0);
  const perRss = (after.rss - before.rss) / still;
  const perAnon = (after.anon - before.anon) / still;
  console.log(
    `server after: VmRSS ${fmt(after.rss / 1024, 1)} MB, RssAnon ${fmt(after.anon / 1024, 1)} MB, ${fmt(still)} still connected`,
  );
  console.log(
    '\n| devices connected | connect rate | server RSS before -> after | RSS per device | anon per device | target |',
  );
  console.log('| ---: | ---: | --- | ---: | ---: | ---: |');
  console.log(
    `| ${fmt(still)} | ${fmt(connected / secs)}/s | ${fmt(before.rss / 1024)} -> ${fmt(after.rss / 1024)} MB | ` +
      `${fmt(perRss, 1)} KB | ${fmt(perAnon, 1)} KB | < ${TARGET_KB} KB |`,
  );
  console.log(
    `${still === N && perRss < TARGET_KB ? 'MEETS' : 'MISSES'} target: ${fmt(N)} devices connected at once, ` +
      `< ${TARGET_KB} KB of server memory per idle device`,
  );
  if (still < N) process.exitCode = 1;
} finally {
  for (const w of workers) w.send({ cmd: 'stop' });
  await Promise.all(workers.map((w) => new Promise((r) => (w.exitCode !== null ? r() : w.once('exit', r)))));
  await server.stop();
  rmSync(server.dataDir, { recursive: true, force: true });
}
