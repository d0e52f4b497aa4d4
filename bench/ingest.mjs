#!/usr/bin/env node
// `npm run bench:ingest`: 100 device connections publish QoS 1 properties (two values each) as fast as the platform
// stores them, end to end, on two setups:
//   embedded  server with its Aedes broker + PGlite (started here); a QoS 1 PUBACK comes after the rows commit,
//             so the publish-to-PUBACK time is the publish-to-stored latency
//   external  Mosquitto (--mqtt-url, default 127.0.0.1:1883) + PostgreSQL (a fresh database created and dropped
//             here); Mosquitto acknowledges on receipt, so stored rows are counted in the database and the latency
//             is the time until a device's newest stored ts reaches the message's ts (polled every --poll-ms)
// Each setup is compared with its raw broker in the same run: the same publishers, the same broker (a bare Aedes
// on another port for the embedded case), and one plain subscriber.
// Options: --seconds 10 --warmup 3 --devices 100 --window 16 --only embedded|external --raw-only --own-mosquitto --no-build
//          --mqtt-url mqtt://127.0.0.1:1883 --pg postgres://postgres@127.0.0.1:5432/test --poll-ms 50
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { closeDevices, connectDevices, percentile, runLoad } from './lib/load.mjs';
import { Api, ensureServerBuilt, freePort, procStatus, root, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    devices: { type: 'string', default: '100' },
    window: { type: 'string', default: '16' },
    only: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    'mqtt-url': { type: 'string', default: 'mqtt://127.0.0.1:1883' },
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    'poll-ms': { type: 'string', default: '50' },
    'raw-only': { type: 'boolean', default: false },
    'own-mosquitto': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const DEVICES = Number(values.devices);
const WINDOW = Number(values.window);
const POLL_MS = Number(values['poll-ms']);
const VALUES_PER_MESSAGE = 2;
const TARGET = { stored: 20_000, embeddedRatio: 0.6, externalRatio: 0.7 };
const run = Date.now().toString(36);

const fmt = (n, d = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d }) : 'n/a';
const results = [];

