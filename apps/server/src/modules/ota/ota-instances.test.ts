import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OtaDown } from '@cellhub/contract/protocol';
import { eventually } from '../../test/gateway-test-kit';
import { openSocket } from '../../test/ws-test-client';
import { buildTestApp, type TestApp } from '../../test/app';
import {
  act,
  byDevice,
  connectFleet,
  createTask,
  otaFixture,
  type OtaTestDevice,
  taskDevices,
  taskUntil,
  untilOnline,
} from '../../test/ota-test-kit';
import { onPostgres, sharedStore, type SharedStore } from '../../test/shared-store';

const totalCommands = (devs: OtaTestDevice[][], sn: string) =>
  devs
    .flat()
    .filter((d) => d.sn === sn)
    .reduce((n, d) => n + d.commands.length, 0);

describe(`restart in the middle of a rollout (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let store: SharedStore;
  beforeAll(async () => {
    store = await sharedStore('ota');
  });
  afterAll(() => store.drop());

  it('neither sends a device its upgrade twice nor forgets one', async () => {
    const config = { dataDir: store.dataDir, databaseUrl: store.databaseUrl };
    const sns = Array.from({ length: 30 }, (_, i) => `RST-${String(i + 1).padStart(2, '0')}`);
    let first: TestApp | undefined = await buildTestApp({ config });
    let second: TestApp | undefined;
    const generations: OtaTestDevice[][] = [];
    try {
      const admin = await first.adminToken();
      const fx = await otaFixture(first, admin, admin, sns, { size: 4096 });
      const devs = await connectFleet(first, fx.devices, { behaviour: 'accept-only' });
      generations.push(devs);
      await untilOnline(first, admin, fx.productKey, 30);
      const task = await createTask(first, admin, {
        name: 'restart',
        product_key: fx.productKey,
        version_id: fx.versionId,
        targets: { type: 'all' },
        policy: { max_concurrent: 10, failure_threshold: null },
      });
      await act(first, admin, task.id, 'start');
      // Ten devices have their upgrade; five of them finish, so five more are sent.
      await eventually(async () =>
        devs.filter((d) => d.commands.length > 0).length === 10 ? true : undefined,
      );
      const firstTen = devs.filter((d) => d.commands.length > 0);
      for (const d of firstTen.slice(0, 5)) await d.report(d.commands[0]!.id, 4);
      await taskUntil(first, admin, task.id, (x) => x.success_count === 5 && x.upgrading_count === 10);
      await eventually(async () =>
        devs.filter((d) => d.commands.length > 0).length === 15 ? true : undefined,
      );
      // The ten in flight have said they accepted it (status 5, stored) before their connections go: a device
      // that reconnects before saying anything about its upgrade is sent it again (docs/ota.md, device side),
      // which would be a second command here whenever an accept was still on its way at the stop.
      await eventually(async () => {
        const open = (await taskDevices(first!, admin, task.id)).filter((r) => r.phase === 'dispatched');
        return open.length === 10 && open.every((r) => r.status === 5) ? true : undefined;
      }, 15_000);
      // Stop the first instance mid-rollout: its devices lose their broker, its engine stops.
      for (const d of devs) await d.disconnect();
      await first.app.ota.close();
      // A dispatch the first instance committed but died before publishing: the next instance must send it.
      const [orphan] = (
        (await first.app.deps.db.execute(sql`
          update ota_devices set phase = 'dispatched', attempts = 1, upgrade_id = task_id || '-' || id || '-1',
            dispatched_at = now() - interval '1 minute', deadline_at = now() + interval '1 hour', sent_at = null
          where id = (select id from ota_devices where task_id = ${task.id} and phase = 'pending' order by seq limit 1)
          returning sn, upgrade_id`)) as unknown as { rows: { sn: string; upgrade_id: string }[] }
      ).rows;
      expect(orphan).toBeDefined();
      await first.close();
      first = undefined;
      second = await buildTestApp({ config });
      const admin2 = await second.adminToken();
      const again = await connectFleet(second, fx.devices);
      generations.push(again);
      // Devices that got their upgrade before the restart finish it now, with the id they were given.
      for (const d of devs) {
        const cmd = d.commands[0];
        if (cmd && !firstTen.slice(0, 5).includes(d))
          await again.find((x) => x.sn === d.sn)!.report(cmd.id, 4);
      }
      // The orphan's command comes from the new instance, with the id its row was given.
      const orphanDevice = again.find((d) => d.sn === orphan!.sn)!;
      const orphanCmd = await eventually(async () => orphanDevice.commands[0], 45_000);
      expect(orphanCmd.id).toBe(orphan!.upgrade_id);
      const done = await taskUntil(second, admin2, task.id, (x) => x.status === 'done', 60_000);
      expect(done).toMatchObject({ device_count: 30, success_count: 30, fail_count: 0 });
      const rows = byDevice(await taskDevices(second, admin2, task.id));
      for (const sn of sns) {
        expect(totalCommands(generations, sn), sn).toBe(1);
        expect(rows.get(sn), sn).toMatchObject({ phase: 'succeeded', attempts: 1 });
      }
    } finally {
      await Promise.all(generations.flat().map((d) => d.disconnect()));
      await first?.close();
      await second?.close();
    }
  }, 120_000);
});

describe(`an engine killed in the middle of a dispatch (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let store: SharedStore;
  beforeAll(async () => {
    store = await sharedStore('ota');
  });
  afterAll(() => store.drop());

  it('dispatches each device exactly once and forgets none', async () => {
    const config = { dataDir: store.dataDir, databaseUrl: store.databaseUrl };
    const sns = Array.from({ length: 20 }, (_, i) => `KIL-${String(i + 1).padStart(2, '0')}`);
    let first: TestApp | undefined = await buildTestApp({ config });
    let second: TestApp | undefined;
    const generations: OtaTestDevice[][] = [];
    try {
      const admin = await first.adminToken();
      const fx = await otaFixture(first, admin, admin, sns, { size: 2048 });
      const devs = await connectFleet(first, fx.devices, { behaviour: 'accept-only' });
      generations.push(devs);
      await untilOnline(first, admin, fx.productKey, 20);
      // The engine dies in the middle of publishing its first batch: the broker takes four commands (their
      // devices get them), nothing after that happens, and none of the batch is ever marked sent.
      const link = first.app.deps.link;
      const send = link.send.bind(link);
      let taken = 0;
      link.send = (productKey, sn, kind, payload) => {
        if (kind !== 'ota') return send(productKey, sn, kind, payload);
        if (taken++ < 4) void send(productKey, sn, kind, payload);
        return new Promise<void>(() => undefined);
      };
      first.app.ota.options.publishTimeoutMs = 200;
      const task = await createTask(first, admin, {
        name: 'killed',
        product_key: fx.productKey,
        version_id: fx.versionId,
        targets: { type: 'all' },
        policy: { max_concurrent: 10, failure_threshold: null },
      });
      await act(first, admin, task.id, 'start');
      await eventually(async () => (first!.app.ota.stats.publishTimedOut === 10 ? true : undefined));
      const early = devs.filter((d) => d.commands.length > 0);
      expect(early).toHaveLength(4);
      for (const d of devs) await d.disconnect();
      await first.close();
      first = undefined;

      second = await buildTestApp({ config });
      const admin2 = await second.adminToken();
      // The ten orphaned sends hold every slot of the task, so nothing is sent while the devices connect (a
      // command published between a device's CONNACK and its SUBSCRIBE would be lost with its clean session).
      const again = await connectFleet(second, fx.devices);
      generations.push(again);
      // Orphaned sends are published again once this old; the default (30 s) would only slow the test.
      second.app.ota.options.republishAfterMs = 500;
      const done = await taskUntil(second, admin2, task.id, (x) => x.status === 'done', 60_000);
      expect(done).toMatchObject({ device_count: 20, success_count: 20, fail_count: 0 });
      const rows = byDevice(await taskDevices(second, admin2, task.id));
      for (const sn of sns) {
        const row = rows.get(sn);
        // One attempt each, whatever instance sent it; every copy a device got carries that attempt's id.
        expect(row, sn).toMatchObject({ phase: 'succeeded', attempts: 1 });
        const ids = generations
          .flat()
          .filter((d) => d.sn === sn)
          .flatMap((d) => d.commands.map((c) => c.id));
        expect(new Set(ids), sn).toEqual(new Set([row!.upgrade_id]));
        // The four the dead engine reached get the same command once more (it was never marked sent); the rest
        // get theirs once.
        expect(totalCommands(generations, sn), sn).toBe(early.some((d) => d.sn === sn) ? 2 : 1);
      }
      expect(second.app.ota.stats.republished).toBe(10);
    } finally {
      await Promise.all(generations.flat().map((d) => d.disconnect()));
      await first?.close();
      await second?.close();
    }
  }, 180_000);
});

