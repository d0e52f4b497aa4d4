// Device list and chart benchmark (issue 4, "Performance"): 100,000 devices and 10 million property rows written
// straight into a fresh PostgreSQL database, the server started on it, then
//   - GET /api/devices with filters and pagination at 50 concurrent requests: p50 / p99 per query shape
//     (target: p99 < 50 ms),
//   - a 30-day chart of one property (GET /api/devices/:sn/properties/series?range=30d): time per request
//     (target: < 200 ms),
//   - the Workplace figures at that size (GET /api/dashboard/overview and /trend?range=30).
// The database is created and dropped by the bench.
//
//   npm run bench:devices -- [--pg postgres://postgres@127.0.0.1:5432/postgres] [--devices 100000]
//                            [--rows 10000000] [--concurrency 50] [--requests 1000] [--keep-db] [--db <name>]
//
// Each list shape runs as the owner of all devices and as an admin (every device, no owner filter). Per shape it
// prints p50/p99, requests per second, and the CPU each request cost the server process, the PostgreSQL backends of
// the bench database (parallel query workers are not counted) and the load generator (all on the same cores), with
// the 1-minute load average before it: other work on the machine shows there. A GET /api/user/info run at the same
// concurrency gives the floor of any signed-in request at that moment. --db <name> reuses a database an earlier --keep-db run filled (no data
// generation; the server migrates it). The load generator is node:http with keep-alive (fetch cost it about twice
// the CPU per request).
//
// Runs the built server (apps/server/dist, rebuilt when stale); CELLHUB_SERVER_ENTRY=apps/server/src/main.ts with
// NODE_OPTIONS="--import tsx" runs it from sources instead.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ADMIN_PASSWORD, Api, ensureServerBuilt, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    devices: { type: 'string', default: '100000' },
    rows: { type: 'string', default: '10000000' },
    concurrency: { type: 'string', default: '50' },
    requests: { type: 'string', default: '1000' },
    'keep-db': { type: 'boolean', default: false },
    db: { type: 'string' },
  },
});
const DEVICES = Number(values.devices);
const ROWS = Number(values.rows);
const CONCURRENCY = Number(values.concurrency);
const REQUESTS = Number(values.requests);
const PRODUCTS = 10;
const DAYS = 30;
/** The device whose chart is measured gets 1 % of the rows, every ~26 s over 30 days. */
const CHART_ROWS = Math.round(ROWS / 100);

const log = (...a) => console.log(...a);
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function timed(label, fn) {
  const t0 = performance.now();
  const r = await fn();
  log(`  ${label}: ${secs(performance.now() - t0)}`);
  return r;
}

