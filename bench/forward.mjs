#!/usr/bin/env node
// `npm run bench:forward`: property ingest with one HTTP forwarding rule (docs/forwarding.md) to a local receiver,
// on the embedded server (Aedes + PGlite). Devices publish QoS 1 properties at a fixed total rate (a QoS 1 PUBACK
// comes after the rows commit, so PUBACKs are stored messages); the receiver answers 200 and keeps the first copy of
// each message id (the idempotency key), as a user's system would. In the same measured window it prints
//   stored/s      PUBACKs per second
//   forwarded/s   distinct messages the receiver took per second, and its ratio to stored/s (target: at least 80 %)
//   p50/p99       stored-to-delivered: the receiver's clock minus the message's `stored_at` (same machine)
// then waits for the queue to drain and counts messages lost (stored, never forwarded) and duplicates (copies the
// idempotency key made harmless).
// Options: --seconds 10 --warmup 3 --devices 20 --rate 200 (messages/s in all; 0: as fast as the server takes them,
//          16 in flight per device) --batch 1 (the rule's batch_max: messages of one device per request)
//          --port 19400 (receiver; the server takes the next two) --no-build
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { closeDevices, connectDevices, percentile, runLoad } from './lib/load.mjs';
import { Api, ensureServerBuilt, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    devices: { type: 'string', default: '20' },
    rate: { type: 'string', default: '200' },
    batch: { type: 'string', default: '1' },
    port: { type: 'string', default: '19400' },
    'no-build': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const DEVICES = Number(values.devices);
const RATE = Number(values.rate);
const BATCH = Number(values.batch);
const PORT = Number(values.port);
const TARGET_RATIO = 0.8;
const run = Date.now().toString(36);
const fmt = (n, d = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d }) : 'n/a';

