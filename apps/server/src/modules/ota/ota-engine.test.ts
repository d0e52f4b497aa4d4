import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OtaTaskEvent } from '@cellhub/contract/realtime';
import { eventually } from '../../test/gateway-test-kit';
import { openSocket } from '../../test/ws-test-client';
import { buildTestApp, type TestApp } from '../../test/app';
import { auditLogs } from '../audit/audit.table';
import {
  act,
  byDevice,
  createTask,
  data,
  type OtaFixture,
  otaFixture,
  OtaTestDevice,
  taskDetail,
  taskDevices,
  taskUntil,
} from '../../test/ota-test-kit';

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let fx: OtaFixture;
const live: OtaTestDevice[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  a = await t.createUser();
  fx = await otaFixture(
    t,
    a.token,
    admin,
    Array.from({ length: 60 }, (_, i) => `OTA-E${String(i + 1).padStart(2, '0')}`),
  );
});
afterEach(async () => {
  await Promise.all(live.splice(0).map((d) => d.disconnect()));
});
afterAll(() => t.close());

async function devicesOnline(sns: string[], fwVersion = '1.0.0'): Promise<OtaTestDevice[]> {
  const out: OtaTestDevice[] = [];
  for (const d of fx.devices.filter((x) => sns.includes(x.sn))) {
    const dev = new OtaTestDevice(t, d, fwVersion);
    await dev.connect();
    live.push(dev);
    out.push(dev);
  }
  await eventually(async () => {
    const res = data<{ sn: string; online: number; fw_version: string }[]>(
      await t.inject({
        method: 'GET',
        url: `/api/devices?per_page=100&product_key=${fx.productKey}`,
        token: a.token,
      }),
    );
    return sns.every((sn) => res.find((r) => r.sn === sn)?.online === 1) ? true : undefined;
  });
  return out;
}

const pick = (sns: string[]) => ({ type: 'pick' as const, sns });

describe('a rollout to online devices', () => {
  it('sends each device one upgrade, follows their reports to done and audits every transition', async () => {
    const sns = ['OTA-E01', 'OTA-E02', 'OTA-E03'];
    const devs = await devicesOnline(sns);
    const task = await createTask(t, a.token, {
      name: 'first',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(sns),
    });
    expect(task.status).toBe('inactive');
    expect(task.device_count).toBe(3);
    expect(task.pending_count).toBe(3);
    expect(task.download_bytes).toBe(3 * fx.image.length);
    expect((await act(t, a.token, task.id, 'start')).statusCode).toBe(200);
    const done = await taskUntil(t, a.token, task.id, (d) => d.status === 'done');
    expect(done.success_count).toBe(3);
    expect(done.fail_count).toBe(0);
    expect(done.status_counts['4']).toBe(3);
    expect(done.end_time).not.toBeNull();
    for (const d of devs) {
      expect(d.commands).toHaveLength(1);
      expect(d.commands[0]).toMatchObject({
        version: fx.version,
        size: fx.image.length,
        algorithm: 'md5',
        checksum: (await import('../../test/ota-test-kit')).md5(fx.image),
      });
      expect(d.downloads).toEqual([{ status: 200, bytes: fx.image.length }]);
    }
    const rows = byDevice(await taskDevices(t, a.token, task.id));
    for (const sn of sns) {
      expect(rows.get(sn)).toMatchObject({ status: 4, phase: 'succeeded', attempts: 1, retries: 0 });
      expect(rows.get(sn)?.finished_at).not.toBeNull();
    }
    const audit = await t.app.deps.db
      .select({ action: auditLogs.action, uid: auditLogs.uid })
      .from(auditLogs)
      .where(eq(auditLogs.target, `ota-task:${task.id}`));
    expect(audit.map((r) => r.action)).toEqual(['ota_task_create', 'ota_task_start', 'ota_task_done']);
    expect(audit[2]?.uid).toBeNull();
  });
});

/** Serial numbers OTA-E<from>..OTA-E<to>. */
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `OTA-E${String(from + i).padStart(2, '0')}`);

/** Runs the dispatcher after moving the clock (the timer runs too; a pass is what tests wait for). */
async function after(ms: number): Promise<void> {
  t.clock.advance(ms);
  await t.app.ota.tick();
}

async function auditOf(id: number) {
  return (
    t.app.deps.db
      .select({ action: auditLogs.action, uid: auditLogs.uid, detail: auditLogs.detail })
      .from(auditLogs)
      .where(eq(auditLogs.target, `ota-task:${id}`))
      // In the order written: without it PostgreSQL may return the rows in any order.
      .orderBy(auditLogs.id)
  );
}