/** Fills the database the way a year of a big fleet would look, in a few bulk statements. */
async function generate(db, uid, productKeys) {
  log(`generating ${DEVICES.toLocaleString()} devices and ${ROWS.toLocaleString()} property rows`);
  await timed('devices', () =>
    db.query(
      `insert into devices (sn, uid, product_key, secret, name, imei, iccid, online, config_version,
                            expect_config_version, lastcommunicationat)
       select 'BD' || lpad(i::text, 6, '0'), $1, ($2::text[])[1 + i % $3],  'bench-not-a-secret',
              'Pump ' || i, '86' || lpad(i::text, 13, '0'), '8986' || lpad(i::text, 16, '0'),
              (i % 3 = 0)::int, 1, 1, now() - (i % 1440) * interval '1 minute'
       from generate_series(1, $4::int) as i`,
      [uid, productKeys, productKeys.length, DEVICES],
    ),
  );
  const { rows } = await db.query(`select min(id)::int as lo, max(id)::int as hi from devices`);
  const { lo, hi } = rows[0];
  // Bulk load without the history index, then build it once (as a restore would).
  await db.query(`drop index if exists device_properties_device_key_ts_idx`);
  const spread = ROWS - CHART_ROWS;
  const perDevice = Math.max(1, Math.floor(spread / DEVICES));
  await timed(`property rows (${perDevice} per device)`, () =>
    db.query(
      `insert into device_properties (device_id, key, ts, num)
       select d, case when j % 2 = 0 then 'temperature' else 'humidity' end,
              now() - (j * ($3::float8 / $4)) * interval '1 day', 20 + (d + j) % 15
       from generate_series($1::int, $2::int) as d, generate_series(1, $4::int) as j`,
      [lo, hi, DAYS, perDevice],
    ),
  );
  await timed(`chart device rows (${CHART_ROWS.toLocaleString()})`, () =>
    db.query(
      `insert into device_properties (device_id, key, ts, num)
       select $1, 'temperature', now() - (k * ($2::float8 * 86400 / $3)) * interval '1 second',
              22 + 5 * sin(k / 500.0)
       from generate_series(1, $3::int) as k`,
      [lo, DAYS, CHART_ROWS],
    ),
  );
  await timed('history index', () =>
    db.query(
      `create index device_properties_device_key_ts_idx on device_properties using btree (device_id, key, ts)`,
    ),
  );
  await timed('latest values', () =>
    db.query(
      `insert into device_property_latest (device_id, key, ts, num)
       select id, k, now(), 21 from devices, unnest(array['temperature', 'humidity']) as k`,
    ),
  );
  await timed(`daily stats (${DAYS} days)`, () =>
    db.query(
      `insert into device_daily_stats (device_id, day, messages)
       select id, current_date - g, 100 + id % 50 from devices, generate_series(0, $1::int - 1) as g
       where (id + g) % 4 <> 0`,
      [DAYS],
    ),
  );
  // What autovacuum does after a bulk load: statistics, and the visibility map index-only scans (counts) need.
  await timed('vacuum analyze', () => db.query('vacuum analyze'));
  const [{ n }] = (await db.query('select count(*)::int as n from device_properties')).rows;
  log(`  device_properties: ${n.toLocaleString()} rows`);
  return { chartSn: 'BD' + String(1).padStart(6, '0') };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** GET with the bench's keep-alive agent; answers the status and the parsed body. */
function get(url, token) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch (err) {
          reject(err);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** CPU time (user + system) of a process so far, ms; 0 once it is gone. */
function cpuMs(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

/**
 * `total` GETs with `concurrency` in flight; answers sorted latencies in ms, requests per second and the CPU per
 * request of the server, of the PostgreSQL backends serving the bench database (`pgPids`) and of this process.
 */
async function load(base, token, paths, total, concurrency, { serverPid, pgPids = async () => [] } = {}) {
  const latencies = [];
  let next = 0;
  let failed = 0;
  const pids = await pgPids();
  const pg0 = pids.map(cpuMs);
  const server0 = serverPid ? cpuMs(serverPid) : 0;
  const self0 = process.cpuUsage();
  const worker = async () => {
    while (next < total) {
      const path = paths[next++ % paths.length];
      const t0 = performance.now();
      const res = await get(base + path, token);
      latencies.push(performance.now() - t0);
      if (res.status !== 200 || res.body.status !== true) failed++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = performance.now() - t0;
  const self = process.cpuUsage(self0);
  latencies.sort((a, b) => a - b);
  return {
    latencies,
    failed,
    rps: (total / elapsed) * 1000,
    cpu: {
      server: serverPid ? (cpuMs(serverPid) - server0) / total : NaN,
      pg: pids.reduce((sum, pid, i) => sum + Math.max(0, cpuMs(pid) - pg0[i]), 0) / total,
      client: (self.user + self.system) / 1000 / total,
    },
  };
}

const load1 = () => loadavg()[0].toFixed(1);

async function main() {
  const admin = new pg.Client({ connectionString: values.pg });
  await admin.connect();
  const reuse = values.db !== undefined;
  const dbName = values.db ?? `cellhub_bench_devlist_${randomBytes(4).toString('hex')}`;
  if (!/^[a-z0-9_]+$/.test(dbName)) throw new Error(`--db: not a plain database name: ${dbName}`);
  if (!reuse) await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(values.pg);
  dbUrl.pathname = `/${dbName}`;
  let server;
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  try {
    ensureServerBuilt();
    server = await startServer({ DATABASE_URL: dbUrl.toString() });
    await db.connect();
    const api = new Api(server.base);
    const password = 'Bench12345';
    let productKeys;
    let chartSn;
    if (reuse) {
      // The filled database of an earlier --keep-db run: its bench user owns every device.
      const { rows } = await db.query(
        `select u.username from users u where u.id = (select uid from devices where uid is not null limit 1)`,
      );
      if (!rows[0]) throw new Error(`--db ${dbName}: no bench devices in it`);
      await api.login(rows[0].username, password);
      productKeys = (await db.query(`select product_key from products order by id`)).rows.map(
        (r) => r.product_key,
      );
      chartSn = 'BD' + String(1).padStart(6, '0');
      await timed('vacuum analyze (after the migrations)', () => db.query('vacuum analyze'));
      log(
        `reusing ${dbName}: ${(await db.query('select count(*)::int as n from devices')).rows[0].n} devices`,
      );
    } else {
      const username = `bench${randomBytes(3).toString('hex')}`;
      await api.call('POST', '/api/auth/register', { username, password, password2: password });
      await api.login(username, password);
      const { uid } = (await api.call('GET', '/api/user/info')).data;
      productKeys = [];
      for (let i = 0; i < PRODUCTS; i++) {
        const p = (await api.call('POST', '/api/products', { name: `Bench DTU ${i + 1}` })).data;
        productKeys.push(p.product_key);
      }
      ({ chartSn } = await generate(db, uid, productKeys));
    }
    const adminApi = new Api(server.base);
    await adminApi.login('admin', ADMIN_PASSWORD);

    const shapes = {
      'page 1, no filter': ['/api/devices?current=1&per_page=20'],
      'product filter': productKeys.map((k) => `/api/devices?current=1&per_page=20&product_key=${k}`),
      'online filter': [
        '/api/devices?current=1&per_page=20&online=1',
        '/api/devices?current=1&per_page=20&online=0',
      ],
      'product + online, page 3': productKeys.map(
        (k) => `/api/devices?current=3&per_page=20&product_key=${k}&online=1`,
      ),
      'keyword (sn, name, imei, iccid)': Array.from(
        { length: 20 },
        (_, i) => `/api/devices?current=1&per_page=20&keyword=BD0${String(1000 + i * 397).padStart(5, '0')}`,
      ),
      'deep page (page 200)': ['/api/devices?current=200&per_page=20'],
    };
    const pgPids = async () =>
      (
        await admin.query(`select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [
          dbName,
        ])
      ).rows.map((r) => r.pid);
    const opts = { serverPid: server.pid, pgPids };
    // Warm-up: connections, plans, caches.
    for (const token of [api.token, adminApi.token])
      await load(server.base, token, Object.values(shapes).flat(), 200, CONCURRENCY, opts);

    const all = [];
    let worst = { p99: 0, name: '' };
    for (const [who, token] of [
      [`the owner of all ${DEVICES.toLocaleString()} devices`, api.token],
      ['an admin (all devices, no owner filter)', adminApi.token],
    ]) {
      log(`\ndevice list, ${CONCURRENCY} concurrent requests, ${REQUESTS} per shape, signed in as ${who}`);
      log(
        '| query | load avg | p50 ms | p99 ms | max ms | req/s | CPU ms/req server / PG / client | failed |',
      );
      log('| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |');
      for (const [name, paths] of Object.entries(shapes)) {
        const before = load1();
        const r = await load(server.base, token, paths, REQUESTS, CONCURRENCY, opts);
        all.push(...r.latencies);
        const { latencies: l } = r;
        if (pct(l, 99) > worst.p99) worst = { p99: pct(l, 99), name: `${name}, ${who.split(' ')[1]}` };
        log(
          `| ${name} | ${before} | ${pct(l, 50).toFixed(1)} | ${pct(l, 99).toFixed(1)} | ${l.at(-1).toFixed(1)} | ` +
            `${r.rps.toFixed(0)} | ${r.cpu.server.toFixed(2)} / ${r.cpu.pg.toFixed(2)} / ${r.cpu.client.toFixed(2)} | ${r.failed} |`,
        );
      }
      // The same shapes one at a time: the cost of one request without queueing.
      const one = [];
      for (const paths of Object.values(shapes)) {
        const { latencies } = await load(server.base, token, paths, 50, 1);
        one.push(pct(latencies, 50).toFixed(1));
      }
      log(`one request at a time, p50 ms per shape (same order): ${one.join(' / ')}`);
    }
    // The floor of any signed-in request on this machine now: token check plus one small row.
    {
      const before = load1();
      const r = await load(server.base, api.token, ['/api/user/info'], REQUESTS, CONCURRENCY, opts);
      log(
        `\nreference, GET /api/user/info at the same concurrency (load avg ${before}): p50 ${pct(r.latencies, 50).toFixed(1)} ms, ` +
          `p99 ${pct(r.latencies, 99).toFixed(1)} ms, ${r.rps.toFixed(0)} req/s, CPU ms/req ${r.cpu.server.toFixed(2)} / ` +
          `${r.cpu.pg.toFixed(2)} / ${r.cpu.client.toFixed(2)}`,
      );
    }
    all.sort((a, b) => a - b);
    log(
      `\nall shapes, both callers: p50 ${pct(all, 50).toFixed(1)} ms, p99 ${pct(all, 99).toFixed(1)} ms; ` +
        `worst shape p99 ${worst.p99.toFixed(1)} ms (${worst.name}); load average now ${load1()}`,
    );
    const listP99 = worst.p99;

    const series = `/api/devices/${chartSn}/properties/series?key=temperature&range=30d`;
    const first = await load(server.base, api.token, [series], 1, 1);
    const seq = await load(server.base, api.token, [series], 20, 1);
    const probe = (await get(server.base + series, api.token)).body;
    const points = probe.data?.buckets ?? [];
    log(
      `\n30-day chart of one property (${CHART_ROWS.toLocaleString()} rows of that device, ${Array.isArray(points) ? points.length : '?'} buckets): ` +
        `first ${first.latencies[0].toFixed(1)} ms, then median ${pct(seq.latencies, 50).toFixed(1)} ms, ` +
        `max ${seq.latencies.at(-1).toFixed(1)} ms (20 sequential)`,
    );

    const dash = async (path) => {
      const cold = await load(server.base, api.token, [path], 1, 1);
      const warm = await load(server.base, api.token, [path], 20, 1);
      return `first ${cold.latencies[0].toFixed(1)} ms, then median ${pct(warm.latencies, 50).toFixed(1)} ms`;
    };
    log(`\nWorkplace at ${DEVICES.toLocaleString()} devices:`);
    log(`  GET /api/dashboard/overview: ${await dash('/api/dashboard/overview')}`);
    log(`  GET /api/dashboard/trend?range=30: ${await dash('/api/dashboard/trend?range=30')}`);

    log(
      `\ntargets: list p99 < 50 ms in every shape: ${listP99 < 50 ? 'met' : 'MISSED'} (worst ${listP99.toFixed(1)} ms); ` +
        `30-day chart < 200 ms: ${pct(seq.latencies, 50) < 200 ? 'met' : 'MISSED'} (median ${pct(seq.latencies, 50).toFixed(1)} ms)`,
    );
  } finally {
    await server?.stop();
    await db.end().catch(() => undefined);
    if (values['keep-db'] || reuse) log(`kept database ${dbName}`);
    else await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
