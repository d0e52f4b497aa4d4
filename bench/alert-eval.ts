// `npx tsx bench/alert-eval.ts`: what the alert evaluator adds to each ingested property message, measured inside
// one server process so the other work of a shared machine moves it little. The server is built from the sources
// (embedded PGlite in memory, no broker traffic); 100 devices and 1,000 enabled triggers (bench/ingest.mjs's mix:
// ten per device, two always true and active, the rest never met); property messages go through the gateway's
// uplink (the path an MQTT message takes after the broker: parse, checks, batched commit, then the alert hook),
// 1,600 in flight. Phases alternate the evaluator off and on (off, on, on, off, ... `--rounds`); each reports the
// process CPU time per message (user + system, judging included: the phase waits for the evaluator to finish).
// The evaluator is also timed alone (hook and judging for every message, no database work in steady state).
// Options: --messages 100000 --rounds 2
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../apps/server/src/app';
import type { DeviceRef } from '../apps/server/src/modules/devices/device-ref';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '2' },
  },
});
const MESSAGES = Number(values.messages);
const ROUNDS = Number(values.rounds);
const DEVICES = 100;
const TRIGGERS = 1000;
const IN_FLIGHT = 1600;
const PASSWORD = 'BenchAdmin1';

const KINDS = [
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

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d });

const dataDir = mkdtempSync(join(tmpdir(), 'cellhub-alert-eval-'));
const app = await buildApp({
  env: {},
  logger: false,
  config: {
    dataDir,
    databaseUrl: 'memory://',
    host: '127.0.0.1',
    mqttPort: 0,
    adminPassword: PASSWORD,
    secretKey: 'alert-eval-bench-secret-key-0123456789abcdef',
    consoleDist: join(dataDir, 'no-console'),
    rateLimitPerMinute: 0,
  },
});
await app.ready();