describe('devices that are offline, silent or failing', () => {
  it('sends a device that was offline at dispatch its upgrade when it connects', async () => {
    const [first] = await devicesOnline(['OTA-E04']);
    const task = await createTask(t, a.token, {
      name: 'offline',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(['OTA-E04', 'OTA-E05']),
    });
    await act(t, a.token, task.id, 'start');
    await taskUntil(t, a.token, task.id, (d) => d.success_count === 1 && d.pending_count === 1);
    const waiting = byDevice(await taskDevices(t, a.token, task.id)).get('OTA-E05');
    expect(waiting).toMatchObject({ phase: 'offline', attempts: 0, status: 0 });
    expect(waiting).toMatchObject({
      result: 'offline: sent when it connects',
      result_code: 'offline_pending',
    });
    const [late] = await devicesOnline(['OTA-E05']);
    const done = await taskUntil(t, a.token, task.id, (d) => d.status === 'done');
    expect(done.success_count).toBe(2);
    expect(first!.commands).toHaveLength(1);
    expect(late!.commands).toHaveLength(1);
  });

  it('sends a device that subscribes a while after its CONNECT its upgrade once, after the SUBSCRIBE', async () => {
    const task = await createTask(t, a.token, {
      name: 'late subscribe',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(['OTA-E47']),
    });
    await act(t, a.token, task.id, 'start');
    await eventually(async () => {
      const row = byDevice(await taskDevices(t, a.token, task.id)).get('OTA-E47');
      return row?.phase === 'offline' ? true : undefined;
    });
    const dev = new OtaTestDevice(
      t,
      fx.devices.find((d) => d.sn === 'OTA-E47')!,
    );
    live.push(dev);
    const stats = () => t.app.ota.stats.published + t.app.ota.stats.publishFailed;
    const before = stats();
    await dev.connect(undefined, { subscribe: false });
    // The dispatcher looked at the device's row after its connect (before: it published the upgrade to a device
    // with no subscription, which the broker delivered to nobody).
    await eventually(async () => (stats() > before ? true : undefined));
    const waiting = byDevice(await taskDevices(t, a.token, task.id)).get('OTA-E47');
    expect(waiting).toMatchObject({ phase: 'offline', attempts: 0 });
    expect(dev.commands).toHaveLength(0);
    await dev.subscribe();
    const done = await taskUntil(t, a.token, task.id, (d) => d.status === 'done');
    expect(done.success_count).toBe(1);
    expect(dev.commands).toHaveLength(1);
    expect(byDevice(await taskDevices(t, a.token, task.id)).get('OTA-E47')).toMatchObject({
      phase: 'succeeded',
      attempts: 1,
    });
  });

  it('sends the same command again to a device that reconnects before saying anything about it', async () => {
    const [dev, other] = await devicesOnline(['OTA-E45', 'OTA-E46']);
    dev!.behaviour = 'silent';
    other!.behaviour = 'silent';
    const task = await createTask(t, a.token, {
      name: 'reconnect',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(['OTA-E45', 'OTA-E46']),
    });
    await act(t, a.token, task.id, 'start');
    const first = await eventually(async () => dev!.commands[0]);
    const otherFirst = await eventually(async () => other!.commands[0]);
    // The connection drops before the device reported anything (a clean session loses queued messages).
    await dev!.disconnect();
    dev!.behaviour = 'succeed';
    await dev!.connect();
    const again = await eventually(async () => dev!.commands[1]);
    expect(again.id).toBe(first.id);
    await taskUntil(t, a.token, task.id, (d) => d.success_count === 1);
    const row = byDevice(await taskDevices(t, a.token, task.id)).get('OTA-E45');
    expect(row).toMatchObject({ attempts: 1, phase: 'succeeded' });
    // Once it has reported, a reconnect sends nothing more. The sentinel: a device that has not reported yet
    // reconnects after it, and its command is sent again; reconnects are looked at in the order they came, and
    // each re-send is counted before it is published.
    const resent = t.app.ota.stats.resentOnConnect;
    await dev!.disconnect();
    await dev!.connect();
    await other!.disconnect();
    await other!.connect();
    const otherAgain = await eventually(async () => other!.commands[1]);
    expect(otherAgain.id).toBe(otherFirst.id);
    expect(t.app.ota.stats.resentOnConnect - resent).toBe(1);
    expect(dev!.commands).toHaveLength(2);
    await other!.report(otherFirst.id, 4);
    const done = await taskUntil(t, a.token, task.id, (d) => d.status === 'done');
    expect(done.success_count).toBe(2);
  });

  it('fails a silent device by timeout, retries it after the backoff, then fails it for good', async () => {
    const [dev] = await devicesOnline(['OTA-E06']);
    dev!.behaviour = 'silent';
    const task = await createTask(t, a.token, {
      name: 'timeout',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(['OTA-E06']),
      policy: { timeout_s: 10, retries: 1, retry_backoff_s: 5, failure_threshold: null },
    });
    await act(t, a.token, task.id, 'start');
    await eventually(async () => (dev!.commands.length === 1 ? true : undefined));
    await after(11_000);
    let row = (await taskDevices(t, a.token, task.id))[0]!;
    expect(row).toMatchObject({ phase: 'retry_wait', timed_out: true, attempts: 1 });
    expect(row).toMatchObject({ result_code: 'timeout', result_params: { seconds: expect.any(Number) } });
    expect(row.result).toBe(`timeout after ${row.result_params.seconds} s`);
    await after(2_000);
    expect(dev!.commands).toHaveLength(1); // the backoff (5 s) has not passed
    await after(4_000);
    await eventually(async () => (dev!.commands.length === 2 ? true : undefined));
    expect(dev!.commands[1]!.id).not.toBe(dev!.commands[0]!.id);
    row = (await taskDevices(t, a.token, task.id))[0]!;
    expect(row).toMatchObject({ phase: 'dispatched', attempts: 2, retries: 1, timed_out: false });
    await after(11_000);
    const done = await taskUntil(t, a.token, task.id, (d) => d.status === 'done');
    expect(done).toMatchObject({ fail_count: 1, success_count: 0 });
    row = (await taskDevices(t, a.token, task.id))[0]!;
    expect(row).toMatchObject({ phase: 'failed', timed_out: true, attempts: 2 });
  });

  it('retries a failed download, takes a refusal as final, and counts a reported fw_version as success', async () => {
    const [flaky, refusing, quiet] = await devicesOnline(['OTA-E07', 'OTA-E08', 'OTA-E09']);
    flaky!.behaviour = 'fail-download';
    refusing!.behaviour = 'refuse';
    quiet!.behaviour = 'accept-only';
    const task = await createTask(t, a.token, {
      name: 'mixed',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(['OTA-E07', 'OTA-E08', 'OTA-E09']),
      policy: { retries: 2, retry_backoff_s: 1, failure_threshold: null },
    });
    await act(t, a.token, task.id, 'start');
    await eventually(async () => {
      const rows = byDevice(await taskDevices(t, a.token, task.id));
      return rows.get('OTA-E07')?.phase === 'retry_wait' && rows.get('OTA-E08')?.phase === 'failed'
        ? true
        : undefined;
    });
    let rows = byDevice(await taskDevices(t, a.token, task.id));
    expect(rows.get('OTA-E07')).toMatchObject({ status: 2, result: 'checksum mismatch', attempts: 1 });
    expect(rows.get('OTA-E08')).toMatchObject({ status: 6, result: 'battery low', attempts: 1 });
    // The second try downloads fine.
    flaky!.behaviour = 'succeed';
    await after(1_500);
    // The quiet device accepted but never reports 4; its new version on P/up/info is enough.
    await quiet!.client!.publishAsync(
      `dev/${fx.productKey}/OTA-E09/up/info`,
      JSON.stringify({ fw_version: fx.version }),
      {
        qos: 1,
      },
    );
    const done = await taskUntil(t, a.token, task.id, (d) => d.status === 'done');
    expect(done).toMatchObject({ success_count: 2, fail_count: 1 });
    rows = byDevice(await taskDevices(t, a.token, task.id));
    expect(rows.get('OTA-E07')).toMatchObject({ phase: 'succeeded', status: 4, attempts: 2, retries: 1 });
    expect(rows.get('OTA-E09')).toMatchObject({ phase: 'succeeded', status: 4 });
    expect(rows.get('OTA-E09')).toMatchObject({
      result: expect.stringMatching(/fw_version/),
      result_code: 'reported_version',
      result_params: { version: expect.any(String) },
    });
    expect(refusing!.commands).toHaveLength(1);
    expect(flaky!.commands).toHaveLength(2);
  });
});

