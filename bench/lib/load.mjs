// The load generator of the ingest bench: N device connections, each keeping a window of QoS 1 publishes in
// flight, so the broker (and behind it the platform) sets the pace. Same code for the raw and the platform runs.
import { performance } from 'node:perf_hooks';
import mqtt from 'mqtt';

/** Opens one connection per identity ({sn, product_key, secret}); clientId = username = sn as PROTOCOL.md says. */
export async function connectDevices(url, identities, { connectConcurrency = 50 } = {}) {
  const clients = new Array(identities.length);
  let next = 0;
  const worker = async () => {
    while (next < identities.length) {
      const i = next++;
      const id = identities[i];
      const client = mqtt.connect(url, {
        clientId: id.sn,
        username: id.sn,
        password: id.secret,
        reconnectPeriod: 0,
        keepalive: 60,
        clean: true,
      });
      await new Promise((resolve, reject) => {
        client.once('connect', resolve);
        client.once('error', reject);
        client.once('close', () => reject(new Error(`connection of ${id.sn} closed`)));
      });
      client.on('error', () => undefined);
      clients[i] = { client, id, prefix: `dev/${id.product_key}/${id.sn}` };
    }
  };
  await Promise.all(Array.from({ length: connectConcurrency }, worker));
  return clients;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Publishes property messages (two values each) for `warmup + seconds`, `window` in flight per connection.
 * Only PUBACKs inside the measured window count. Returns counts and publish-to-PUBACK latencies (ms).
 */
export async function runLoad(
  devices,
  { seconds, warmup = 2, window = 16, withId = false, onPublish, onWindowStart, onWindowEnd, rawFrame },
) {
  let running = true;
  let measuring = false;
  let sent = 0;
  let acked = 0;
  let errors = 0;
  let latencySamples = 0;
  const latencies = [];
  let seq = 0;
  const pump = async (d) => {
    while (running) {
      const n = ++seq;
      const t0 = performance.now();
      const body = {
        ...(withId ? { id: `b${n}` } : {}),
        ts: Date.now(),
        params: { temperature: 20 + (n % 100) / 10, humidity: 40 + (n % 30) },
      };
      sent++;
      const counted = measuring;
      onPublish?.(d, body, counted);
      try {
        // rawFrame: the same reading as bytes on P/up/raw (a product script decodes them; bench:ingest --script).
        if (rawFrame) await d.client.publishAsync(`${d.prefix}/up/raw`, rawFrame(body.params), { qos: 1 });
        else await d.client.publishAsync(`${d.prefix}/up/property`, JSON.stringify(body), { qos: 1 });
      } catch {
        errors++;
        if (!d.client.connected) return;
        continue;
      }
      acked++;
      if (counted && measuring) {
        latencySamples++;
        latencies.push(performance.now() - t0);
      }
    }
  };
  const pumps = [];
  for (const d of devices) for (let w = 0; w < window; w++) pumps.push(pump(d));
  await new Promise((r) => setTimeout(r, warmup * 1000));
  measuring = true;
  const start = performance.now();
  const ackedAtStart = acked;
  // Hooks sample other counters (subscriber, database) at the window's edges; they must not stall the pumps.
  const startHook = onWindowStart?.();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  const windowMs = performance.now() - start;
  const ackedAtEnd = acked;
  await onWindowEnd?.();
  await startHook;
  running = false;
  await Promise.race([Promise.all(pumps), new Promise((r) => setTimeout(r, 30_000))]);
  latencies.sort((a, b) => a - b);
  return {
    sent,
    acked,
    errors,
    windowMs,
    ackedInWindow: ackedAtEnd - ackedAtStart,
    ackRate: ((ackedAtEnd - ackedAtStart) * 1000) / windowMs,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    latencySamples,
  };
}

export async function closeDevices(devices) {
  await Promise.all(devices.map((d) => d.client.endAsync(true).catch(() => undefined)));
}