/** Forks the raw baseline (bare Aedes or a plain subscriber on an existing broker) and waits until it listens. */
async function startRaw(args) {
  const child = fork(new URL('./lib/raw-broker.mjs', import.meta.url), args, { stdio: 'inherit' });
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`raw broker exited with ${code}`)));
  });
  const count = () =>
    new Promise((resolve) => {
      child.once('message', (m) => resolve(m.received));
      child.send('count');
    });
  return {
    url: ready.url,
    count,
    async stop() {
      child.send('stop');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** The same publishers against a bare broker with one plain subscriber; the rate the subscriber receives. */
async function measureRaw(label, rawArgs, productKey) {
  const raw = await startRaw([...rawArgs, '--topic', `dev/${productKey}/+/up/#`]);
  const ids = Array.from({ length: DEVICES }, (_, i) => ({
    sn: `RAW${run}${String(i).padStart(4, '0')}`,
    product_key: productKey,
    secret: 'x',
  }));
  const devices = await connectDevices(raw.url, ids);
  let atStart = 0;
  let atEnd = 0;
  const load = await runLoad(devices, {
    seconds: SECONDS,
    warmup: WARMUP,
    window: WINDOW,
    onWindowStart: async () => (atStart = await raw.count()),
    onWindowEnd: async () => (atEnd = await raw.count()),
  });
  await closeDevices(devices);
  await new Promise((r) => setTimeout(r, 500));
  const total = await raw.count();
  await raw.stop();
  const received = ((atEnd - atStart) * 1000) / load.windowMs;
  console.log(
    `  ${label}: subscriber received ${fmt(received)} msg/s (publishers acked ${fmt(load.ackRate)}/s, ` +
      `PUBACK p50 ${fmt(load.p50, 1)} ms p99 ${fmt(load.p99, 1)} ms; ${fmt(load.acked - total)} acked but never delivered)`,
  );
  return { received, load };
}

async function fleetOn(server, productKey, prefix) {
  const api = new Api(server.base);
  await api.login();
  return api.createFleet({
    productKey,
    productName: `bench ${run}`,
    count: DEVICES,
    prefix,
    properties: [
      { key: 'temperature', name: 'temperature', unit: '°C' },
      { key: 'humidity', name: 'humidity', unit: '%' },
    ],
  });
}

/** Counts history rows of the bench devices through the API (embedded PGlite cannot be opened from outside). */
async function rowsViaApi(server, identities) {
  const api = new Api(server.base);
  await api.login();
  let rows = 0;
  for (const id of identities) {
    for (const key of ['temperature', 'humidity']) {
      const r = await api.call('GET', `/api/devices/${id.sn}/properties?key=${key}&per_page=1`);
      rows += r.total ?? 0;
    }
  }
  return rows;
}

async function benchEmbedded() {
  console.log('\nEmbedded: server with Aedes + PGlite');
  const productKey = `bench-${run}-e`;
  const raw = await measureRaw('raw bare Aedes', ['--aedes', '0'], productKey);
  if (values['raw-only']) return;
  const server = await startServer();
  try {
    const ids = await fleetOn(server, productKey, `BE${run}`);
    const devices = await connectDevices(`mqtt://127.0.0.1:${server.mqttPort}`, ids);
    let rss = 0;
    const load = await runLoad(devices, {
      seconds: SECONDS,
      warmup: WARMUP,
      window: WINDOW,
      onWindowEnd: () => (rss = procStatus(server.pid).rssKb),
    });
    await closeDevices(devices);
    let rows = NaN;
    try {
      rows = await rowsViaApi(server, ids);
    } catch (err) {
      console.log(`  (rows not counted through the API: ${err.message})`);
    }
    const stored = load.ackRate;
    const r = {
      setup: 'embedded (Aedes + PGlite)',
      stored,
      rowsPerS: stored * VALUES_PER_MESSAGE,
      p50: load.p50,
      p99: load.p99,
      raw: raw.received,
      ratio: stored / raw.received,
      target: TARGET.embeddedRatio,
      lost: Number.isFinite(rows) ? load.acked - rows / VALUES_PER_MESSAGE : NaN,
      rssMb: rss / 1024,
    };
    console.log(
      `  platform: ${fmt(r.stored)} msg/s stored (${fmt(r.rowsPerS)} rows/s), PUBACK-after-commit p50 ` +
        `${fmt(r.p50, 1)} ms p99 ${fmt(r.p99, 1)} ms; acked ${fmt(load.acked)} messages, ${fmt(rows)} rows ` +
        `counted afterwards; server RSS ${fmt(r.rssMb)} MB`,
    );
    results.push(r);
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}

/**
 * A private Mosquitto with the settings that keep a lagging subscriber from losing QoS 1 messages: the default
 * max_queued_messages (1000) drops silently once the server's queue is that long.
 */
async function startOwnMosquitto() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cellhub-bench-mosquitto-'));
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      'persistence false',
      'max_queued_messages 1000000',
      'max_inflight_messages 20000',
      'set_tcp_nodelay true',
      '',
    ].join('\n'),
  );
  const child = spawn('mosquitto', ['-c', conf], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 500));
  if (child.exitCode !== null) throw new Error('mosquitto did not start');
  return {
    url: `mqtt://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function benchExternal() {
  const own = values['own-mosquitto'] ? await startOwnMosquitto() : undefined;
  try {
    await benchExternalOn(own?.url ?? values['mqtt-url'], own ? ' private, tuned' : '');
  } finally {
    await own?.stop();
  }
}

async function benchExternalOn(mqttUrl, note) {
  console.log(`\nExternal: Mosquitto (${mqttUrl}${note}) + PostgreSQL`);
  const productKey = `bench-${run}-x`;
  const raw = await measureRaw('raw Mosquitto', ['--url', mqttUrl], productKey);
  if (values['raw-only']) return;

  const admin = new pg.Client({ connectionString: values.pg });
  await admin.connect();
  const dbName = `cellhub_bench_${run}`;
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(values.pg);
  dbUrl.pathname = `/${dbName}`;
  let server;
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  try {
    server = await startServer({ DATABASE_URL: dbUrl.toString(), MQTT_URL: mqttUrl });
    await db.connect();
    const ids = await fleetOn(server, productKey, `BX${run}`);
    const { rows: devRows } = await db.query('SELECT id, sn FROM devices WHERE product_key = $1', [
      productKey,
    ]);
    const idBySn = new Map(devRows.map((d) => [d.sn, d.id]));
    const countRows = async () => {
      const { rows } = await db.query(
        'SELECT count(*)::bigint AS n FROM device_properties WHERE device_id = ANY($1::int[])',
        [[...idBySn.values()]],
      );
      return Number(rows[0].n);
    };

    // Latency: per device, the ts of each message published in the window; a poller reads each device's newest
    // stored ts through the history index and settles every message at or before it.
    const pending = new Map(ids.map((id) => [idBySn.get(id.sn), []]));
    const latencies = [];
    let polling = true;
    const poller = (async () => {
      const deviceIds = [...idBySn.values()];
      while (polling) {
        const t0 = Date.now();
        const { rows } = await db.query(
          `SELECT d.id, (SELECT max(p.ts) FROM device_properties p
                         WHERE p.device_id = d.id AND p.key = 'humidity') AS newest
           FROM unnest($1::int[]) AS d(id)`,
          [deviceIds],
        );
        const now = Date.now();
        for (const row of rows) {
          if (!row.newest) continue;
          const newest = row.newest.getTime();
          const q = pending.get(row.id);
          while (q.length > 0 && q[0] <= newest) latencies.push(now - q.shift());
        }
        await new Promise((r) => setTimeout(r, Math.max(0, POLL_MS - (Date.now() - t0))));
      }
    })();

    const devices = await connectDevices(mqttUrl, ids);
    let rowsAtStart = 0;
    let rowsAtEnd = 0;
    let rss = 0;
    const load = await runLoad(devices, {
      seconds: SECONDS,
      warmup: WARMUP,
      window: WINDOW,
      onPublish: (d, body, measuring) => {
        if (measuring) pending.get(idBySn.get(d.id.sn)).push(body.ts);
      },
      onWindowStart: async () => (rowsAtStart = await countRows()),
      onWindowEnd: async () => {
        rss = procStatus(server.pid).rssKb;
        rowsAtEnd = await countRows();
      },
    });
    await closeDevices(devices);
    // Let the server drain what Mosquitto still holds, then see whether anything acknowledged went missing.
    let last = -1;
    let rows = await countRows();
    const drainEnd = Date.now() + 60_000;
    while (rows !== last && Date.now() < drainEnd) {
      last = rows;
      await new Promise((r) => setTimeout(r, 2000));
      rows = await countRows();
    }
    polling = false;
    await poller;
    latencies.sort((a, b) => a - b);
    const rowsPerS = ((rowsAtEnd - rowsAtStart) * 1000) / load.windowMs;
    const stored = rowsPerS / VALUES_PER_MESSAGE;
    const r = {
      setup: `external (Mosquitto${note} + PostgreSQL)`,
      stored,
      rowsPerS,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      raw: raw.received,
      ratio: stored / raw.received,
      target: TARGET.externalRatio,
      lost: load.acked - rows / VALUES_PER_MESSAGE,
      rssMb: rss / 1024,
    };
    console.log(
      `  platform: ${fmt(r.stored)} msg/s stored (${fmt(r.rowsPerS)} rows/s), publish-to-row p50 ${fmt(r.p50, 1)} ms ` +
        `p99 ${fmt(r.p99, 1)} ms (poll ${POLL_MS} ms, ${fmt(latencies.length)} samples); Mosquitto acked ` +
        `${fmt(load.ackRate)} msg/s; ${fmt(load.acked)} acked, ${fmt(rows / VALUES_PER_MESSAGE)} stored after drain; ` +
        `server RSS ${fmt(r.rssMb)} MB`,
    );
    results.push(r);
  } finally {
    await server?.stop();
    await db.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    if (server) rmSync(server.dataDir, { recursive: true, force: true });
  }
}

if (!values['no-build']) ensureServerBuilt();
console.log(
  `ingest bench: ${DEVICES} devices, QoS 1, ${VALUES_PER_MESSAGE} values per message, ${WINDOW} in flight per ` +
    `connection, ${WARMUP} s warm-up + ${SECONDS} s measured (cwd ${root})`,
);
let failed = false;
for (const [name, fn] of [
  ['embedded', benchEmbedded],
  ['external', benchExternal],
]) {
  if (values.only && values.only !== name) continue;
  try {
    await fn();
  } catch (err) {
    failed = true;
    console.error(`  ${name} failed: ${err.stack ?? err}`);
  }
}

console.log(
  '\n| setup | stored msg/s | rows/s | p50 ms | p99 ms | raw broker msg/s | ratio (target) | acked, not stored |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of results)
  console.log(
    `| ${r.setup} | ${fmt(r.stored)} | ${fmt(r.rowsPerS)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.raw)} | ` +
      `${fmt(r.ratio * 100)} % (${r.target * 100} %) | ${fmt(r.lost)} |`,
  );
for (const r of results) {
  const ok = r.stored >= TARGET.stored && r.ratio >= r.target;
  console.log(
    `${ok ? 'MEETS' : 'MISSES'} target on ${r.setup}: >= ${fmt(TARGET.stored)} msg/s stored and >= ` +
      `${r.target * 100} % of raw`,
  );
}
process.exit(failed ? 1 : 0);
