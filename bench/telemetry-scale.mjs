// Telemetry at scale (issue 21, docs/telemetry-scale.md): property rows generated with generate_series into the
// weekly partitions of device_properties in a throwaway PostgreSQL database, then
//   - the first rollup pass over the whole history (telemetry-maintenance.service.ts `rollUp`),
//   - a 30-day chart of one property, raw rows only (the same-run baseline) against the server's chart path (hourly
//     rollups beyond a week, raw rows within it): median and worst of --repeat runs, and a check that both give
//     the same buckets,
//   - retention: (a) one product of ten keeps --retention-days, the others keep for ever: rows deleted one by one;
//     (b) every product keeps --retention-days: whole partitions dropped, the rest of the boundary week deleted.
//
//   npm run bench:telemetry-scale -- [--rows 100000000] [--devices 1000] [--days 90] [--retention-days 30]
//                                    [--repeat 20] [--pg postgres://...] [--keep-db]
//
// The database (cellhub_bench_tscale_<random>) is created on the server of --pg (default TEST_DATABASE_URL, else
// postgres://postgres@127.0.0.1:5432/postgres), migrated with the server's migrations, and dropped at the end unless
// --keep-db. The bench calls the server's own functions (through tsx), not copies of their SQL. Every figure is
// printed with the 1-minute load average before it: the machine may be shared.
import { randomBytes } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { register } from 'tsx/esm/api';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000000' },
    devices: { type: 'string', default: '1000' },
    days: { type: 'string', default: '90' },
    'retention-days': { type: 'string', default: '30' },
    repeat: { type: 'string', default: '20' },
    pg: {
      type: 'string',
      default: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
    'keep-db': { type: 'boolean', default: false },
  },
});
const ROWS = Number(values.rows);
const DEVICES = Number(values.devices);
const DAYS = Number(values.days);
const RETENTION = Number(values['retention-days']);
const REPEAT = Number(values.repeat);
const PRODUCTS = 10;
const DAY_MS = 86_400_000;
/** Rows per INSERT ... generate_series statement. */
const CHUNK = 5_000_000;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (...a) => console.log(...a);
const load = () => loadavg()[0].toFixed(2);
const ms = (x) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;
const secs = (x) => `${(x / 1000).toFixed(1)} s`;

async function timed(label, fn) {
  const la = load();
  const t0 = performance.now();
  const r = await fn();
  log(`  ${label}: ${secs(performance.now() - t0)} (load ${la})`);
  return r;
}

register();
const { openDatabase } = await import(path.join(root, 'apps/server/src/db/client.ts'));
const maintenance = await import(
  path.join(root, 'apps/server/src/modules/telemetry/telemetry-maintenance.service.ts')
);
const history = await import(
  path.join(root, 'apps/server/src/modules/telemetry/telemetry-history.service.ts')
);

const name = `cellhub_bench_tscale_${randomBytes(4).toString('hex')}`;
const adminUrl = new URL(values.pg);
const admin = new pg.Client({ connectionString: adminUrl.toString() });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const database = await openDatabase(url.toString(), tmpdir());
const db = database.db;
// Plain SQL of the bench itself (data generation, counts).
const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
pool.on('error', () => undefined);
const now = new Date();
const silent = { info() {}, warn() {}, error() {}, debug() {} };
const deps = { db, now: () => now, log: silent };

