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
//          --triggers 1000: the embedded setup is measured without and with that many enabled alert triggers on the
//          bench devices, on fresh servers in the order without, with, with, without (drift of the shared machine
//          falls on both; --rounds N repeats that), and the drop of the stored rate is printed (target: at most
//          10 %) with the server's CPU time per stored message, which the other work on a shared machine moves less
//          --script: only the embedded server, plain property messages against raw uplinks (3-byte frames on
//          P/up/raw) decoded into the same two values by a product script (docs/scripts.md), on one server in the
//          order plain, script, script, plain; prints stored/s of each and their ratio (target: at least 50 %)
//          --instances 1,2: only the external setup, once per count: that many server instances on one PostgreSQL
//          database and Mosquitto, in one shared-subscription group (docs/scale-out.md); prints stored/s of each
//          count, the ratio to the first, each instance's share of the server CPU and the load average
import { fork, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, loadavg, tmpdir } from 'node:os';
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
    triggers: { type: 'string', default: '0' },
    rounds: { type: 'string', default: '1' },
    script: { type: 'boolean', default: false },
    instances: { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const DEVICES = Number(values.devices);
const WINDOW = Number(values.window);
const POLL_MS = Number(values['poll-ms']);
const VALUES_PER_MESSAGE = 2;
const TRIGGERS = Number(values.triggers);
/** With --instances: the instance counts to measure, in order (e.g. 1,2). */
const INSTANCES = values.instances
  ? values.instances.split(',').map((n) => {
      const v = Number(n.trim());
      if (!Number.isInteger(v) || v < 1 || v > 8)
        throw new Error(`--instances: ${n} is not a count from 1 to 8`);
      return v;
    })
  : undefined;
/** With --triggers: how many without/with/with/without sequences to run. */
const ROUNDS = Number(values.rounds);
/** Most the stored rate may drop with the triggers enabled (issue 7). */
const TRIGGER_DROP_TARGET = 0.1;
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

/**
 * The alert triggers of the bench devices, spread evenly (`n / devices` per device), as users set them: most watch
 * for what does not happen here (temperature above 50 or below 0, humidity above 90 ...), two per device hold for
 * every value the load sends (temperature between 0 and 100, humidity between 35 and 75: each raises one alert at
 * its first value and then stays active) and one is the device's offline alert (raised when created, recovered
 * when the device connects). So every message is judged against all triggers of its device and the steady state
 * changes no state, as in a fleet where alerts are the exception. Pushes are off (no contacts).
 */
const TRIGGER_KINDS = [
  { key: 'temperature', type: 4, b: 50 },
  { key: 'temperature', type: 3, a: 0 },
  { key: 'humidity', type: 4, b: 90 },
  { key: 'humidity', type: 3, a: 10 },
  { key: 'temperature', type: 5, a: 0, b: 100 },
  { key: 'temperature', type: 6, a: -40, b: 85 },
  { key: 'humidity', type: 7, a: 100 },
  { key: 'humidity', type: 5, a: 35, b: 75 },
  { type: 2 },
  { key: 'temperature', type: 4, b: 29.95 },
];

async function createTriggers(server, identities, count) {
  const api = new Api(server.base);
  await api.login();
  const t0 = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const device = identities[i % identities.length];
      const kind = TRIGGER_KINDS[Math.floor(i / identities.length) % TRIGGER_KINDS.length];
      await api.call('POST', '/api/alert/triggers', {
        name: `bench ${i}`,
        sn: device.sn,
        ...kind,
        silence_s: 300,
      });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return (Date.now() - t0) / 1000;
}

/** CPU time (user + system) a process has used, in ms, from /proc (Linux; clock ticks of 10 ms). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat(5); after the command name they are at 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The first values raise the always-true triggers and the connects recover the offline alerts: a few hundred state
 * changes once, not the steady state the rate is about. One message per device, then wait until the alerts settle.
 */
async function settleAlerts(server, devices, triggers) {
  const t0 = Date.now();
  await Promise.all(
    devices.map((d) =>
      d.client.publishAsync(
        `${d.prefix}/up/property`,
        JSON.stringify({ ts: Date.now(), params: { temperature: 25, humidity: 50 } }),
        { qos: 1 },
      ),
    ),
  );
  let expected = 0;
  for (let i = 0; i < triggers; i++) {
    const kind = Math.floor(i / devices.length) % TRIGGER_KINDS.length;
    if (kind === 4 || kind === 7) expected++;
  }
  let active = 0;
  while (Date.now() - t0 < 120_000) {
    active = (await alertCount(server)).active;
    if (active === expected) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return `${fmt(active)} alerts active before the load (settled in ${fmt((Date.now() - t0) / 1000, 1)} s)`;
}

async function alertCount(server) {
  const api = new Api(server.base);
  await api.login();
  const active = await api.call('GET', '/api/alert/history?status=active&per_page=1');
  const all = await api.call('GET', '/api/alert/history?per_page=1');
  return { active: active.total, all: all.total };
}

/** One measured run of the platform on a fresh embedded server, with `triggers` enabled alert triggers. */
async function embeddedPhase(productKey, raw, triggers, phase) {
  const server = await startServer();
  try {
    const ids = await fleetOn(server, productKey, `BE${run}${phase}`);
    let note = '';
    if (triggers > 0) {
      const took = await createTriggers(server, ids, triggers);
      note = `; ${fmt(triggers)} triggers created in ${fmt(took, 1)} s`;
    }
    const devices = await connectDevices(`mqtt://127.0.0.1:${server.mqttPort}`, ids);
    // The settling messages are stored too: counted with the acknowledged ones when looking for losses.
    let settled = 0;
    if (triggers > 0) {
      note += `; ${await settleAlerts(server, devices, triggers)}`;
      settled = devices.length;
    }
    const load1 = loadavg()[0];
    let rss = 0;
    let cpuAtStart = 0;
    let cpuAtEnd = 0;
    const load = await runLoad(devices, {
      seconds: SECONDS,
      warmup: WARMUP,
      window: WINDOW,
      onWindowStart: () => (cpuAtStart = cpuMs(server.pid)),
      onWindowEnd: () => {
        cpuAtEnd = cpuMs(server.pid);
        rss = procStatus(server.pid).rssKb;
      },
    });
    const cpuUsPerMsg = ((cpuAtEnd - cpuAtStart) * 1000) / ((load.ackRate * load.windowMs) / 1000);
    await closeDevices(devices);
    let rows = NaN;
    try {
      rows = await rowsViaApi(server, ids);
    } catch (err) {
      console.log(`  (rows not counted through the API: ${err.message})`);
    }
    const alerts = triggers > 0 ? await alertCount(server) : undefined;
    const stored = load.ackRate;
    const r = {
      setup: `embedded (Aedes + PGlite)${triggers > 0 ? `, ${fmt(triggers)} alert triggers` : ''}`,
      triggers,
      stored,
      rowsPerS: stored * VALUES_PER_MESSAGE,
      p50: load.p50,
      p99: load.p99,
      raw: raw.received,
      ratio: stored / raw.received,
      target: TARGET.embeddedRatio,
      lost: Number.isFinite(rows) ? load.acked + settled - rows / VALUES_PER_MESSAGE : NaN,
      rssMb: rss / 1024,
      load1,
      cpuUsPerMsg,
    };
    console.log(
      `  platform${triggers > 0 ? ` with ${fmt(triggers)} triggers` : ''} (load average ${fmt(load1, 2)}): ` +
        `${fmt(r.stored)} msg/s stored (${fmt(r.rowsPerS)} rows/s), PUBACK-after-commit p50 ` +
        `${fmt(r.p50, 1)} ms p99 ${fmt(r.p99, 1)} ms; acked ${fmt(load.acked)} messages, ${fmt(rows)} rows ` +
        `counted afterwards; server CPU ${fmt(cpuUsPerMsg, 1)} µs per stored message; server RSS ` +
        `${fmt(r.rssMb)} MB${note}` +
        (alerts ? `; alerts raised ${fmt(alerts.all)} (${fmt(alerts.active)} active)` : ''),
    );
    return r;
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}

async function benchEmbedded() {
  console.log(
    `\nEmbedded: server with Aedes + PGlite (load average ${loadavg()
      .map((l) => fmt(l, 2))
      .join(' ')})`,
  );
  const productKey = `bench-${run}-e`;
  const raw = await measureRaw('raw bare Aedes', ['--aedes', '0'], productKey);
  if (values['raw-only']) return;
  if (TRIGGERS <= 0) {
    results.push(await embeddedPhase(productKey, raw, 0, 'a'));
    return;
  }
  const phases = Array.from({ length: ROUNDS }, () => [0, TRIGGERS, TRIGGERS, 0]).flat();
  const runs = [];
  for (const [i, n] of phases.entries())
    runs.push(await embeddedPhase(productKey, raw, n, String.fromCharCode(97 + i)));
  const mean = (list) => list.reduce((a, r) => a + r.stored, 0) / list.length;
  const without = runs.filter((r) => r.triggers === 0);
  const withT = runs.filter((r) => r.triggers > 0);
  const avg = (list) => ({
    ...list[0],
    stored: mean(list),
    rowsPerS: mean(list) * VALUES_PER_MESSAGE,
    p50: list.reduce((a, r) => a + r.p50, 0) / list.length,
    p99: list.reduce((a, r) => a + r.p99, 0) / list.length,
    ratio: mean(list) / raw.received,
    lost: list.reduce((a, r) => a + r.lost, 0),
  });
  results.push(avg(without), avg(withT));
  const drop = 1 - mean(withT) / mean(without);
  const cpu = (list) => list.reduce((a, r) => a + r.cpuUsPerMsg, 0) / list.length;
  triggerSummary = {
    without: mean(without),
    with: mean(withT),
    drop,
    runs,
    cpuWithout: cpu(without),
    cpuWith: cpu(withT),
  };
}

let triggerSummary;

/** Stored/s through a decoding script at least this share of plain ingest (issue 16). */
const SCRIPT_RATIO_TARGET = 0.5;
const SCRIPT_SOURCE = `function decode(bytes, ctx) {
  if (bytes.length !== 3) throw new Error('frame of ' + bytes.length + ' bytes');
  var t = (bytes[0] << 8) | bytes[1];
  if (t & 0x8000) t -= 0x10000;
  return { properties: { temperature: t / 10, humidity: bytes[2] } };
}`;
/** The reading as the script's frame: temperature x 10 as int16 big-endian, humidity as one byte. */
const frameOf = (params) => {
  const b = Buffer.alloc(3);
  b.writeInt16BE(Math.round(params.temperature * 10), 0);
  b[2] = params.humidity;
  return b;
};
let scriptSummary;

/**
 * Plain property messages and raw frames through a script on one embedded server, alternating (plain, script,
 * script, plain) so drift of a shared machine falls on both. A raw frame is acknowledged once its raw row is written
 * and its decoded values committed, so the PUBACK rate is the stored rate; rows are counted afterwards.
 */
async function benchScript() {
  const loadNow = () =>
    loadavg()
      .map((l) => fmt(l, 2))
      .join(' ');
  console.log(
    `\nScript: raw frames decoded by a product script vs plain property messages (load average ${loadNow()})`,
  );
  const server = await startServer();
  try {
    const plainIds = await fleetOn(server, `bench-${run}-p`, `BP${run}`);
    const scriptIds = await fleetOn(server, `bench-${run}-s`, `BS${run}`);
    const api = new Api(server.base);
    await api.login();
    const script = (
      await api.call('POST', '/api/scripts', {
        name: 'bench decoder',
        product_key: `bench-${run}-s`,
        source: SCRIPT_SOURCE,
      })
    ).data;
    const url = `mqtt://127.0.0.1:${server.mqttPort}`;
    const runs = [];
    for (const kind of ['plain', 'script', 'script', 'plain']) {
      const devices = await connectDevices(url, kind === 'plain' ? plainIds : scriptIds);
      let cpuAtStart = 0;
      let cpuAtEnd = 0;
      const load1 = loadavg()[0];
      const load = await runLoad(devices, {
        seconds: SECONDS,
        warmup: WARMUP,
        window: WINDOW,
        rawFrame: kind === 'script' ? frameOf : undefined,
        onWindowStart: () => (cpuAtStart = cpuMs(server.pid)),
        onWindowEnd: () => (cpuAtEnd = cpuMs(server.pid)),
      });
      await closeDevices(devices);
      const cpuUsPerMsg = ((cpuAtEnd - cpuAtStart) * 1000) / load.ackedInWindow;
      runs.push({ kind, stored: load.ackRate, acked: load.acked, p50: load.p50, p99: load.p99, cpuUsPerMsg });
      console.log(
        `  ${kind} (load average ${fmt(load1, 2)}): ${fmt(load.ackRate)} msg/s stored, PUBACK-after-commit p50 ` +
          `${fmt(load.p50, 1)} ms p99 ${fmt(load.p99, 1)} ms; server CPU ${fmt(cpuUsPerMsg, 1)} µs per message`,
      );
    }
    const rows = await rowsViaApi(server, scriptIds);
    const scriptAcked = runs.filter((r) => r.kind === 'script').reduce((a, r) => a + r.acked, 0);
    let counters;
    for (let i = 0; i < 20; i++) {
      counters = (await api.call('GET', `/api/scripts/${script.id}`)).data;
      if (counters.calls >= scriptAcked) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const mean = (kind, key = 'stored') => {
      const list = runs.filter((r) => r.kind === kind);
      return list.reduce((a, r) => a + r[key], 0) / list.length;
    };
    scriptSummary = {
      plain: mean('plain'),
      script: mean('script'),
      ratio: mean('script') / mean('plain'),
      cpuPlain: mean('plain', 'cpuUsPerMsg'),
      cpuScript: mean('script', 'cpuUsPerMsg'),
      runs,
      lost: scriptAcked - rows / VALUES_PER_MESSAGE,
      counters,
    };
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
    const mqttUrl = own?.url ?? values['mqtt-url'];
    const note = own ? ' private, tuned' : '';
    if (!INSTANCES) {
      await benchExternalOn(mqttUrl, note);
      return;
    }
    // One raw baseline for every count: the broker and publishers do not change with the instances behind them.
    console.log(`\nExternal: Mosquitto (${mqttUrl}${note}) + PostgreSQL, instances ${INSTANCES.join(', ')}`);
    const raw = await measureRaw('raw Mosquitto', ['--url', mqttUrl], `bench-${run}-x`);
    if (values['raw-only']) return;
    for (const n of INSTANCES) await benchExternalOn(mqttUrl, note, { instances: n, raw });
  } finally {
    await own?.stop();
  }
}

/** The server's MQTT clientId on an external broker (instanceClientId in apps/server/src/plugins/broker.ts). */
const instanceClientId = (dataDir) =>
  `cellhub-server-${createHash('sha256').update(`${hostname()}\u0000${dataDir}`).digest('hex').slice(0, 12)}`;

/** Ends the persistent sessions servers left on the broker (they would queue device traffic for ever). */
async function dropSessions(mqttUrl, dataDirs) {
  const { default: mqtt } = await import('mqtt');
  for (const dir of dataDirs) {
    const c = await mqtt
      .connectAsync(mqttUrl, { clientId: instanceClientId(dir), clean: true, reconnectPeriod: 0 })
      .catch(() => undefined);
    await c?.endAsync();
  }
}

async function benchExternalOn(mqttUrl, note, scale) {
  const instances = scale?.instances ?? 1;
  if (!scale) console.log(`\nExternal: Mosquitto (${mqttUrl}${note}) + PostgreSQL`);
  else console.log(`\n  ${instances} instance${instances > 1 ? 's' : ''} (load average ${loadNow()})`);
  const productKey = `bench-${run}-x${scale ? instances : ''}`;
  const raw = scale?.raw ?? (await measureRaw('raw Mosquitto', ['--url', mqttUrl], productKey));
  if (values['raw-only']) return;

  const admin = new pg.Client({ connectionString: values.pg });
  await admin.connect();
  const dbName = `cellhub_bench_${run}${scale ? `_${instances}` : ''}`;
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(values.pg);
  dbUrl.pathname = `/${dbName}`;
  let server;
  const servers = [];
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  try {
    // A group of this run's own: sessions other runs left on the broker must not take a share of its traffic.
    const serverEnv = {
      DATABASE_URL: dbUrl.toString(),
      MQTT_URL: mqttUrl,
      MQTT_SHARE_GROUP: `bench-${run}-${instances}`,
      // One key for every instance (docs/scale-out.md): each would otherwise make its own in its DATA_DIR and could
      // not open the device secrets another sealed, and drop those devices' messages as from unknown devices.
      SECRET_KEY: `bench-${run}-${'k'.repeat(32)}`,
    };
    server = await startServer(serverEnv);
    servers.push(server);
    // The first applied the migrations; the others join the same database and group.
    servers.push(...(await Promise.all(Array.from({ length: instances - 1 }, () => startServer(serverEnv)))));
    await db.connect();
    const ids = await fleetOn(server, productKey, `BX${run}${scale ? instances : ''}`);
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
    let load1 = NaN;
    let cpuAtStart = [];
    let cpuAtEnd = [];
    const load = await runLoad(devices, {
      seconds: SECONDS,
      warmup: WARMUP,
      window: WINDOW,
      onPublish: (d, body, measuring) => {
        if (measuring) pending.get(idBySn.get(d.id.sn)).push(body.ts);
      },
      onWindowStart: async () => {
        load1 = loadavg()[0];
        cpuAtStart = servers.map((x) => cpuMs(x.pid));
        rowsAtStart = await countRows();
      },
      onWindowEnd: async () => {
        cpuAtEnd = servers.map((x) => cpuMs(x.pid));
        rss = servers.reduce((a, x) => a + procStatus(x.pid).rssKb, 0);
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
    const cpu = cpuAtEnd.map((c, i) => c - cpuAtStart[i]);
    const cpuTotal = cpu.reduce((a, c) => a + c, 0);
    const r = {
      setup: `external (Mosquitto${note} + PostgreSQL)${scale ? `, ${instances} instance${instances > 1 ? 's' : ''}` : ''}`,
      instances,
      load1,
      cpuShares: cpu.map((c) => (cpuTotal > 0 ? c / cpuTotal : NaN)),
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
        `server RSS ${fmt(r.rssMb)} MB` +
        (scale
          ? `; load average ${fmt(load1, 2)} at the window's start; server CPU split ` +
            `${r.cpuShares.map((c) => `${fmt(c * 100)} %`).join(' / ')}`
          : ''),
    );
    results.push(r);
  } finally {
    await Promise.all(servers.map((x) => x.stop()));
    await dropSessions(
      mqttUrl,
      servers.map((x) => x.dataDir),
    ).catch(() => undefined);
    await db.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    for (const x of servers) rmSync(x.dataDir, { recursive: true, force: true });
  }
}

const loadNow = () =>
  loadavg()
    .map((l) => fmt(l, 2))
    .join(' ');

if (!values['no-build']) ensureServerBuilt();
console.log(
  `ingest bench: ${DEVICES} devices, QoS 1, ${VALUES_PER_MESSAGE} values per message, ${WINDOW} in flight per ` +
    `connection, ${WARMUP} s warm-up + ${SECONDS} s measured (cwd ${root})`,
);
let failed = false;
for (const [name, fn] of values.script
  ? [['script', benchScript]]
  : [
      ['embedded', benchEmbedded],
      ['external', benchExternal],
    ]) {
  if (values.only && values.only !== name) continue;
  if (INSTANCES && name !== 'external') continue;
  try {
    await fn();
  } catch (err) {
    failed = true;
    console.error(`  ${name} failed: ${err.stack ?? err}`);
  }
}

if (scriptSummary) {
  const t = scriptSummary;
  console.log(
    `\nScripts: ${fmt(t.plain)} msg/s stored plain, ${fmt(t.script)} msg/s stored through the script (runs ` +
      `${t.runs.map((r) => `${r.kind} ${fmt(r.stored)}`).join(', ')}): ratio ${fmt(t.ratio * 100, 1)} %; server CPU ` +
      `${fmt(t.cpuPlain, 1)} µs plain, ${fmt(t.cpuScript, 1)} µs with the script per message; script counters: ` +
      `${fmt(t.counters?.calls)} calls, ${fmt(t.counters?.errors)} errors, ${fmt(t.counters?.avg_ms, 3)} ms per call; ` +
      `${fmt(t.lost)} acked but not stored; load average now ${loadavg()
        .map((l) => fmt(l, 2))
        .join(' ')}`,
  );
  console.log(
    `${t.ratio >= SCRIPT_RATIO_TARGET ? 'MEETS' : 'MISSES'} target: stored/s through a script at least ` +
      `${SCRIPT_RATIO_TARGET * 100} % of plain ingest`,
  );
  process.exit(failed ? 1 : 0);
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
if (triggerSummary) {
  const t = triggerSummary;
  console.log(
    `\nAlert triggers: ${fmt(t.without)} msg/s stored without, ${fmt(t.with)} msg/s with ${fmt(TRIGGERS)} enabled ` +
      `triggers (means of ${t.runs.map((r) => fmt(r.stored)).join(', ')} in the order run): ` +
      `${t.drop >= 0 ? 'drop' : 'gain'} ${fmt(Math.abs(t.drop) * 100, 1)} %`,
  );
  console.log(
    `Server CPU per stored message: ${fmt(t.cpuWithout, 1)} µs without, ${fmt(t.cpuWith, 1)} µs with the triggers ` +
      `(${t.cpuWith >= t.cpuWithout ? '+' : ''}${fmt((t.cpuWith / t.cpuWithout - 1) * 100, 1)} %); load average now ` +
      `${loadavg()
        .map((l) => fmt(l, 2))
        .join(' ')}`,
  );
  console.log(
    `${t.drop <= TRIGGER_DROP_TARGET ? 'MEETS' : 'MISSES'} target: at most ${TRIGGER_DROP_TARGET * 100} % drop ` +
      `with ${fmt(TRIGGERS)} triggers`,
  );
}
if (INSTANCES && results.length > 0) {
  const base = results[0];
  console.log(
    `\nInstances: ${results
      .map((r) => `${r.instances} -> ${fmt(r.stored)} msg/s stored (load average ${fmt(r.load1, 2)})`)
      .join(', ')}`,
  );
  for (const r of results.slice(1))
    console.log(
      `  ${r.instances} instances vs ${base.instances}: x${fmt(r.stored / base.stored, 2)} stored/s ` +
        `(on one machine the instances share its cores with PostgreSQL, Mosquitto and the publishers)`,
    );
  console.log(`Load average now ${loadNow()}`);
}
for (const r of results) {
  const ok = r.stored >= TARGET.stored && r.ratio >= r.target;
  console.log(
    `${ok ? 'MEETS' : 'MISSES'} target on ${r.setup}: >= ${fmt(TARGET.stored)} msg/s stored and >= ` +
      `${r.target * 100} % of raw`,
  );
}
process.exit(failed ? 1 : 0);