async function call<T>(
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  token?: string,
  payload?: object,
): Promise<T> {
  const res = await app.inject({
    method,
    url,
    payload,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.body}`);
  return (res.json() as { data: T }).data;
}

try {
  const { token } = await call<{ token: string }>('POST', '/api/auth/login', undefined, {
    username: 'admin',
    password: PASSWORD,
  });
  const product = await call<{ product_key: string }>('POST', '/api/products', token, {
    name: 'alert eval',
    properties: [
      { key: 'temperature', name: 'temperature' },
      { key: 'humidity', name: 'humidity' },
    ],
  });
  const sns = Array.from({ length: DEVICES }, (_, i) => `AE${String(i).padStart(5, '0')}`);
  await call('POST', '/api/devices', token, { product_key: product.product_key, sn: sns });
  const refs: DeviceRef[] = [];
  for (const sn of sns) {
    const d = await call<{ id: number; uid: number | null; product_key: string }>(
      'GET',
      `/api/devices/${sn}`,
      token,
    );
    refs.push({ id: d.id, sn, productKey: d.product_key, uid: d.uid });
  }
  for (let i = 0; i < TRIGGERS; i++) {
    const kind = KINDS[Math.floor(i / DEVICES) % KINDS.length]!;
    await call('POST', '/api/alert/triggers', token, { name: `t${i}`, sn: sns[i % DEVICES], ...kind });
  }
  await app.alerts.idle();
  // The evaluator hears ingest through its bus subscription; the "off" phase mutes its two entry points.
  const engine = app.alerts;
  const hooks = { properties: engine.properties, presence: engine.presence };

  /**
   * The evaluator alone, in a tight loop with no timer per call: the hook for each message, and a drain (judging)
   * after every 100 messages, so nearly every message is judged against all ten triggers of its device (the ingest
   * path merges more values per drain when busy, so this is the dearer case). Steady state: no state changes.
   */
  async function evaluatorAlone(count: number) {
    const variants = Array.from({ length: 3000 }, (_, n) => ({
      temperature: 20 + (n % 100) / 10,
      humidity: 40 + (n % 30),
    }));
    let ts = Date.now();
    // Drains at once here (no batching delay): the loop decides when to judge, every 100 messages.
    const options = app.alerts.options as { batchMs: number };
    const batchMs = options.batchMs;
    options.batchMs = 0;
    const judged0 = app.alerts.stats.evaluated;
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < count; i++) {
      app.alerts.properties(refs[i % DEVICES]!, [{ ts: ++ts, params: variants[i % variants.length]! }]);
      if (i % 100 === 99) await app.alerts.idle();
    }
    await app.alerts.idle();
    const cpu = process.cpuUsage(cpu0);
    options.batchMs = batchMs;
    return {
      usPerMsg: (cpu.user + cpu.system) / count,
      judgedPerMsg: (app.alerts.stats.evaluated - judged0) / count,
    };
  }

  let seq = 0;
  const payload = () => {
    const n = ++seq;
    return Buffer.from(
      JSON.stringify({
        ts: Date.now(),
        params: { temperature: 20 + (n % 100) / 10, humidity: 40 + (n % 30) },
      }),
    );
  };
  async function phase(on: boolean) {
    engine.properties = on ? hooks.properties : () => undefined;
    engine.presence = on ? hooks.presence : () => undefined;
    const before = app.alerts.stats.evaluated;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < MESSAGES) {
        const i = next++;
        await app.gateway.uplink(refs[i % DEVICES]!, 'property', payload());
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    await app.alerts.idle();
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return {
      on,
      cpuUsPerMsg: (cpu.user + cpu.system) / MESSAGES,
      rate: (MESSAGES * 1000) / wallMs,
      judged: app.alerts.stats.evaluated - before,
      load: loadavg()[0]!,
    };
  }

  console.log(
    `alert evaluation cost: ${DEVICES} devices, ${TRIGGERS} enabled triggers, ${fmt(MESSAGES)} messages per phase ` +
      `through the gateway, ${IN_FLIGHT} in flight (load average ${loadavg()
        .map((l) => fmt(l, 2))
        .join(' ')})`,
  );
  // Warm-up: JIT, PGlite caches, and the first values raise the always-true triggers (200 state changes).
  await phase(true);
  await phase(false);
  const runs: Awaited<ReturnType<typeof phase>>[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const on of [false, true, true, false]) {
      const p = await phase(on);
      runs.push(p);
      console.log(
        `  evaluator ${on ? 'on ' : 'off'}: ${fmt(p.cpuUsPerMsg, 2)} µs CPU per message, ${fmt(p.rate)} msg/s, ` +
          `${fmt(p.judged)} trigger conditions judged (load average ${fmt(p.load, 2)})`,
      );
    }
  }
  // After the gateway phases: its device times run ahead of the clock.
  const alone = [];
  for (let r = 0; r < 3; r++) alone.push(await evaluatorAlone(MESSAGES * 4));
  const aloneUs = Math.min(...alone.map((a) => a.usPerMsg));
  console.log(
    `  evaluator alone: ${alone.map((a) => fmt(a.usPerMsg, 3)).join(', ')} µs CPU per message ` +
      `(${fmt(alone[0]!.judgedPerMsg, 1)} conditions judged per message; best of three: ${fmt(aloneUs, 3)} µs)`,
  );
  const mean = (list: typeof runs, f: (p: (typeof runs)[number]) => number) =>
    list.reduce((a, p) => a + f(p), 0) / list.length;
  const off = runs.filter((p) => !p.on);
  const on = runs.filter((p) => p.on);
  const cpuOff = mean(off, (p) => p.cpuUsPerMsg);
  const cpuOn = mean(on, (p) => p.cpuUsPerMsg);
  console.log(
    `\nCPU per message: ${fmt(cpuOff, 2)} µs without, ${fmt(cpuOn, 2)} µs with ${TRIGGERS} triggers: ` +
      `+${fmt(cpuOn - cpuOff, 2)} µs (${fmt(((cpuOn - cpuOff) / cpuOff) * 100, 1)} %); rate ` +
      `${fmt(mean(off, (p) => p.rate))} -> ${fmt(mean(on, (p) => p.rate))} msg/s`,
  );
  const cpuOffBest = Math.min(...off.map((p) => p.cpuUsPerMsg));
  console.log(
    `The evaluator alone costs ${fmt(aloneUs, 3)} µs per message: ${fmt((aloneUs / cpuOffBest) * 100, 2)} % of a ` +
      `message's cost through the gateway without it (best phase, ${fmt(cpuOffBest, 2)} µs)`,
  );
  console.log(
    `${aloneUs / cpuOffBest <= 0.1 ? 'MEETS' : 'MISSES'} target: the evaluator adds at most 10 % to a message's cost`,
  );
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