/** The receiver: 200 to every POST, first copy of each message id kept with its arrival time. */
function startReceiver(port) {
  const seen = new Map();
  let requests = 0;
  let duplicates = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      requests++;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        // One message, or a batching rule's array of them.
        for (const m of Array.isArray(body) ? body : [body]) {
          if (seen.has(m.id)) duplicates++;
          else seen.set(m.id, { at, stored: Date.parse(m.stored_at), sn: m.sn });
        }
      } catch {
        // not ours
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${port}`,
        seen,
        stats: () => ({ requests, duplicates, distinct: seen.size }),
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

/** `rate` messages per second spread over the devices (each on its own timer), QoS 1; PUBACKs counted. */
async function pacedLoad(devices, { seconds, warmup, rate, onWindowStart, onWindowEnd }) {
  let acked = 0;
  let errors = 0;
  let running = true;
  let seq = 0;
  const every = (devices.length * 1000) / rate;
  const timers = devices.map((d, i) => {
    const tick = () => {
      if (!running) return;
      const n = ++seq;
      const body = { ts: Date.now(), params: { temperature: 20 + (n % 100) / 10, humidity: 40 + (n % 30) } };
      d.client
        .publishAsync(`${d.prefix}/up/property`, JSON.stringify(body), { qos: 1 })
        .then(() => acked++)
        .catch(() => errors++);
    };
    // Spread the devices over one interval so the load is even, not a burst per tick.
    const start = setTimeout(
      () => {
        tick();
        timers[i].interval = setInterval(tick, every);
      },
      (i * every) / devices.length,
    );
    return { start, interval: undefined };
  });
  await new Promise((r) => setTimeout(r, warmup * 1000));
  const t0 = performance.now();
  const ackedAtStart = acked;
  await onWindowStart?.();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const windowMs = performance.now() - t0;
  const ackedInWindow = acked - ackedAtStart;
  await onWindowEnd?.();
  running = false;
  for (const t of timers) {
    clearTimeout(t.start);
    clearInterval(t.interval);
  }
  await new Promise((r) => setTimeout(r, 1000));
  return { windowMs, ackedInWindow, ackRate: (ackedInWindow * 1000) / windowMs, acked, errors };
}

async function main() {
  if (!values['no-build']) ensureServerBuilt();
  const receiver = await startReceiver(PORT);
  const server = await startServer({
    PORT: String(PORT + 1),
    MQTT_PORT: String(PORT + 2),
    // The receiver is on loopback: allowed by the admin's list, exactly as an on-premise target would be.
    OUTBOUND_ALLOW: `127.0.0.1:${PORT}`,
  });
  try {
    const api = new Api(server.base);
    await api.login();
    const productKey = `fwd${run}`.slice(0, 20);
    const identities = await api.createFleet({
      productKey,
      productName: `forward bench ${run}`,
      count: DEVICES,
      prefix: `FWD${run}`,
      properties: [
        { key: 'temperature', name: 'temperature', unit: '°C' },
        { key: 'humidity', name: 'humidity', unit: '%' },
      ],
    });
    const rule = (
      await api.call('POST', '/api/forwarding', {
        name: 'bench',
        product_key: productKey,
        kinds: ['property'],
        target: { kind: 'http', method: 'POST', url: `${receiver.url}/ingest`, batch_max: BATCH },
      })
    ).data;
    const devices = await connectDevices(`mqtt://127.0.0.1:${server.mqttPort}`, identities);
    let windowStart = 0;
    let windowEnd = 0;
    let storedBefore = 0;
    const load =
      RATE > 0
        ? await pacedLoad(devices, {
            seconds: SECONDS,
            warmup: WARMUP,
            rate: RATE,
            onWindowStart: () => (windowStart = Date.now()),
            onWindowEnd: () => (windowEnd = Date.now()),
          })
        : await runLoad(devices, {
            seconds: SECONDS,
            warmup: WARMUP,
            window: 16,
            onWindowStart: () => (windowStart = Date.now()),
            onWindowEnd: () => (windowEnd = Date.now()),
          });
    storedBefore = load.acked;
    await closeDevices(devices);
    // Forwarded in the window: distinct messages the receiver took between its edges.
    const inWindow = [...receiver.seen.values()].filter((m) => m.at >= windowStart && m.at < windowEnd);
    const forwardedRate = (inWindow.length * 1000) / (windowEnd - windowStart);
    const latencies = inWindow.map((m) => m.at - m.stored).sort((a, b) => a - b);
    // Drain: everything stored must arrive.
    const drainStart = Date.now();
    let pending = -1;
    while (Date.now() - drainStart < 120_000) {
      const r = (await api.call('GET', `/api/forwarding/${rule.id}`)).data;
      pending = r.counters.pending;
      if (pending === 0 && receiver.seen.size >= storedBefore) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const drainS = (Date.now() - drainStart) / 1000;
    const final = (await api.call('GET', `/api/forwarding/${rule.id}`)).data;
    const rx = receiver.stats();
    const ratio = forwardedRate / load.ackRate;
    const [l1, l5, l15] = loadavg();
    console.log(
      `\nforward bench (${DEVICES} devices, ${RATE > 0 ? `${RATE} msg/s` : 'as fast as stored'}, batch_max ${BATCH}, ${SECONDS} s window, load average ${fmt(l1, 2)} ${fmt(l5, 2)} ${fmt(l15, 2)})`,
    );
    console.log(
      `  stored      ${fmt(load.ackRate, 1)} msg/s (PUBACKs in the window; ${load.errors} publish errors)`,
    );
    console.log(
      `  forwarded   ${fmt(forwardedRate, 1)} msg/s = ${fmt(ratio * 100, 1)} % of stored (target >= ${TARGET_RATIO * 100} %: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'})`,
    );
    console.log(
      `  stored-to-delivered p50 ${fmt(percentile(latencies, 50), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms, max ${fmt(latencies.at(-1), 1)} ms (${latencies.length} messages)`,
    );
    console.log(
      `  after the load: drained in ${fmt(drainS, 1)} s; stored ${storedBefore}, forwarded ${rx.distinct}, lost ${Math.max(0, storedBefore - rx.distinct)}, ` +
        `pending ${pending}, dead ${final.counters.dead}; requests ${rx.requests}, duplicates dropped by id ${rx.duplicates}`,
    );
  } finally {
    await server.stop();
    await receiver.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
