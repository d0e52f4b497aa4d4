import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import mqtt, { type MqttClient } from 'mqtt';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upTopic } from '@cellhub/contract/protocol';
import type { WsServerMessage } from '@cellhub/contract/realtime';
import { openSocket, type TestSocket } from '../test/ws-test-client';
import { figure, sized } from './figures';
import { CODE_TYPE, grown, type HeapSummary, summarise, withoutCode } from './heap-snapshot';
import {
  ADMIN_PASSWORD,
  adminLogin,
  api,
  freePorts,
  privateStore,
  removeChildBundle,
  type ServerChild,
  startServerChild,
  type Store,
} from './server-child';

/**
 * "1,000 devices for 30 minutes with the console open on a live device page: server memory growth under 10 %, p99
 * ingest latency flat, browser heap flat."
 *
 * A server in a child process (from source, PostgreSQL of its own, the built console from apps/console/dist), a
 * devsim fleet reporting properties every few seconds, a handful of probe devices in this process whose reports carry
 * their send time, and Chromium on the live device page of one probe. Sampled every few seconds: the server's RSS
 * (/proc) and heap (its own process.memoryUsage()), the ingest latency (a probe's publish to the WebSocket push of
 * the stored value, seen by a test client), and the page's JS heap (CDP, after a forced collection).
 */

const DEVICES = sized(200, 1000);
const MINUTES = Number(process.env.SOAK_MINUTES ?? sized(0.75, 30));
const DURATION_MS = MINUTES * 60_000;
/** Nothing before this counts: connections, caches, JIT and the page settle. */
const WARMUP_MS = sized(12_000, 3 * 60_000);
/** First and last windows compared (after warm-up). */
const WINDOW_MS = sized(10_000, 3 * 60_000);
const SAMPLE_MS = sized(2_000, 10_000);
/** Devsim: seconds between one device's reports. */
const REPORT_EVERY_S = 5;
const PROBES = 5;