describe('publishing', () => {
  it('does not publish again a send whose publish is slower than republishAfterMs but not timed out', async () => {
    const sns = ['OTA-E50', 'OTA-E51', 'OTA-E52'];
    const devs = await devicesOnline(sns);
    // The broker takes the upgrades only when the test lets it (a busy instance): the sweep of unsent sends runs
    // meanwhile with a lease far shorter than the publish; the publish timeout (10 s) is not reached.
    const link = t.app.deps.link;
    const send = link.send;
    const held: (() => void)[] = [];
    link.send = (productKey, sn, kind, payload) =>
      kind === 'ota'
        ? new Promise<void>((resolve, reject) => {
            held.push(() => void send.call(link, productKey, sn, kind, payload).then(resolve, reject));
          })
        : send.call(link, productKey, sn, kind, payload);
    const options = t.app.ota.options;
    const republishAfterMs = options.republishAfterMs;
    options.republishAfterMs = 50;
    const before = t.app.ota.stats.republished;
    try {
      const task = await createTask(t, a.token, {
        name: 'slow publish',
        product_key: fx.productKey,
        version_id: fx.versionId,
        targets: pick(sns),
      });
      await act(t, a.token, task.id, 'start');
      await eventually(async () => (held.length === 3 ? true : undefined));
      // Two whole sweeps after the three were committed, their lease long run out: neither publishes them.
      const sweeps = t.app.ota.stats.sweeps;
      await eventually(
        async () => (t.app.ota.stats.sweeps >= sweeps + 2 || held.length > 3 ? true : undefined),
        15_000,
      );
      expect(held).toHaveLength(3);
      for (const go of held.splice(0)) go();
      const done = await taskUntil(t, a.token, task.id, (d) => d.status === 'done');
      expect(done.success_count).toBe(3);
      expect(t.app.ota.stats.republished - before).toBe(0);
      expect(held).toHaveLength(0);
      for (const d of devs) expect(d.commands, d.sn).toHaveLength(1);
    } finally {
      link.send = send;
      options.republishAfterMs = republishAfterMs;
      for (const go of held.splice(0)) go();
    }
  });
});

