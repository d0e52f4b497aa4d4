// `node bench/floor.mjs [--pg postgres://…/db] [--concurrency 50] [--requests 5000]`: the latency floor of this
// machine at the device list's concurrency, to read the list figures against (bench/RESULTS.md). Same load
// generator as bench/device-list.mjs (node:http, keep-alive, N requests always in flight) against
//   1. a bare node:http server answering a constant (no framework, no database),
//   2. the built server's GET /api/health (Fastify, one `select 1`), on PostgreSQL when --pg is given.
import http from 'node:http';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { ensureServerBuilt, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    pg: { type: 'string' },
    concurrency: { type: 'string', default: '50' },
    requests: { type: 'string', default: '5000' },
  },
});
const concurrency = Number(values.concurrency);
const total = Number(values.requests);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

function get(url) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
      })
      .on('error', reject);
  });
}

async function measure(label, url) {
  for (let i = 0; i < 200; i++) await get(url); // warm-up
  const times = [];
  let next = 0;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) times.push(await get(url));
    }),
  );
  const seconds = (Date.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
  console.log(
    `| ${label} | ${loadavg()[0].toFixed(1)} | ${q(0.5)} | ${q(0.99)} | ${Math.round(times.length / seconds)} |`,
  );
}

console.log(`latency floor, ${concurrency} requests in flight, ${total} requests each`);
console.log('| target | load avg | p50 ms | p99 ms | req/s |');
console.log('| --- | ---: | ---: | ---: | ---: |');
const bare = http.createServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end('{"status":true,"data":{"ok":true}}');
});
await new Promise((r) => bare.listen(0, '127.0.0.1', r));
await measure('bare node:http, constant answer', `http://127.0.0.1:${bare.address().port}/`);
bare.close();

ensureServerBuilt();
const server = await startServer(values.pg ? { DATABASE_URL: values.pg } : {});
try {
  await measure(
    `GET /api/health (select 1, ${values.pg ? 'PostgreSQL' : 'PGlite'})`,
    `${server.base}/api/health`,
  );
} finally {
  await server.stop();
  agent.destroy();
}