const CONSOLE_DIST = fileURLToPath(new URL('../../../console/dist', import.meta.url));
const DEVSIM = fileURLToPath(new URL('../../../devsim/src/cli.ts', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveConsole = existsSync(path.join(CONSOLE_DIST, 'index.html'));
const haveChromium = existsSync(CHROMIUM);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}
const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;

interface Sample {
  at: number;
  rssMb: number;
  heapMb: number;
  browserHeapMb: number | undefined;
}

describe('soak: a fleet for a long while, the console open on a live device page', () => {
  let store: Store;
  let server: ServerChild | undefined;
  let devsim: ChildProcess | undefined;
  let browser: Browser | undefined;
  let socket: TestSocket | undefined;
  const probes: MqttClient[] = [];

  beforeAll(async () => {
    store = await privateStore('soak');
  });
  afterAll(async () => {
    socket?.close();
    await Promise.all(probes.map((p) => p.endAsync(true)));
    await browser?.close();
    if (devsim && devsim.exitCode === null) {
      devsim.kill('SIGINT');
      await new Promise((r) => devsim!.once('exit', r));
    }
    await server?.stop();
    await store?.drop();
    removeChildBundle();
  });

  it(
    `${DEVICES} devices for ${MINUTES} min: memory and latency flat`,
    async () => {
      const [port, mqttPort] = (await freePorts(2)) as [number, number];
      server = await startServerChild({
        store,
        port,
        mqttPort,
        env: { CONSOLE_DIST, ...(haveConsole ? {} : { CONSOLE_DIST: path.join(store.dataDir, 'none') }) },
      });
      const token = await adminLogin(port);
      const { product_key: pk } = await api<{ product_key: string }>(port, token, 'POST', '/api/products', {
        name: 'Soak DTU',
        properties: [
          { key: 'temperature', name: '温度', name_us: 'Temperature', unit: '°C' },
          { key: 'humidity', name: '湿度', name_us: 'Humidity', unit: '%' },
          { key: 'rssi', name: '信号', name_us: 'RSSI', unit: 'dBm' },
          { key: 'sent_ms', name: '发送时间', name_us: 'Sent at', unit: 'ms' },
        ],
      });
      // The probes: devices of this process whose reports carry their send time.
      const probeSns = Array.from({ length: PROBES }, (_, i) => `PROBE-${i + 1}`);
      await api(port, token, 'POST', '/api/devices', { product_key: pk, sn: probeSns });
      const probeSecrets: string[] = [];
      for (const sn of probeSns) {
        probeSecrets.push((await api<{ secret: string }>(port, token, 'GET', `/api/devices/${sn}`)).secret);
      }

      // The fleet: devsim creates its devices through the API and reports every REPORT_EVERY_S seconds.
      const fleetFile = path.join(store.dataDir, 'fleet.json');
      devsim = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          DEVSIM,
          '--api',
          `http://127.0.0.1:${port}`,
          '--password',
          ADMIN_PASSWORD,
          '--product',
          pk,
          '--create',
          String(DEVICES),
          '--prefix',
          'SOAK',
          '--url',
          `mqtt://127.0.0.1:${mqttPort}`,
          '--rate',
          String(1 / REPORT_EVERY_S),
          '--props',
          'temperature,humidity,rssi',
          '--status-every',
          '10',
          '--save',
          fleetFile,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let devsimLast = '';
      devsim.stdout!.on('data', (b: Buffer) => {
        const lines = b.toString().trim().split('\n');
        devsimLast = lines[lines.length - 1] ?? devsimLast;
      });
      // The whole fleet connected (devsim's status line), before anything is measured.
      const connected = new RegExp(`connected ${DEVICES}/${DEVICES}`);
      const fleetDeadline = Date.now() + sized(90_000, 300_000);
      while (!connected.test(devsimLast)) {
        if (Date.now() > fleetDeadline) throw new Error(`devsim did not connect the fleet: ${devsimLast}`);
        if (devsim.exitCode !== null) throw new Error(`devsim exited: ${devsimLast}`);
        await sleep(500);
      }
      writeFileSync(path.join(store.dataDir, 'probes.json'), JSON.stringify(probeSns));

      // A test client on the WebSocket: the push of each stored probe value gives its latency.
      socket = await openSocket(`ws://127.0.0.1:${port}/api/ws`);
      socket.send({ type: 'auth', token });
      await socket.next('ready', undefined, 10_000);
      socket.send({ type: 'subscribe', sns: probeSns });
      const latencies: { at: number; ms: number }[] = [];
      // Measured as each push arrives (a look at the buffer now and then would add up to a sample period).
      socket.listen((m: WsServerMessage) => {
        if (m.type !== 'event' || m.event.type !== 'device.properties') return;
        const sent = m.event.values.sent_ms;
        if (typeof sent === 'number') latencies.push({ at: Date.now(), ms: Date.now() - sent });
      });
      // Keep memory bounded on a 30-minute run: the socket's own list of messages is not read here.
      const collect = () => {
        socket!.messages.length = 0;
      };

      for (let i = 0; i < PROBES; i++) {
        const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
          clientId: probeSns[i],
          username: probeSns[i],
          password: probeSecrets[i],
          reconnectPeriod: 1000,
        });
        probes.push(c);
      }
      let reporting = true;
      const probeLoop = (async () => {
        for (let n = 0; reporting; n++) {
          for (let i = 0; i < PROBES; i++) {
            const body = { params: { sent_ms: Date.now(), temperature: 20 + (n % 10) } };
            probes[i]!.publish(upTopic(pk, probeSns[i]!, 'property'), JSON.stringify(body), { qos: 1 });
            await sleep(1000 / PROBES);
          }
        }
      })();

      // The console on the live device page of the first probe.
      let page: Page | undefined;
      let cdp: CDPSession | undefined;
      if (haveConsole && haveChromium) {
        browser = await chromium.launch({
          executablePath: CHROMIUM,
          args: ['--no-sandbox', '--disable-gpu'],
        });
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        // The console keeps its token in localStorage (seed section 4): signed in without the form.
        await context.addInitScript((t: string) => {
          (
            globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }
          ).localStorage.setItem('token', t);
        }, token);
        page = await context.newPage();
        await page.goto(`http://127.0.0.1:${port}/device/detail/${pk}/${probeSns[0]}?tab=properties`);
        await page.getByTestId('device-status').waitFor({ timeout: 30_000 });
        // Live: the latest value on the page changes without a reload.
        const cell = page.getByTestId('latest-temperature');
        const first = await cell.textContent({ timeout: 30_000 });
        const liveDeadline = Date.now() + 20_000;
        while ((await cell.textContent()) === first) {
          if (Date.now() > liveDeadline) throw new Error('the device page did not update live');
          await sleep(250);
        }
        cdp = await context.newCDPSession(page);
        await cdp.send('Performance.enable');
      }
      // Heap snapshots of the page after the first window and at the end: what grew, by kind (heap-snapshot.ts).
      // SOAK_HEAP_DIR also keeps them as files, for DevTools' comparison view.
      const heapDir = process.env.SOAK_HEAP_DIR;
      const snapshots: HeapSummary[] = [];
      const snapshot = async (name: string) => {
        if (!cdp) return;
        const chunks: string[] = [];
        const onChunk = (e: { chunk: string }) => chunks.push(e.chunk);
        cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
        await cdp.send('HeapProfiler.collectGarbage');
        await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
        cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
        const text = chunks.join('');
        if (heapDir) writeFileSync(path.join(heapDir, `${name}.heapsnapshot`), text);
        snapshots.push(summarise(text));
      };
      let snapshotted = false;
      // SOAK_SNAPSHOT_EVERY_MIN: a snapshot summary every so many minutes too, to see whether V8's code levels off.
      const everyMs = Number(process.env.SOAK_SNAPSHOT_EVERY_MIN ?? 0) * 60_000;
      const series: { min: number; total: number; withoutCode: number; code: number }[] = [];
      let nextSeries = everyMs;
      const browserHeapMb = async (): Promise<number | undefined> => {
        if (!cdp) return undefined;
        await cdp.send('HeapProfiler.collectGarbage');
        const { metrics } = await cdp.send('Performance.getMetrics');
        const used = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
        return used / 1024 / 1024;
      };

      // The page's heap is read (each look forces a full collection) in the two windows only: a forced collection
      // every SAMPLE_MS for the whole soak made V8 recompile and re-optimise more (heap snapshots: +1.38 MB of code
      // against +0.54 MB, bench/RESULTS.md), which a user's browser does not. SOAK_GC_EVERY_SAMPLE=1 reads it always.
      const gcInWindowsOnly = process.env.SOAK_GC_EVERY_SAMPLE !== '1';
      const measureBrowserNow = (at: number) =>
        !gcInWindowsOnly ||
        (at >= WARMUP_MS && at < WARMUP_MS + WINDOW_MS + SAMPLE_MS) ||
        at >= DURATION_MS - WINDOW_MS - SAMPLE_MS;

      // The soak.
      const samples: Sample[] = [];
      const started = Date.now();
      while (Date.now() - started < DURATION_MS) {
        await sleep(SAMPLE_MS);
        collect();
        const mem = await server.memory();
        samples.push({
          at: Date.now() - started,
          rssMb: server.rssKb() / 1024,
          heapMb: mem.heapUsed / 1024 / 1024,
          browserHeapMb: measureBrowserNow(Date.now() - started) ? await browserHeapMb() : undefined,
        });
        expect(devsim.exitCode, `devsim exited: ${devsimLast}`).toBeNull();
        if (!snapshotted && Date.now() - started >= WARMUP_MS + WINDOW_MS) {
          snapshotted = true;
          await snapshot('after-first-window');
        }
        if (everyMs > 0 && cdp && Date.now() - started >= nextSeries) {
          const min = Math.round(nextSeries / 60_000);
          nextSeries += everyMs;
          await snapshot(`at-${min}-min`);
          const s = snapshots.pop()!;
          const mb = (x: number) => Math.round((x / 1024 / 1024) * 100) / 100;
          series.push({
            min,
            total: mb(s.total),
            withoutCode: mb(withoutCode(s)),
            code: mb(s.byType.get(CODE_TYPE)?.size ?? 0),
          });
          console.log(`[soak] heap at ${min} min`, JSON.stringify(series.at(-1)));
        }
      }
      await snapshot('end');
      reporting = false;
      await probeLoop;
      collect();
      const end = Date.now() - started;

      // Windows after warm-up: the first and the last.
      const inFirst = (at: number) => at >= WARMUP_MS && at < WARMUP_MS + WINDOW_MS;
      const inLast = (at: number) => at >= end - WINDOW_MS;
      const first = samples.filter((s) => inFirst(s.at));
      const last = samples.filter((s) => inLast(s.at));
      const latFirst = latencies.filter((l) => inFirst(l.at - started)).map((l) => l.ms);
      const latLast = latencies.filter((l) => inLast(l.at - started)).map((l) => l.ms);
      expect(first.length, 'samples in the first window').toBeGreaterThan(1);
      expect(last.length, 'samples in the last window').toBeGreaterThan(1);
      expect(latFirst.length, 'latency samples in the first window').toBeGreaterThan(10);
      expect(latLast.length, 'latency samples in the last window').toBeGreaterThan(10);

      const growth = (a: number[], b: number[]) => (mean(b) - mean(a)) / mean(a);
      const rssGrowth = growth(
        first.map((s) => s.rssMb),
        last.map((s) => s.rssMb),
      );
      const heapGrowth = growth(
        first.map((s) => s.heapMb),
        last.map((s) => s.heapMb),
      );
      const p99First = quantile(latFirst, 0.99);
      const p99Last = quantile(latLast, 0.99);
      const bFirst = first.map((s) => s.browserHeapMb).filter((x): x is number => x !== undefined);
      const bLast = last.map((s) => s.browserHeapMb).filter((x): x is number => x !== undefined);
      const browserGrowth = bFirst.length > 0 && bLast.length > 0 ? growth(bFirst, bLast) : undefined;

      const detail =
        `${DEVICES} devsim devices every ${REPORT_EVERY_S} s + ${PROBES} probes at 1/s, ${MINUTES} min; ` +
        `warm-up ${WARMUP_MS / 1000} s, windows of ${WINDOW_MS / 1000} s, a sample every ${SAMPLE_MS / 1000} s`;
      const pct = (x: number) => Math.round(x * 1000) / 10;
      figure({ name: 'soak.devices', value: DEVICES, unit: 'count', detail });
      figure({ name: 'soak.minutes', value: MINUTES, unit: 'min', detail });
      figure({
        name: 'soak.server_rss_growth',
        value: pct(rssGrowth),
        unit: '%',
        target: '< 10 %',
        detail: `RSS ${mean(first.map((s) => s.rssMb)).toFixed(0)} -> ${mean(last.map((s) => s.rssMb)).toFixed(0)} MB`,
      });
      figure({
        name: 'soak.server_heap_growth',
        value: pct(heapGrowth),
        unit: '%',
        detail: `heap used ${mean(first.map((s) => s.heapMb)).toFixed(0)} -> ${mean(last.map((s) => s.heapMb)).toFixed(0)} MB`,
      });
      figure({
        name: 'soak.p99_first_ms',
        value: p99First,
        unit: 'ms',
        detail: `${latFirst.length} probe reports, publish to WebSocket push`,
      });
      figure({
        name: 'soak.p99_last_ms',
        value: p99Last,
        unit: 'ms',
        target: `<= 1.5 x first (${Math.round(p99First * 1.5)} ms)`,
        detail: `${latLast.length} probe reports`,
      });
      figure({
        name: 'soak.browser_heap_growth',
        value: browserGrowth === undefined ? 'not measured' : pct(browserGrowth),
        unit: browserGrowth === undefined ? undefined : '%',
        target: '< 10 %',
        detail:
          browserGrowth === undefined
            ? `no ${haveConsole ? '' : 'console build (npm run build -w apps/console)'}${haveChromium ? '' : ` Chromium at ${CHROMIUM}`}`
            : `JS heap after a forced GC ${mean(bFirst).toFixed(1)} -> ${mean(bLast).toFixed(1)} MB, device detail page`,
      });

      if (series.length > 0)
        figure({
          name: 'soak.browser_snapshot_series',
          value: series.length,
          unit: 'snapshots',
          detail: series
            .map((x) => `${x.min} min: ${x.total} MB (${x.withoutCode} + code ${x.code})`)
            .join('; '),
        });
      if (snapshots.length === 2) {
        const [a, b] = snapshots as [HeapSummary, HeapSummary];
        const mb = (x: number) => (x / 1024 / 1024).toFixed(2);
        const top = grown(a.byName, b.byName, 6)
          .filter((g) => g.size > 0)
          .map((g) => `${g.key} ${g.count >= 0 ? '+' : ''}${g.count} (${(g.size / 1024).toFixed(0)} KB)`);
        figure({
          name: 'soak.browser_snapshot_growth',
          value: pct((b.total - a.total) / a.total),
          unit: '%',
          detail: `heap snapshots after the first window and at the end: ${mb(a.total)} -> ${mb(b.total)} MB; grew most: ${top.join('; ')}`,
        });
        figure({
          name: 'soak.browser_snapshot_growth_without_code',
          value: pct((withoutCode(b) - withoutCode(a)) / withoutCode(a)),
          unit: '%',
          detail:
            `the same without V8's code (bytecode, feedback, compiled code): ${mb(withoutCode(a))} -> ` +
            `${mb(withoutCode(b))} MB; code ${mb(a.byType.get(CODE_TYPE)?.size ?? 0)} -> ${mb(b.byType.get(CODE_TYPE)?.size ?? 0)} MB`,
        });
      }

      expect(rssGrowth, 'server RSS growth after warm-up').toBeLessThan(0.1);
      // A millisecond figure on a shared machine: "flat" is 1.5 x the first window's p99, with 50 ms of room for
      // a first window that happened to be very quiet.
      expect(p99Last, 'p99 ingest latency of the last window').toBeLessThanOrEqual(
        Math.max(p99First * 1.5, p99First + 50),
      );
      if (browserGrowth !== undefined) expect(browserGrowth, 'browser heap growth').toBeLessThan(0.1);
    },
    DURATION_MS + sized(150_000, 900_000),
  );
});
