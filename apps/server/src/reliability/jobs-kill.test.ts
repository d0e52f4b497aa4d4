import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drizzle } from 'drizzle-orm/node-postgres';
import mqtt, { type MqttClient } from 'mqtt';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downTopic, upTopic } from '@cellhub/contract/protocol';
import { enqueueNotification } from '../modules/notify/notify.service';
import { eventually } from '../test/gateway-test-kit';
import { firmwareImage } from '../test/ota-test-kit';
import { FAULTS } from '../test/sim-providers/fake-http';
import { FakeOnelink } from '../test/sim-providers/onelink-fake';
import { newIccid } from '../test/sim-test-support';
import { figure, sized } from './figures';
import { MailReceiver } from './mail-receiver';
import {
  adminLogin,
  api,
  freePorts,
  privateStore,
  removeChildBundle,
  seeded,
  type ServerChild,
  startServerChild,
  type Store,
} from './server-child';

/**
 * "A worker killed mid-job 100 times per job kind (OTA step, notification, SIM sync, forwarding): exactly one effect
 * per event; a provider down for minutes: no loss, no duplicate."
 *
 * One server runs in a child process from source on a PostgreSQL database of its own, with every job kind busy at
 * once; it is killed with SIGKILL at seeded random moments and started again on the same database and ports. Each
 * kind's effects land at a local receiver that records them with the key the product sends: the forwarding
 * message id (HTTP header), the email Message-ID (SMTP), the OTA upgrade id (the command a device gets). SIM sync
 * only reads from the operator (a read needs no key): its effect is the run's one recorded pass over the cards.
 * Effects are at least once by nature; after dedup by the key every event must have exactly one, and none none.
 *
 * Leases are what a killed worker leaves behind. Each restart starts the child's clock (deps.now(), the clock of
 * every lease and backoff) 11 minutes further on, past the longest lease (SIM sync, 10 minutes), so the test does
 * not sleep through them; the provider-down phase moves it on after the outage to make the retries due.
 */

const KILLS = Number(process.env.JOBS_KILL_KILLS ?? sized(3, 100));
/** A worker lives this long (uniform) between its start and its kill. */
const LIFE_MS = sized([800, 2500], [500, 3000]) as [number, number];
const OUTAGE_MS = sized(5_000, 120_000);
const SEED = Number(process.env.JOBS_KILL_SEED ?? 20);
const JUMP_MS = 11 * 60_000;
/** Forwarding: devices and reports per device per second. */
const FWD_DEVICES = 4;
const FWD_RATE = 8;
/** Notifications queued at each start. */
const MAILS_PER_GEN = 8;
/** SIM: providers and cards each. */
const SIM_PROVIDERS = 2;
const SIM_CARDS = 15;
/** OTA: devices of the task, upgrading at most this many at once. */
const OTA_DEVICES = sized(12, 200);
const OTA_CONCURRENT = 4;

const T0 = Date.now();
/** Progress lines with JOBS_KILL_DEBUG=1. */
const trace = (...a: unknown[]) => {
  if (process.env.JOBS_KILL_DEBUG) console.log(`[${((Date.now() - T0) / 1000).toFixed(1)}s]`, ...a);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Looks every 200 ms until `check` answers a value; fails after `ms` with what `describe` says. */
async function until<T>(check: () => Promise<T | undefined>, ms: number, describe: () => string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`not in time: ${describe()}`);
    await sleep(200);
  }
}

// --- receivers ------------------------------------------------------------------------------------------------------

/** The forwarding target: records every delivery it answered 200 by message id; answers 503 while down. */
class ForwardReceiver {
  url = '';
  down = false;
  /** message id -> copies received (answered 200). */
  readonly copies = new Map<string, number>();
  /** `${sn}:${seq}` -> message ids. */
  readonly byEvent = new Map<string, Set<string>>();
  refused = 0;
  private server: Server | undefined;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (this.down) {
          this.refused += 1;
          res.writeHead(503).end();
          return;
        }
        const id = String(req.headers['x-cellhub-message-id']);
        const msg = JSON.parse(Buffer.concat(chunks).toString()) as {
          sn: string;
          data: { params: { seq: number } };
        };
        this.copies.set(id, (this.copies.get(id) ?? 0) + 1);
        const key = `${msg.sn}:${msg.data.params.seq}`;
        const ids = this.byEvent.get(key) ?? new Set<string>();
        ids.add(id);
        this.byEvent.set(key, ids);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

/** An OTA device on the child's broker that reconnects after each kill and records every command it gets. */
class OtaDevice {
  client: MqttClient | undefined;
  readonly commands: string[] = [];
  readonly finished = new Set<string>();
  /** What the client reported as errors (a refused CONNECT among them), with the time. */
  readonly errors: string[] = [];
  fwVersion = '1.0.0';