async function freePort(from: number): Promise<number> {
  for (let port = from; port < from + 40; port++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (ok) return port;
  }
  throw new Error('no free port');
}

/** A Mosquitto both instances share (TEST_MQTT_URL, or one started here), as a scaled deployment has. */
async function sharedBroker(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.TEST_MQTT_URL) return { url: process.env.TEST_MQTT_URL, stop: async () => undefined };
  const port = await freePort(19860);
  const dir = mkdtempSync(path.join(tmpdir(), 'cellhub-ota-mosquitto-'));
  const conf = path.join(dir, 'mosquitto.conf');
  writeFileSync(
    conf,
    `listener ${port} 127.0.0.1\nallow_anonymous true\nmax_inflight_messages 1000\nmax_queued_messages 100000\n`,
  );
  const child: ChildProcess = spawn('/usr/sbin/mosquitto', ['-c', conf], { stdio: 'ignore' });
  await eventually(
    () =>
      new Promise<true | undefined>((resolve) => {
        const s = createServer();
        s.once('error', () => resolve(true)); // taken: mosquitto listens
        s.listen(port, '127.0.0.1', () => s.close(() => resolve(undefined)));
      }),
    5000,
  );
  return {
    url: `mqtt://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const haveBroker = !!process.env.TEST_MQTT_URL || existsSync('/usr/sbin/mosquitto');

describe.skipIf(!onPostgres || !haveBroker)('two instances on one PostgreSQL database', () => {
  it('dispatch each device exactly once between them', async () => {
    const broker = await sharedBroker();
    // One deployment: both instances in the same shared-subscription group (its own, not other tests').
    const mqttShareGroup = `duo-${Date.now()}`;
    const a = await buildTestApp({ config: { mqttUrl: broker.url, mqttShareGroup } });
    const b = await buildTestApp({
      config: { mqttUrl: broker.url, mqttShareGroup, databaseUrl: a.app.deps.config.databaseUrl },
    });
    // One upgrade per claimed batch, so an instance holds at most as many as it has publishers (4 of the task's 8
    // slots). B, where the task starts, publishes slowly: while its publishers are busy the free slots are A's
    // to take. Without that, whichever instance claims first after a wave may take every slot, every time.
    a.app.ota.options.batchSize = 1;
    b.app.ota.options.batchSize = 1;
    const bLink = b.app.deps.link;
    const bSend = bLink.send.bind(bLink);
    bLink.send = async (productKey, sn, kind, payload) => {
      if (kind === 'ota') await new Promise((r) => setTimeout(r, 1000));
      return bSend(productKey, sn, kind, payload);
    };
    const devs: OtaTestDevice[] = [];
    try {
      const admin = await a.adminToken();
      const sns = Array.from({ length: 40 }, (_, i) => `DUO-${String(i + 1).padStart(2, '0')}`);
      const fx = await otaFixture(a, admin, admin, sns, { size: 2048 });
      // Downloads go to the instance that holds the file (files are per DATA_DIR until object storage).
      devs.push(...(await connectFleet(a, fx.devices, { url: broker.url })));
      await untilOnline(b, admin, fx.productKey, 40, 15_000);
      const task = await createTask(a, admin, {
        name: 'two instances',
        product_key: fx.productKey,
        version_id: fx.versionId,
        targets: { type: 'all' },
        policy: { max_concurrent: 8, failure_threshold: null },
      });
      // An admin watching on instance B sees the task's counts whichever instance changed them.
      const address = await b.app.listen({ port: 0, host: '127.0.0.1' });
      const socket = await openSocket(`${address.replace(/^http/, 'ws')}/api/ws`);
      socket.send({ type: 'auth', token: admin });
      await socket.next('ready');
      await act(b, admin, task.id, 'start');
      const done = await taskUntil(a, admin, task.id, (x) => x.status === 'done', 60_000);
      const seen = await socket.next('ota.task', (m) => m.id === task.id && m.status === 'done', 10_000);
      expect(seen).toMatchObject({ success_count: 40, device_count: 40 });
      // And an event published on A reaches B's socket through LISTEN/NOTIFY.
      a.app.deps.events.publishTask(
        { ...seen, type: 'ota.task', id: 999_999, at: new Date().toISOString() },
        { uid: null },
      );
      await socket.next('ota.task', (m) => m.id === 999_999, 5000);
      socket.close();
      expect(done).toMatchObject({ device_count: 40, success_count: 40 });
      const rows = await taskDevices(a, admin, task.id);
      for (const r of rows) expect(r, r.devicekey).toMatchObject({ phase: 'succeeded', attempts: 1 });
      const ids = new Set<string>();
      for (const d of devs) {
        expect(
          d.commands.map((c: OtaDown) => c.version),
          d.sn,
        ).toEqual([fx.version]);
        ids.add(d.commands[0]!.id);
      }
      expect(ids.size).toBe(40);
      // Both dispatched: the work was shared, not merely serialised on one of them.
      expect(a.app.ota.stats.dispatched + b.app.ota.stats.dispatched).toBe(40);
      expect(a.app.ota.stats.dispatched).toBeGreaterThan(0);
      expect(b.app.ota.stats.dispatched).toBeGreaterThan(0);
    } finally {
      await Promise.all(devs.map((d) => d.disconnect()));
      await b.close();
      await a.close();
      await broker.stop();
    }
  }, 120_000);
});