describe('rollout policy', () => {
  it('pauses the task when failures reach the threshold, and counts anew after a resume', async () => {
    const sns = range(10, 15);
    const devs = await devicesOnline(sns);
    for (const d of devs) d.behaviour = 'fail-update';
    const task = await createTask(t, a.token, {
      name: 'threshold',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(sns),
      policy: { max_concurrent: 1, retries: 0, failure_threshold_type: 'count', failure_threshold: 2 },
    });
    await act(t, a.token, task.id, 'start');
    let d = await taskUntil(t, a.token, task.id, (x) => x.status === 'paused');
    expect(d).toMatchObject({ pause_reason: 'failure_threshold', fail_count: 2, pending_count: 4 });
    expect(devs.reduce((n, x) => n + x.commands.length, 0)).toBe(2);
    const audit = await auditOf(task.id);
    expect(audit.at(-1)).toMatchObject({ action: 'ota_task_auto_pause', uid: null });
    // Resumed: the two old failures do not count; two new ones pause it again.
    await act(t, a.token, task.id, 'start');
    d = await taskUntil(t, a.token, task.id, (x) => x.status === 'paused' && x.fail_count === 4);
    expect(d.pending_count).toBe(2);
    expect(devs.reduce((n, x) => n + x.commands.length, 0)).toBe(4);
  });

  it('pauses by percentage of the ended devices before releasing the next wave', async () => {
    const sns = range(16, 27);
    const devs = await devicesOnline(sns);
    devs.forEach((d, i) => (d.behaviour = i % 2 === 0 ? 'fail-update' : 'succeed'));
    const task = await createTask(t, a.token, {
      name: 'percent',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(sns),
      policy: { wave_type: 'count', wave_size: 10, retries: 0, failure_threshold: 40 },
    });
    expect(task.wave_count).toBe(2);
    await act(t, a.token, task.id, 'start');
    const d = await taskUntil(t, a.token, task.id, (x) => x.status === 'paused');
    expect(d).toMatchObject({ pause_reason: 'failure_threshold', fail_count: 5, success_count: 5 });
    expect(d.pending_count).toBe(2);
    expect(d.current_wave).toBe(1);
    expect(devs.slice(10).every((x) => x.commands.length === 0)).toBe(true);
  });

  it('releases waves one after another with the pause between them, never more than max_concurrent at once', async () => {
    const sns = range(28, 33);
    const devs = await devicesOnline(sns);
    for (const d of devs) d.behaviour = 'accept-only';
    const task = await createTask(t, a.token, {
      name: 'waves',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(sns),
      policy: {
        wave_type: 'percent',
        wave_size: 50,
        wave_pause_s: 60,
        max_concurrent: 2,
        failure_threshold: null,
      },
    });
    expect(task).toMatchObject({ wave_count: 2 });
    await act(t, a.token, task.id, 'start');
    await taskUntil(t, a.token, task.id, (x) => x.upgrading_count === 2);
    await t.app.ota.tick();
    let d = await taskDetail(t, a.token, task.id);
    expect(d).toMatchObject({ upgrading_count: 2, pending_count: 4, current_wave: 1 });
    const sent = () => devs.filter((x) => x.commands.length > 0);
    await eventually(async () => (sent().length === 2 ? true : undefined));
    const finished = new Set<string>();
    // The devices sent the upgrade so far report success.
    const finishSent = async () => {
      for (const x of sent()) {
        if (finished.has(x.sn)) continue;
        finished.add(x.sn);
        await x.report(x.commands[0]!.id, 4);
      }
    };
    await finishSent();
    // Wave 1 has 3 devices; the third goes out as soon as a slot is free.
    await taskUntil(t, a.token, task.id, (x) => x.success_count === 2 && x.upgrading_count === 1);
    await eventually(async () => (sent().length === 3 ? true : undefined));
    await finishSent();
    d = await taskUntil(t, a.token, task.id, (x) => x.success_count === 3 && x.next_wave_at !== null);
    expect(d.current_wave).toBe(1);
    expect(sent()).toHaveLength(3);
    await after(30_000);
    expect(sent()).toHaveLength(3);
    await after(31_000);
    d = await taskUntil(t, a.token, task.id, (x) => x.current_wave === 2 && x.upgrading_count === 2);
    await eventually(async () => (sent().length === 5 ? true : undefined));
    await finishSent();
    await taskUntil(t, a.token, task.id, (x) => x.success_count === 5 && x.upgrading_count === 1);
    await eventually(async () => (sent().length === 6 ? true : undefined));
    await finishSent();
    d = await taskUntil(t, a.token, task.id, (x) => x.status === 'done');
    expect(d.success_count).toBe(6);
    for (const x of devs) expect(x.commands).toHaveLength(1);
  });

  it('skips devices already on the version (with the reason) and, when asked, re-installs on them', async () => {
    await devicesOnline(['OTA-E34', 'OTA-E35'], fx.version);
    const skipped = await createTask(t, a.token, {
      name: 'same',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(['OTA-E34', 'OTA-E35']),
    });
    expect(skipped).toMatchObject({ device_count: 2, skipped_count: 2, pending_count: 0, download_bytes: 0 });
    expect((await taskDevices(t, a.token, skipped.id))[0]).toMatchObject({
      result: `already on version ${fx.version}`,
      result_code: 'already_on_version',
      result_params: { version: fx.version },
    });
    const forced = await createTask(t, a.token, {
      name: 'forced',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(['OTA-E34']),
      policy: { skip_same_version: false },
    });
    expect(forced.pending_count).toBe(1);
    await act(t, a.token, forced.id, 'start');
    expect((await taskUntil(t, a.token, forced.id, (x) => x.status === 'done')).success_count).toBe(1);
  });

  it('starts by itself at the plan time and skips what was not sent when the window ends', async () => {
    await devicesOnline(['OTA-E36']);
    const now = t.clock.now().getTime();
    const task = await createTask(t, a.token, {
      name: 'planned',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(['OTA-E36', 'OTA-E37']),
      plan_time: new Date(now + 60_000).toISOString(),
      window_end: new Date(now + 3600_000).toISOString(),
    });
    await t.app.ota.tick();
    expect((await taskDetail(t, a.token, task.id)).status).toBe('inactive');
    await after(61_000);
    let d = await taskUntil(t, a.token, task.id, (x) => x.success_count === 1);
    expect(d.status).toBe('running');
    expect(d.pending_count).toBe(1); // OTA-E37 is offline
    await after(3600_000);
    d = await taskUntil(t, a.token, task.id, (x) => x.status === 'done');
    expect(d).toMatchObject({ success_count: 1, skipped_count: 1 });
    expect(byDevice(await taskDevices(t, a.token, task.id)).get('OTA-E37')).toMatchObject({
      result: 'window ended',
      result_code: 'window_ended',
    });
    const actions = (await auditOf(task.id)).map((r) => r.action);
    expect(actions).toEqual(['ota_task_create', 'ota_task_auto_start', 'ota_task_done']);
  });

  it('skips devices the SIM check refuses, with its reason', async () => {
    await devicesOnline(['OTA-E38', 'OTA-E39']);
    const original = t.app.ota.options.simCheck;
    const asked: { sns: readonly string[]; bytes: number }[] = [];
    t.app.ota.options.simCheck = async (_db, sns, bytes) => {
      asked.push({ sns, bytes });
      return new Map(
        sns.map((sn) => [sn, sn === 'OTA-E39' ? { ok: false, reason: 'card expired' } : { ok: true }]),
      );
    };
    try {
      const task = await createTask(t, a.token, {
        name: 'sim',
        product_key: fx.productKey,
        version_id: fx.versionId,
        targets: pick(['OTA-E38', 'OTA-E39']),
      });
      await act(t, a.token, task.id, 'start');
      const d = await taskUntil(t, a.token, task.id, (x) => x.status === 'done');
      expect(d).toMatchObject({ success_count: 1, skipped_count: 1 });
      expect(byDevice(await taskDevices(t, a.token, task.id)).get('OTA-E39')).toMatchObject({
        result: 'SIM: card expired',
        result_code: 'sim_refused',
        result_params: { reason: 'card expired' },
      });
      expect(asked[0]).toEqual({ sns: ['OTA-E38', 'OTA-E39'], bytes: fx.image.length });
    } finally {
      t.app.ota.options.simCheck = original;
    }
  });

  it('cancels what was not sent yet and keeps following what was', async () => {
    const devs = await devicesOnline(['OTA-E40', 'OTA-E41']);
    for (const d of devs) d.behaviour = 'accept-only';
    const task = await createTask(t, a.token, {
      name: 'cancel',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(['OTA-E40', 'OTA-E41', 'OTA-E42']),
      policy: { max_concurrent: 1 },
    });
    await act(t, a.token, task.id, 'start');
    await taskUntil(t, a.token, task.id, (x) => x.upgrading_count === 1);
    const d = data<{ status: string; cancelled_count: number; upgrading_count: number }>(
      await act(t, a.token, task.id, 'cancel'),
    );
    expect(d).toMatchObject({ status: 'cancelled', cancelled_count: 2, upgrading_count: 1 });
    const sent = await eventually(async () => devs.find((x) => x.commands.length === 1));
    await sent.report(sent.commands[0]!.id, 4);
    await taskUntil(t, a.token, task.id, (x) => x.success_count === 1 && x.upgrading_count === 0);
    await t.app.ota.tick();
    expect(devs.reduce((n, x) => n + x.commands.length, 0)).toBe(1);
    expect((await taskDetail(t, a.token, task.id)).status).toBe('cancelled');
  });
});

