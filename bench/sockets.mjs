#!/usr/bin/env node
// `npm run bench:sockets`: 5,000 socket-mode DTUs (issue 18, docs/device-hosts.md) connected over TCP to one device
// host of one server process (embedded broker and PGlite, started here), each sending a 64-byte frame per second.
// Prints the server's memory per connected idle DTU (VmRSS and RssAnon, after minus before, as bench/connections.mjs
// does for MQTT: 6-7 KB per idle device), then frames stored per second and the p99 of frame-to-stored (the frame
// carries its send time; the server's DEVICE_HOST_STATS_FILE times it to the commit of its raw row).
// Options: --dtus 5000 --workers 2 --concurrency 200 --idle 10 --seconds 30 --size 64 --no-build
// The server runs from apps/server/dist (built if stale); CELLHUB_SERVER_ENTRY / CELLHUB_SERVER_NODE_ARGS run
// another build, e.g. the sources: CELLHUB_SERVER_ENTRY=apps/server/src/main.ts CELLHUB_SERVER_NODE_ARGS="--import tsx".
import { fork, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Api, ensureServerBuilt, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    dtus: { type: 'string', default: '5000' },
    workers: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '200' },
    idle: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '30' },
    size: { type: 'string', default: '64' },
    port: { type: 'string', default: '19250' },
    'no-build': { type: 'boolean', default: false },
    'raised-limit': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const N = Number(values.dtus);
const WORKERS = Number(values.workers);
const SECONDS = Number(values.seconds);
const MQTT_KB = 7;

// Every connection is a file descriptor in the server and in a load process: raise the soft limit through a shell
// (Node cannot call setrlimit) and run again.
const limits = readFileSync('/proc/self/limits', 'utf8');
const soft = Number(/Max open files\s+(\d+)/.exec(limits)?.[1] ?? 0);
const needed = N + Math.ceil(N / WORKERS) + 1024;
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
const ask = (child, msg) =>
  new Promise((resolve) => {
    child.once('message', resolve);
    child.send(msg);
  });
const readStats = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);
const p99Of = (hist, count) => {
  let seen = 0;
  const entries = Object.entries(hist)
    .map(([ms, n]) => [Number(ms), n])
    .sort((a, b) => a[0] - b[0]);
  for (const [ms, n] of entries) {
    seen += n;
    if (seen >= count * 0.99) return ms;
  }
  return NaN;
};
const diffHist = (a, b) => {
  const out = {};
  for (const [ms, n] of Object.entries(b)) out[ms] = n - (a?.[ms] ?? 0);
  return out;
};