  constructor(
    readonly sn: string,
    readonly productKey: string,
    readonly secret: string,
    private readonly rand: () => number,
  ) {}

  connect(mqttPort: number): void {
    const c = mqtt.connect(`mqtt://127.0.0.1:${mqttPort}`, {
      clientId: this.sn,
      username: this.sn,
      password: this.secret,
      reconnectPeriod: 300,
      connectTimeout: 5000,
    });
    this.client = c;
    c.on('error', (e) => this.errors.push(`${((Date.now() - T0) / 1000).toFixed(1)}s ${e.message}`));
    c.on('connect', () => {
      void (async () => {
        await c.subscribeAsync(`dev/${this.productKey}/${this.sn}/down/#`, { qos: 1 });
        // What a real DTU says after each (re)connect: online, and the version it runs.
        await c.publishAsync(this.up('status'), '{"online":1}', { qos: 1 });
        await c.publishAsync(this.up('info'), JSON.stringify({ fw_version: this.fwVersion }), { qos: 1 });
      })().catch(() => undefined);
    });
    c.on('message', (topic, payload) => {
      if (topic !== downTopic(this.productKey, this.sn, 'ota')) return;
      const cmd = JSON.parse(payload.toString()) as { id: string; version: string };
      this.commands.push(cmd.id);
      void this.handle(cmd).catch(() => undefined);
    });
  }

  private up(kind: 'status' | 'info' | 'ota') {
    return upTopic(this.productKey, this.sn, kind);
  }

  private async handle(cmd: { id: string; version: string }): Promise<void> {
    const c = this.client!;
    // A command it has already carried out (a copy sent again) is recognised by its id and answered at once.
    if (this.finished.has(cmd.id)) {
      await c.publishAsync(this.up('ota'), JSON.stringify({ id: cmd.id, status: 4 }), { qos: 1 });
      return;
    }
    await c.publishAsync(this.up('ota'), JSON.stringify({ id: cmd.id, status: 5 }), { qos: 1 });
    await sleep(400 + this.rand() * 800);
    this.finished.add(cmd.id);
    this.fwVersion = cmd.version;
    await c.publishAsync(this.up('ota'), JSON.stringify({ id: cmd.id, status: 4 }), { qos: 1 });
    await c.publishAsync(this.up('info'), JSON.stringify({ fw_version: cmd.version }), { qos: 1 });
  }

  close(): Promise<void> {
    return this.client ? this.client.endAsync(true) : Promise.resolve();
  }
}

/** A forwarding source: a device publishing `{"seq": n}` FWD_RATE times a second, through every restart. */
class Reporter {
  client: MqttClient | undefined;
  seq = 0;
  private timer: NodeJS.Timeout | undefined;
  constructor(
    readonly sn: string,
    readonly productKey: string,
    readonly secret: string,
  ) {}

  start(mqttPort: number): void {
    // Reporting again (the provider-down phase): the same connection. A second client with the same clientId would
    // take the first one's connection over, and the two would take it from each other every 300 ms.
    if (this.client) {
      this.timer = setInterval(() => this.send(), 1000 / FWD_RATE);
      return;
    }
    this.client = mqtt.connect(`mqtt://127.0.0.1:${mqttPort}`, {
      clientId: this.sn,
      username: this.sn,
      password: this.secret,
      reconnectPeriod: 300,
      connectTimeout: 5000,
    });
    this.client.on('error', () => undefined);
    this.timer = setInterval(() => this.send(), 1000 / FWD_RATE);
  }

  /** QoS 1: mqtt.js keeps an unacknowledged report and sends it again after a reconnect. */
  private send(): void {
    if (!this.client?.connected) return;
    this.seq += 1;
    const body = JSON.stringify({ ts: Date.now(), params: { seq: this.seq } });
    this.client.publish(upTopic(this.productKey, this.sn, 'property'), body, { qos: 1 });
  }