try {
  log(
    `telemetry scale: ${ROWS.toLocaleString()} rows, ${DEVICES} devices, ${DAYS} days, database ${name} ` +
      `(${adminUrl.host})`,
  );
  await timed('migrations', () => database.migrate());
  await pool.query(
    `insert into products (name, product_key, product_secret)
     select 'bench ' || i, 'tscale' || i, 'bench-not-a-secret' from generate_series(1, $1::int) as i`,
    [PRODUCTS],
  );
  await pool.query(
    `insert into devices (sn, product_key, secret)
     select 'TS' || lpad(i::text, 7, '0'), 'tscale' || (1 + i % $2), 'bench-not-a-secret'
     from generate_series(1, $1::int) as i`,
    [DEVICES, PRODUCTS],
  );
  const { rows: idRows } = await pool.query(`select min(id)::int as lo from devices`);
  const lo = idRows[0].lo;

  // The weeks of the history, made the way the job makes them (each pass: its week and two ahead).
  await timed('partitions', async () => {
    for (let t = now.getTime() - DAYS * DAY_MS; t <= now.getTime() + 7 * DAY_MS; t += 7 * DAY_MS)
      await maintenance.ensurePartitions({ db, now: () => new Date(t) });
  });
  const parts = await maintenance.listPartitions(db);
  log(`  ${parts.length} weekly partitions`);

  // Bulk load without the history index, then build it once on every partition (as a restore would).
  await pool.query(`drop index if exists device_properties_device_key_ts_idx`);
  await timed(
    `${ROWS.toLocaleString()} rows (generate_series, ${CHUNK.toLocaleString()} per statement)`,
    async () => {
      for (let first = 0; first < ROWS; first += CHUNK) {
        const last = Math.min(ROWS, first + CHUNK) - 1;
        // Row i: device lo + i % DEVICES, evenly spread over DAYS days back from now, one key in two.
        await pool.query(
          `insert into device_properties (device_id, key, ts, num)
         select $1::int + i % $2::int, case when (i / $2::int) % 2 = 0 then 'temp' else 'hum' end,
                $3::timestamptz - (i::float8 * $4::float8 / $5::float8) * interval '1 second',
                20 + 10 * sin(i / 5000.0)
         from generate_series($6::bigint, $7::bigint) as i`,
          [lo, DEVICES, now.toISOString(), DAYS * 86_400, ROWS, first, last],
        );
      }
    },
  );
  await timed('history index', () =>
    pool.query(
      `create index device_properties_device_key_ts_idx on device_properties using btree (device_id, key, ts)`,
    ),
  );
  await timed('vacuum analyze', () => pool.query('vacuum analyze device_properties'));

  const rolled = await timed('first rollup pass (whole history)', () => maintenance.rollUp(deps));
  const { rows: hourly } = await pool.query(`select count(*)::int as n from device_property_hourly`);
  log(`  ${rolled.hours} hours rolled, ${hourly[0].n.toLocaleString()} rollup rows`);
  await pool.query('vacuum analyze device_property_hourly');

  // The 30-day chart of device lo's temperature: raw rows (baseline) against the server's path.
  const w = { ...history.seriesWindow({ key: 'temp', range: '30d' }, now), to: new Date(now.getTime() + 1) };
  const figures = {};
  let raw;
  let chart;
  for (const [label, fn] of [
    ['raw rows only', () => history.propertyBuckets(db, lo, 'temp', w)],
    ['rollups beyond 7 days + raw', () => history.chartBuckets(db, lo, 'temp', w, now)],
  ]) {
    const la = load();
    const times = [];
    for (let i = 0; i < REPEAT; i++) {
      const t0 = performance.now();
      const r = await fn();
      times.push(performance.now() - t0);
      if (label.startsWith('raw')) raw = r;
      else chart = r;
    }
    times.sort((a, b) => a - b);
    figures[label] = { median: times[Math.floor(times.length / 2)], worst: times[times.length - 1], la };
  }
  const { rows: chartRows } = await pool.query(
    `select count(*)::int as n from device_properties where device_id = $1 and key = 'temp' and ts >= $2`,
    [lo, w.from],
  );
  log(`30-day chart (${chartRows[0].n.toLocaleString()} rows in the window, ${REPEAT} runs each):`);
  for (const [label, f] of Object.entries(figures))
    log(`  ${label}: median ${ms(f.median)}, worst ${ms(f.worst)} (load ${f.la})`);
  const same =
    raw.length === chart.buckets.length &&
    raw.every(
      (b, i) =>
        b.ts === chart.buckets[i].ts &&
        b.count === chart.buckets[i].count &&
        Math.abs(b.avg - chart.buckets[i].avg) < 1e-9 &&
        b.min === chart.buckets[i].min &&
        b.max === chart.buckets[i].max,
    );
  log(`  source ${chart.source}, rollups before ${chart.rollupBefore?.toISOString()}, same buckets: ${same}`);
  if (!same) process.exitCode = 1;

  const total = async () =>
    (await pool.query(`select count(*)::bigint as n from device_properties`)).rows[0].n;
  log(`retention (${RETENTION} days), ${Number(await total()).toLocaleString()} rows before:`);
  await pool.query(`update products set retention_days = $1 where product_key = 'tscale1'`, [RETENTION]);
  const a = await timed('(a) one product of ten, others keep for ever', () =>
    maintenance.applyRetention(deps),
  );
  log(`      dropped ${a.dropped.length} partitions, deleted ${a.deleted.toLocaleString()} rows`);
  await pool.query(`update products set retention_days = $1`, [RETENTION]);
  const b = await timed('(b) every product', () => maintenance.applyRetention(deps));
  log(
    `      dropped ${b.dropped.length} partitions, deleted ${b.deleted.toLocaleString()} rows, ` +
      `${Number(await total()).toLocaleString()} rows left`,
  );
} finally {
  await pool.end();
  await database.close();
  if (values['keep-db']) log(`kept database ${name}`);
  else await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
