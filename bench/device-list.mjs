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
//                            [--rows 10000000] [--concurrency 50] [--requests 1000] [--keep-db]
//
// Runs the built server (apps/server/dist, rebuilt when stale); CELLHUB_SERVER_ENTRY=apps/server/src/main.ts with
// NODE_OPTIONS="--import tsx" runs it from sources instead.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Api, ensureServerBuilt, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    devices: { type: 'string', default: '100000' },
    rows: { type: 'string', default: '10000000' },
    concurrency: { type: 'string', default: '50' },
    requests: { type: 'string', default: '1000' },
    'keep-db': { type: 'boolean', default: false },
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

/** `total` GETs with `concurrency` in flight; answers sorted latencies in ms. */
async function load(base, token, paths, total, concurrency) {
  const latencies = [];
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < total) {
      const path = paths[next++ % paths.length];
      const t0 = performance.now();
      const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
      const body = await res.json();
      latencies.push(performance.now() - t0);
      if (!res.ok || body.status !== true) failed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  latencies.sort((a, b) => a - b);
  return { latencies, failed };
}

async function main() {
  const admin = new pg.Client({ connectionString: values.pg });
  await admin.connect();
  const dbName = `cellhub_bench_devlist_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(values.pg);
  dbUrl.pathname = `/${dbName}`;
  let server;
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  try {
    ensureServerBuilt();
    server = await startServer({ DATABASE_URL: dbUrl.toString() });
    await db.connect();
    const api = new Api(server.base);
    const username = `bench${randomBytes(3).toString('hex')}`;
    const password = 'Bench12345';
    await api.call('POST', '/api/auth/register', { username, password, password2: password });
    await api.login(username, password);
    const { uid } = (await api.call('GET', '/api/user/info')).data;
    const productKeys = [];
    for (let i = 0; i < PRODUCTS; i++) {
      const p = (await api.call('POST', '/api/products', { name: `Bench DTU ${i + 1}` })).data;
      productKeys.push(p.product_key);
    }
    const { chartSn } = await generate(db, uid, productKeys);

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
    // Warm-up: connections, plans, caches.
    await load(server.base, api.token, Object.values(shapes).flat(), 200, CONCURRENCY);

    log(
      `\ndevice list, ${CONCURRENCY} concurrent requests, ${REQUESTS} per shape (signed in as the owner of all ${DEVICES.toLocaleString()} devices)`,
    );
    log('| query | p50 ms | p99 ms | max ms | failed |');
    log('| --- | ---: | ---: | ---: | ---: |');
    const all = [];
    for (const [name, paths] of Object.entries(shapes)) {
      const { latencies, failed } = await load(server.base, api.token, paths, REQUESTS, CONCURRENCY);
      all.push(...latencies);
      log(
        `| ${name} | ${pct(latencies, 50).toFixed(1)} | ${pct(latencies, 99).toFixed(1)} | ${latencies.at(-1).toFixed(1)} | ${failed} |`,
      );
    }
    all.sort((a, b) => a - b);
    log(
      `| all shapes | ${pct(all, 50).toFixed(1)} | ${pct(all, 99).toFixed(1)} | ${all.at(-1).toFixed(1)} | |`,
    );
    const listP99 = pct(all, 99);
    // The same shapes one at a time: the cost of one request without queueing.
    const single = [];
    for (const paths of Object.values(shapes)) {
      const { latencies } = await load(server.base, api.token, paths, 50, 1);
      single.push(pct(latencies, 50).toFixed(1));
    }
    log(`one request at a time, p50 ms per shape (same order): ${single.join(' / ')}`);

    const series = `/api/devices/${chartSn}/properties/series?key=temperature&range=30d`;
    const first = await load(server.base, api.token, [series], 1, 1);
    const seq = await load(server.base, api.token, [series], 20, 1);
    const probe = await (
      await fetch(server.base + series, { headers: { authorization: `Bearer ${api.token}` } })
    ).json();
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
      `\ntargets: list p99 < 50 ms: ${listP99 < 50 ? 'met' : 'MISSED'} (${listP99.toFixed(1)} ms); ` +
        `30-day chart < 200 ms: ${pct(seq.latencies, 50) < 200 ? 'met' : 'MISSED'} (median ${pct(seq.latencies, 50).toFixed(1)} ms)`,
    );
  } finally {
    await server?.stop();
    await db.end().catch(() => undefined);
    if (values['keep-db']) log(`kept database ${dbName}`);
    else await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