  pause(): void {
    clearInterval(this.timer);
  }

  close(): Promise<void> {
    this.pause();
    return this.client ? this.client.endAsync(true) : Promise.resolve();
  }
}

// --- the test -------------------------------------------------------------------------------------------------------

interface Kind {
  kills: number;
  events: number;
  missing: number;
  dup: number;
  raw: number;
}

describe('jobs: a worker killed mid-job, a provider down', () => {
  let store: Store;
  let gen: ServerChild | undefined;
  let port: number;
  let mqttPort: number;
  let offset = 0;
  let pool: pg.Pool;
  const fwd = new ForwardReceiver();
  const smtp = new MailReceiver('alerts@cellhub.test', 'smtp-pass');
  const onelink = new FakeOnelink();
  let token = '';
  const reporters: Reporter[] = [];
  const otaDevices: OtaDevice[] = [];
  let otaTask = 0;
  const providerIds: number[] = [];
  /** Notifications: event key -> delivery id. */
  const mails = new Map<string, number>();
  const rand = seeded(SEED);
  let wall = 0;

  const env = () => ({
    OUTBOUND_ALLOW: '127.0.0.1',
    NOTIFY_POLL_MS: '200',
    NOTIFY_RETRY_BASE_MS: String(sized(1000, 30_000)),
    NOTIFY_SEND_TIMEOUT_MS: '3000',
    NOTIFY_RATE_PER_MINUTE: '10000',
    SIM_SYNC_TICK_MS: '300',
  });

  async function start(): Promise<ServerChild> {
    trace('starting a server');
    gen = await startServerChild({ store, port, mqttPort, clockOffsetMs: offset, env: env() });
    token = await adminLogin(port);
    trace('server up');
    return gen;
  }

  const q = async <T>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as T[];

  /** Work each kind queues at a start: mails, a sync run per provider. */
  async function queueWork(genNo: number): Promise<void> {
    const db = drizzle(pool);
    for (let i = 0; i < MAILS_PER_GEN; i++) {
      const key = `jobs-kill:${genNo}:${i}`;
      const { id } = await enqueueNotification(db, {
        idempotencyKey: key,
        channel: 'email',
        to: `r${genNo}-${i}@example.test`,
        template: 'test',
        subject: key,
        body: `event ${key}`,
        params: { code: '000000' },
      });
      mails.set(key, id);
    }
    for (const id of providerIds) await api(port, token, 'POST', `/api/card-admin/providers/${id}/sync`);
  }

  beforeAll(async () => {
    wall = Date.now();
    store = await privateStore('jobskill');
    pool = new pg.Pool({ connectionString: store.databaseUrl, max: 2 });
    // Dropping the database at the end ends idle connections.
    pool.on('error', () => undefined);
    [port, mqttPort] = (await freePorts(2)) as [number, number];
    await fwd.start();
    await smtp.start();
    // Each mail's answer waits a while (a slow provider, still within NOTIFY_SEND_TIMEOUT_MS): kills land while mails
    // are on their way (sent, not yet acknowledged). The worker sends a generation's mails at once, so with 150 ms a
    // quiet machine had sent them all before the first kill (0 kills of 100 with a mail in flight).
    smtp.delayMs = 1200;
    await onelink.start();
    onelink.now = () => new Date(Date.now() + offset);

    await start();
    // Forwarding: a product, devices reporting `seq`, a rule to the receiver.
    const { product_key: fpk } = await api<{ product_key: string }>(port, token, 'POST', '/api/products', {
      name: 'Forwarded',
    });
    const fsns = Array.from({ length: FWD_DEVICES }, (_, i) => `FWD-${i + 1}`);
    await api(port, token, 'POST', '/api/devices', { product_key: fpk, sn: fsns });
    await api(port, token, 'POST', '/api/forwarding', {
      name: 'kill test',
      product_key: fpk,
      kinds: ['property'],
      target: { kind: 'http', method: 'POST', url: fwd.url },
    });
    for (const sn of fsns) {
      const d = await api<{ secret: string }>(port, token, 'GET', `/api/devices/${sn}`);
      reporters.push(new Reporter(sn, fpk, d.secret));
    }
    // Notifications: the email channel on the SMTP receiver.
    await api(port, token, 'PUT', '/api/system/settings/email', {
      host: '127.0.0.1',
      port: smtp.port,
      account: 'alerts@cellhub.test',
      nickname: 'Cellhub',
      ssl: false,
      password: 'smtp-pass',
    });
    // SIM: OneLink providers with their cards, known to the operator.
    for (let p = 0; p < SIM_PROVIDERS; p++) {
      const prov = await api<{ id: number }>(port, token, 'POST', '/api/card-admin/providers', {
        name: `OneLink ${p + 1}`,
        kind: 'onelink',
        operator: 'china_mobile',
        sync_interval_min: 0,
        config: { appid: onelink.appid, password: onelink.password, base_url: onelink.baseUrl },
      });
      providerIds.push(prov.id);
      const iccids = Array.from({ length: SIM_CARDS }, () => newIccid());
      for (const iccid of iccids) onelink.addCard({ iccid, cardStatus: '2' });
      await q(
        `insert into sim_cards (iccid, operator, provider_id) select unnest($1::text[]), 'china_mobile', $2`,
        [iccids, prov.id],
      );
    }
    // OTA: a product, its devices, a firmware version and a task for all of them.
    const { product_key: opk } = await api<{ product_key: string }>(port, token, 'POST', '/api/products', {
      name: 'Upgraded',
    });
    const osns = Array.from({ length: OTA_DEVICES }, (_, i) => `OTA-${String(i + 1).padStart(3, '0')}`);
    await api(port, token, 'POST', '/api/devices', { product_key: opk, sn: osns });
    for (const sn of osns) {
      const d = await api<{ secret: string }>(port, token, 'GET', `/api/devices/${sn}`);
      otaDevices.push(new OtaDevice(sn, opk, d.secret, rand));
    }
    const fw = await api<{ id: number }>(port, token, 'POST', '/api/firmware', {
      name: 'DTU main',
      product_key: opk,
      type: 1,
      public: false,
    });
    const form = new FormData();
    form.set('version', '2.0.0');
    form.set('algorithm', 'md5');
    form.set('file', new Blob([firmwareImage(2048)]), 'dtu-2.0.0.bin');
    const res = await fetch(`http://127.0.0.1:${port}/api/firmware/${fw.id}/versions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    const version = ((await res.json()) as { data: { id: number } }).data;
    for (const d of otaDevices) d.connect(mqttPort);
    await eventually(async () => {
      const list = await api<{ online: number }[]>(
        port,
        token,
        'GET',
        `/api/devices?per_page=1000&product_key=${opk}`,
      );
      return list.filter((d) => d.online === 1).length === OTA_DEVICES ? true : undefined;
    }, 30_000);
    const task = await api<{ id: number }>(port, token, 'POST', '/api/ota/tasks', {
      name: 'kill test',
      product_key: opk,
      version_id: version.id,
      targets: { type: 'all' },
      policy: { max_concurrent: OTA_CONCURRENT, failure_threshold: null, timeout_s: 7 * 86_400 },
    });
    otaTask = task.id;
    for (const r of reporters) r.start(mqttPort);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([...reporters, ...otaDevices].map((d) => d.close()));
    await gen?.kill();
    await pool?.end();
    await fwd.close();
    await smtp.close();
    await onelink.stop();
    await store?.drop();
    removeChildBundle();
  });

  /** Rows each kind still has to do: what "work in flight" means for a kill. */
  async function pending(): Promise<{ forwarding: number; notify: number; sim: number; ota: number }> {
    const [f] = await q<{ n: string }>(`select count(*) n from forward_messages`);
    const [n] = await q<{ n: string }>(
      `select count(*) n from notify_deliveries where status in ('pending', 'sending')`,
    );
    const [s] = await q<{ n: string }>(
      `select count(*) n from sim_sync_runs where status in ('queued', 'running', 'retry_wait')`,
    );
    const open = await q<{ sn: string; phase: string; status: number; upgrade_id: string | null }>(
      `select sn, phase, status, upgrade_id from ota_devices
       where task_id = $1 and phase not in ('succeeded', 'failed', 'skipped')`,
      [otaTask],
    );
    const lost = (await lostOta()).size;
    return {
      forwarding: Number(f!.n),
      notify: Number(n!.n),
      sim: Number(s!.n),
      ota: open.length - lost,
    };
  }

  /**
   * OTA commands lost between a device's CONNECT and its SUBSCRIBE (the gateway prevents it; counted if not): rows sent
   * (`dispatched`, marked sent) after the device's last connect, whose device never got that upgrade id (it was
   * connected and, once subscribed, would have) and said nothing about it for 15 s. Such a row waits for its
   * timeout (30 min by default) before a retry.
   */
  async function lostOta(): Promise<Set<string>> {
    const rows = await q<{
      sn: string;
      upgrade_id: string;
      dispatched_ms: string;
      connect_ms: string | null;
    }>(
      `select r.sn, r.upgrade_id, (extract(epoch from r.dispatched_at) * 1000)::bigint dispatched_ms,
         (select (extract(epoch from max(l.createdat)) * 1000)::bigint from device_logs l
           where l.device_id = r.device_id and l.event = 'connect') connect_ms
       from ota_devices r
       where r.task_id = $1 and r.phase = 'dispatched' and r.status = 0 and r.sent_at is not null`,
      [otaTask],
    );
    const lost = new Set<string>();
    for (const r of rows) {
      const device = otaDevices.find((d) => d.sn === r.sn);
      if (!device || device.commands.includes(r.upgrade_id) || r.connect_ms === null) continue;
      // dispatched_at is on the child's clock (wall + offset), the log's time on the database's.
      const sentWall = Number(r.dispatched_ms) - offset;
      const afterConnect = sentWall - Number(r.connect_ms);
      if (afterConnect >= -1000 && Date.now() - sentWall > 15_000) lost.add(r.sn);
    }
    return lost;
  }

  /** Waits until every kind has done all its work (with a deadline), the clock moved on by `stepMs` each look. */
  async function drained(stepMs: number, ms: number): Promise<void> {
    let moved = Date.now();
    let last = {};
    await until(
      async () => {
        const p = await pending();
        if (JSON.stringify(p) !== JSON.stringify(last)) trace('to do', p);
        last = p;
        if (stepMs > 0 && Date.now() - moved >= 500) {
          moved = Date.now();
          offset += stepMs;
          gen!.advance(stepMs);
        }
        return p.forwarding + p.notify + p.sim + p.ota === 0 ? true : undefined;
      },
      ms,
      () => `still to do: ${JSON.stringify(last)}`,
    );
  }

  const kills = { forwarding: 0, notify: 0, sim: 0, ota: 0 };
  let otaLostBeforeSubscribe = 0;
  /** Forwarding: stored copies of reports beyond the first (a resend after a kill). */
  let storedTwice = 0;

  it(
    `kills the worker ${KILLS} times mid-job: exactly one effect per event, none missing`,
    async () => {
      await api(port, token, 'POST', `/api/ota/tasks/${otaTask}/start`);
      for (let k = 1; k <= KILLS; k++) {
        await queueWork(k);
        const life = LIFE_MS[0] + rand() * (LIFE_MS[1] - LIFE_MS[0]);
        await sleep(life);
        const p = await pending();
        await gen!.kill();
        trace(`kill ${k}`, p);
        kills.forwarding += p.forwarding > 0 ? 1 : 0;
        kills.notify += p.notify > 0 ? 1 : 0;
        kills.sim += p.sim > 0 ? 1 : 0;
        kills.ota += p.ota > 0 ? 1 : 0;
        offset += JUMP_MS;
        await start();
      }
      await queueWork(KILLS + 1);
      for (const r of reporters) r.pause();
      // What did not finish by the deadline is counted as missing below: the figures are printed either way.
      await drained(0, sized(240_000, 1_200_000)).catch((err: unknown) => trace(err));

      const results = await effects(0);
      report('kills', results, KILLS);
    },
    sized(600_000, 7_200_000),
  );

  it(
    `a provider down for ${OUTAGE_MS / 1000} s: no loss, no duplicate`,
    async () => {
      const before = await effects(0);
      const gens = 1_000;
      // Providers refuse: HTTP 503 at the forwarding target, 421 from the mail server, 503 from the
      // operator. Work keeps coming meanwhile.
      fwd.down = true;
      smtp.refusing = true;
      onelink.http.inject(FAULTS.serverError(503), { times: 1_000_000 });
      for (const r of reporters) r.start(mqttPort);
      await queueWork(gens);
      const t0 = Date.now();
      await eventually(async () => {
        const [n] = await q<{ n: string }>(
          `select count(*) n from notify_deliveries where attempts > 0 and status = 'pending'`,
        );
        const [s] = await q<{ n: string }>(
          `select count(*) n from sim_sync_runs where status = 'retry_wait'`,
        );
        return fwd.refused > 0 && smtp.refused > 0 && Number(n!.n) > 0 && Number(s!.n) > 0 ? true : undefined;
      }, 30_000);
      await sleep(Math.max(0, OUTAGE_MS - (Date.now() - t0)));
      for (const r of reporters) r.pause();
      fwd.down = false;
      smtp.refusing = false;
      onelink.http.clearInjections();
      // Back: the retries wait for their backoff; the clock moves on 15 s at each look instead of sleeping (not
      // faster: a forwarding rule whose target failed for 10 minutes without a success is paused, docs/forwarding.md).
      await drained(15_000, sized(180_000, 1_200_000)).catch((err: unknown) => trace(err));
      const after = await effects(0);
      report('outage', after, 0, before);
    },
    sized(300_000, 1_800_000),
  );

  /** What each kind's receiver got, judged against its events. */
  async function effects(_: number): Promise<{ forwarding: Kind; notify: Kind; sim: Kind; ota: Kind }> {
    // Forwarding: an event is a device's report (its seq) that was stored; its effect is the report at the receiver,
    // deduplicated by message id. A report the device sent again after a kill (its PUBACK lost) may be stored twice
    // (QoS 1 is at least once), and it carries its own time, so both copies are forwarded under one id
    // (docs/forwarding.md, "At least once"); the stored copies are counted apart.
    const stored = await q<{ sn: string; seq: number; n: string }>(
      `select d.sn, p.num::int seq, count(*) n from device_properties p join devices d on d.id = p.device_id
       where p.key = 'seq' group by d.sn, p.num`,
    );
    let fEvents = 0;
    let fMissing = 0;
    let fDup = 0;
    storedTwice = 0;
    for (const row of stored) {
      const ids = fwd.byEvent.get(`${row.sn}:${row.seq}`)?.size ?? 0;
      fEvents += 1;
      if (ids === 0) fMissing += 1;
      fDup += Math.max(0, ids - 1);
      storedTwice += Number(row.n) - 1;
    }
    const fRaw = [...fwd.copies.values()].reduce((s, c) => s + c - 1, 0);

    // Notifications: an event is a queued message (its idempotency key); the receiver keeps one mail per Message-ID.
    const byKey = new Map<string, Set<string>>();
    let mailsIn = 0;
    for (const m of smtp.received) {
      mailsIn += 1;
      const ids = byKey.get(m.subject) ?? new Set<string>();
      ids.add(m.messageId);
      byKey.set(m.subject, ids);
    }
    let nMissing = 0;
    let nDup = 0;
    for (const key of mails.keys()) {
      const ids = byKey.get(key)?.size ?? 0;
      if (ids === 0) nMissing += 1;
      nDup += Math.max(0, ids - 1);
    }
    const nRaw = mailsIn - [...byKey.values()].reduce((s, ids) => s + ids.size, 0);

    // SIM sync: an event is a run; its effect is one complete pass over its provider's cards, recorded once.
    const runs = await q<{ status: string; cards_total: number; cards_updated: number }>(
      `select status, cards_total, cards_updated from sim_sync_runs`,
    );
    const sMissing = runs.filter((r) => r.status !== 'succeeded' || r.cards_updated < SIM_CARDS).length;
    const sDup = runs.filter((r) => r.cards_total > SIM_CARDS || r.cards_updated > SIM_CARDS).length;
    // A clean pass asks the operator for each card's usage once; what a taken-over run asked again is the rest.
    const usageCalls = onelink.http.requests.filter((r) => r.path.includes('sim-data-usage')).length;
    const sRaw = Math.max(0, usageCalls - runs.filter((r) => r.status === 'succeeded').length * SIM_CARDS);

    // OTA: an event is a device of the task; its effect the upgrade command, deduplicated by the upgrade id.
    let oMissing = 0;
    let oDup = 0;
    let oRaw = 0;
    const lost = await lostOta();
    otaLostBeforeSubscribe = lost.size;
    for (const d of otaDevices) {
      const ids = new Set(d.commands);
      if (ids.size === 0 || d.fwVersion !== '2.0.0') {
        oMissing += 1;
        const c = d.client;
        const [row] = await q(
          `select phase, status, attempts, upgrade_id, result_code from ota_devices
          where task_id = $1 and sn = $2`,
          [otaTask, d.sn],
        );
        const logs = await q(
          `select l.createdat, l.event, l.detail from device_logs l join devices v on v.id = l.device_id
          where v.sn = $1 and l.event in ('connect', 'disconnect') order by l.id desc limit 6`,
          [d.sn],
        );
        trace('ota missing', d.sn, {
          connected: c?.connected,
          reconnecting: c?.reconnecting,
          errors: d.errors,
          row,
          logs,
        });
      }
      oDup += Math.max(0, ids.size - 1);
      oRaw += d.commands.length - ids.size;
    }
    return {
      forwarding: { kills: kills.forwarding, events: fEvents, missing: fMissing, dup: fDup, raw: fRaw },
      notify: { kills: kills.notify, events: mails.size, missing: nMissing, dup: nDup, raw: nRaw },
      sim: { kills: kills.sim, events: runs.length, missing: sMissing, dup: sDup, raw: sRaw },
      ota: { kills: kills.ota, events: otaDevices.length, missing: oMissing, dup: oDup, raw: oRaw },
    };
  }

  function report(
    phase: 'kills' | 'outage',
    r: Awaited<ReturnType<typeof effects>>,
    killsDone: number,
    before?: Awaited<ReturnType<typeof effects>>,
  ): void {
    const names = { forwarding: 'forwarding', notify: 'notification', sim: 'sim_sync', ota: 'ota_step' };
    for (const k of Object.keys(names) as (keyof typeof names)[]) {
      const x = r[k];
      const name = phase === 'kills' ? `jobs.${names[k]}` : `jobs.${names[k]}.outage`;
      const detail =
        phase === 'kills'
          ? `${killsDone} SIGKILLs of one server running every kind, ${x.kills} with this kind's work in flight; ` +
            `seed ${SEED}; wall ${Math.round((Date.now() - wall) / 1000)} s`
          : `receiver down ${OUTAGE_MS / 1000} s (events since the kills: ${x.events - (before?.[k].events ?? 0)})`;
      if (phase === 'kills') figure({ name: `${name}.kills`, value: x.kills, unit: 'count', detail });
      figure({ name: `${name}.events`, value: x.events, unit: 'count', detail });
      figure({ name: `${name}.missing`, value: x.missing, unit: 'count', target: '0', detail });
      figure({
        name: `${name}.duplicate_effects_after_dedup`,
        value: x.dup,
        unit: 'count',
        target: '0',
        detail,
      });
      figure({ name: `${name}.raw_redeliveries`, value: x.raw, unit: 'count', detail });
    }
    figure({
      name: phase === 'kills' ? 'jobs.forwarding.stored_twice' : 'jobs.forwarding.outage.stored_twice',
      value: storedTwice,
      unit: 'rows',
      detail:
        'reports stored a second time because the device sent them again after a kill (QoS 1 is at least once); ' +
        'forwarded under the first copy’s message id',
    });
    if (phase === 'kills')
      figure({
        name: 'jobs.ota_step.lost_before_subscribe',
        value: otaLostBeforeSubscribe,
        unit: 'count',
        target: '0',
        detail:
          'upgrade commands published to a clean-session device between its CONNECT and its SUBSCRIBE (the broker ' +
          'would drop them; the gateway holds them back until the SUBSCRIBE); counted in jobs.ota_step.missing too',
      });
    for (const k of Object.keys(names) as (keyof typeof names)[]) {
      expect(r[k].events, k).toBeGreaterThan(0);
      expect(r[k].missing, `${k}: events without an effect`).toBe(0);
      expect(r[k].dup, `${k}: events with more than one effect after dedup`).toBe(0);
      if (phase === 'kills') expect(r[k].kills, `${k}: kills with its work in flight`).toBeGreaterThan(0);
    }
  }
});