describe('live counts', () => {
  it('pushes ota.task events with the counts to the owner and admins only', async () => {
    const b = await t.createUser();
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `${address.replace(/^http/, 'ws')}/api/ws`;
    const sockets = await Promise.all([openSocket(url), openSocket(url), openSocket(url)]);
    const [owner, other, adminSocket] = sockets;
    owner!.send({ type: 'auth', token: a.token });
    other!.send({ type: 'auth', token: b.token });
    adminSocket!.send({ type: 'auth', token: admin });
    await Promise.all(sockets.map((s) => s.next('ready')));
    // A device filter narrows device events, not task events.
    owner!.send({ type: 'subscribe', sns: ['SOMETHING-ELSE'] });
    await owner!.next('subscribed');
    await devicesOnline(['OTA-E43', 'OTA-E44']);
    const task = await createTask(t, a.token, {
      name: 'live',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: pick(['OTA-E43', 'OTA-E44']),
    });
    await act(t, a.token, task.id, 'start');
    const last = await owner!.next('ota.task', (m) => m.id === task.id && m.status === 'done', 10_000);
    expect(last).toMatchObject({
      device_count: 2,
      success_count: 2,
      fail_count: 0,
      product_key: fx.productKey,
    });
    await adminSocket!.next('ota.task', (m) => m.id === task.id && m.status === 'done');
    const mine = owner!.messages.filter((m): m is OtaTaskEvent => m.type === 'ota.task' && m.id === task.id);
    // Merged: far fewer events than row changes (2 devices x 4 reports, dispatch, start, done).
    expect(mine.length).toBeLessThanOrEqual(8);
    expect(other!.messages.some((m) => m.type === 'ota.task')).toBe(false);
    for (const s of sockets) s.close();
  });
});