if (!values['no-build']) ensureServerBuilt();
console.log(
  `sockets bench: ${fmt(N)} TCP DTUs on one device host, ${values.size}-byte frame per second each, ` +
    `${WORKERS} load processes, soft fd limit ${soft}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
const port = Number(values.port);
const statsFile = join((await import('node:os')).tmpdir(), `cellhub-sockets-bench-${process.pid}.json`);
process.env.DEVICE_HOST_STATS_FILE = statsFile;
const server = await startServer({ LOG_LEVEL: 'error', DEVICE_HOST_PORTS: `${port}-${port}` });
const workers = [];
try {
  const api = new Api(server.base);
  await api.login();
  const run = Date.now().toString(36);
  const productKey = `sock-${run}`;
  await api.createProduct({ productKey, productName: `sockets bench ${run}` });
  const sns = Array.from({ length: N }, (_, i) => `S${run}${String(i + 1).padStart(6, '0')}`);
  for (let i = 0; i < sns.length; i += 500)
    await api.call('POST', '/api/devices', { product_key: productKey, sn: sns.slice(i, i + 500) });
  await api.call('POST', '/api/device-hosts', {
    name: 'bench',
    protocol: 'tcp',
    bind: '127.0.0.1',
    port,
    heartbeat_data: 'PING',
    idle_timeout: 600,
  });
  console.log(`created ${fmt(N)} devices and a TCP device host on port ${port}`);

  await sleep(3000); // let the creation garbage settle before the baseline
  const before = kb(server.pid);
  console.log(
    `server before: VmRSS ${fmt(before.rss / 1024, 1)} MB, RssAnon ${fmt(before.anon / 1024, 1)} MB`,
  );

  const per = Math.ceil(N / WORKERS);
  const t0 = performance.now();
  const results = await Promise.all(
    Array.from({ length: WORKERS }, (_, w) => {
      const child = fork(new URL('./lib/socket-worker.mjs', import.meta.url));
      workers.push(child);
      return ask(child, {
        cmd: 'connect',
        port,
        sns: sns.slice(w * per, (w + 1) * per),
        concurrency: Math.ceil(Number(values.concurrency) / WORKERS),
      });
    }),
  );
  const connected = results.reduce((s, r) => s + r.connected, 0);
  const failed = results.reduce((s, r) => s + r.failed, 0);
  // Registered: the host lists them (its detail is this server's memory).
  let registered = 0;
  for (let i = 0; i < 120; i++) {
    registered = (await api.call('GET', '/api/device-hosts?per_page=1')).data[0].connected;
    if (registered >= connected) break;
    await sleep(500);
  }
  const secs = (performance.now() - t0) / 1000;
  console.log(
    `connected ${fmt(connected)}/${fmt(N)}, registered ${fmt(registered)} in ${fmt(secs, 1)} s` +
      (failed ? ` (${fmt(failed)} failed, first: ${results.find((r) => r.firstError)?.firstError})` : ''),
  );

  console.log(`idle for ${values.idle} s ...`);
  await sleep(Number(values.idle) * 1000);
  const idle = kb(server.pid);
  const perRss = (idle.rss - before.rss) / registered;
  const perAnon = (idle.anon - before.anon) / registered;
  console.log(
    `server idle: VmRSS ${fmt(idle.rss / 1024, 1)} MB, RssAnon ${fmt(idle.anon / 1024, 1)} MB: ` +
      `${fmt(perRss, 1)} KB RSS, ${fmt(perAnon, 1)} KB anon per connected DTU`,
  );

  await Promise.all(workers.map((c) => ask(c, { cmd: 'frames', size: Number(values.size) })));
  console.log(`sending for ${SECONDS} s (5 s warm-up first) ...`);
  await sleep(5000);
  const h0 = performance.now();
  const health = await Promise.race([
    fetch(`${server.base}/api/health`).then((r) => r.status),
    sleep(10_000).then(() => 'no answer'),
  ]);
  console.log(`health while sending: ${health} in ${fmt(performance.now() - h0)} ms`);
  const s0 = readStats(statsFile);
  const w0 = performance.now();
  await sleep(SECONDS * 1000);
  const s1 = readStats(statsFile);
  const wsecs = (performance.now() - w0) / 1000;
  const busy = kb(server.pid);
  console.log(
    `stats file: stored ${s0?.stored ?? 'n/a'} -> ${s1?.stored ?? 'n/a'}, written ${
      s1 ? `${fmt((Date.now() - s1.at) / 1000, 1)} s ago` : 'never'
    }`,
  );
  const stored = (s1?.stored ?? 0) - (s0?.stored ?? 0);
  const timed = (s1?.timed ?? 0) - (s0?.timed ?? 0);
  const p99 = p99Of(diffHist(s0?.latencyMs, s1?.latencyMs ?? {}), timed);
  const p50 = (() => {
    const h = diffHist(s0?.latencyMs, s1?.latencyMs ?? {});
    let seen = 0;
    for (const [ms, n] of Object.entries(h)
      .map(([m, n]) => [Number(m), n])
      .sort((a, b) => a[0] - b[0])) {
      seen += n;
      if (seen >= timed / 2) return ms;
    }
    return NaN;
  })();
  const still = (await Promise.all(workers.map((c) => ask(c, { cmd: 'count' })))).reduce(
    (a, r) => a + r.connected,
    0,
  );
  console.log(
    `server while sending: VmRSS ${fmt(busy.rss / 1024, 1)} MB; ${fmt(still)} DTUs still connected`,
  );
  console.log(
    '\n| DTUs registered | frames stored/s (offered) | frame-to-stored p50 / p99 | RSS per idle DTU | anon per idle DTU | MQTT figure |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
  console.log(
    `| ${fmt(registered)} | ${fmt(stored / wsecs)} (${fmt(registered)}) | ${fmt(p50)} / ${fmt(p99)} ms | ` +
      `${fmt(perRss, 1)} KB | ${fmt(perAnon, 1)} KB | 6-7 KB |`,
  );
  console.log(
    `${perRss <= MQTT_KB && stored / wsecs >= registered * 0.95 ? 'MEETS' : 'MISSES'} target: every frame stored, ` +
      `at most the MQTT figure per idle connection; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  if (registered < N) process.exitCode = 1;
} finally {
  for (const w of workers) w.send({ cmd: 'stop' });
  await Promise.all(workers.map((w) => new Promise((r) => (w.exitCode !== null ? r() : w.once('exit', r)))));
  await server.stop();
  if (values.keep) console.log(`kept ${server.dataDir} (server.log) and ${statsFile}`);
  else {
    rmSync(server.dataDir, { recursive: true, force: true });
    rmSync(statsFile, { force: true });
  }
}
