import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OTA_ALLOWED_ACTIONS,
  OTA_TASK_ACTIONS,
  OTA_TASK_STATUSES,
  type OtaTaskAction,
  type OtaTaskDetail,
  type OtaTaskItem,
  type OtaTaskPreview,
  type OtaTaskStatus,
} from '@cellhub/contract/ota';
import { eventually } from '../../test/gateway-test-kit';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { auditLogs } from '../audit/audit.table';
import { devices } from '../devices/devices.table';
import { signDownloadToken } from './ota-token';
import {
  act,
  createTask,
  data,
  md5,
  type OtaFixture,
  otaFixture,
  OtaTestDevice,
  taskDetail,
  taskDevices,
  taskUntil,
} from '../../test/ota-test-kit';
import { otaDevices } from './ota.table';

let t: TestApp;
let admin: string;
let a: { uid: number; token: string; username: string };
let b: { uid: number; token: string; username: string };
let fx: OtaFixture;
let fxB: OtaFixture;
const live: OtaTestDevice[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
  fx = await otaFixture(
    t,
    a.token,
    admin,
    Array.from({ length: 40 }, (_, i) => `OTA-A${String(i + 1).padStart(2, '0')}`),
    { size: 10_000 },
  );
  fxB = await otaFixture(t, b.token, admin, ['OTA-B01', 'OTA-B02'], { version: '3.1.0', size: 2_000 });
});
afterEach(async () => {
  await Promise.all(live.splice(0).map((d) => d.disconnect()));
});
afterAll(() => t.close());

async function online(sn: string, fwVersion = '1.0.0'): Promise<OtaTestDevice> {
  const dev = new OtaTestDevice(
    t,
    fx.devices.find((d) => d.sn === sn)!,
    fwVersion,
  );
  await dev.connect();
  live.push(dev);
  await eventually(async () => {
    const d = data<{ online: number; fw_version: string }>(
      await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token: a.token }),
    );
    return d.online === 1 && d.fw_version === fwVersion ? true : undefined;
  });
  return dev;
}

const base = (sns: string[]) => ({
  name: `task ${sns.join(',')}`,
  product_key: fx.productKey,
  version_id: fx.versionId,
  targets: { type: 'pick' as const, sns },
});

// --- state machine ---------------------------------------------------------------------------------------------

/** A task of A in `state`: its device OTA-A01 stays offline, so a running task keeps running. */
async function taskIn(state: OtaTaskStatus): Promise<OtaTaskDetail> {
  if (state === 'done') {
    // Its only device is already on the version: nothing to send, so the engine ends it at once.
    await online('OTA-A02', fx.version);
    const task = await createTask(t, a.token, base(['OTA-A02']));
    await act(t, a.token, task.id, 'start');
    const done = await taskUntil(t, a.token, task.id, (d) => d.status === 'done');
    await Promise.all(live.splice(0).map((d) => d.disconnect()));
    return done;
  }
  const task = await createTask(t, a.token, base(['OTA-A01']));
  if (state === 'inactive') return task;
  if (state === 'cancelled') return data(await act(t, a.token, task.id, 'cancel'));
  const running = data<OtaTaskDetail>(await act(t, a.token, task.id, 'start'));
  if (state === 'running') return running;
  return data(await act(t, a.token, task.id, 'pause'));
}

const NEXT: Partial<Record<`${OtaTaskStatus} ${OtaTaskAction}`, OtaTaskStatus | 'deleted'>> = {
  'inactive start': 'running',
  'inactive cancel': 'cancelled',
  'inactive delete': 'deleted',
  'running pause': 'paused',
  'running cancel': 'cancelled',
  'paused start': 'running',
  'paused cancel': 'cancelled',
  'done delete': 'deleted',
  'cancelled delete': 'deleted',
};

describe('state machine', () => {
  const cases = OTA_TASK_STATUSES.flatMap((s) => OTA_TASK_ACTIONS.map((a) => [s, a] as const));

  it('agrees with the contract table', () => {
    for (const [state, action] of cases) {
      expect(OTA_ALLOWED_ACTIONS[state].includes(action), `${state} ${action}`).toBe(
        NEXT[`${state} ${action}`] !== undefined,
      );
    }
  });

  it.each(cases)('%s + %s', async (state, action) => {
    const task = await taskIn(state);
    expect(task.status).toBe(state);
    const auditOf = () =>
      t.app.deps.db
        .select({ action: auditLogs.action, detail: auditLogs.detail })
        .from(auditLogs)
        .where(eq(auditLogs.target, `ota-task:${task.id}`))
        .orderBy(auditLogs.id);
    const before = (await auditOf()).length;
    const res =
      action === 'delete'
        ? await t.inject({ method: 'DELETE', url: `/api/ota/tasks/${task.id}`, token: a.token })
        : await act(t, a.token, task.id, action);
    const next = NEXT[`${state} ${action}`];
    const audit = await auditOf();
    if (next === undefined) {
      expect(res.statusCode).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: 71001, details: { status: state, action } });
      expect((await taskDetail(t, a.token, task.id)).status).toBe(state);
      expect(audit).toHaveLength(before);
      return;
    }
    expect(res.statusCode).toBe(200);
    expect(audit).toHaveLength(before + 1);
    expect(audit.at(-1)).toMatchObject({ action: `ota_task_${action}`, detail: { from: state } });
    if (next === 'deleted') {
      expect(res.json()).toEqual({ status: true, data: null });
      const gone = await t.inject({ method: 'GET', url: `/api/ota/tasks/${task.id}`, token: a.token });
      expect(errorOf(gone).code).toBe(10107);
      const rows = await t.app.deps.db.select().from(otaDevices).where(eq(otaDevices.taskId, task.id));
      expect(rows).toHaveLength(0);
    } else {
      expect(data<OtaTaskDetail>(res).status).toBe(next);
      expect((await taskDetail(t, a.token, task.id)).status).toBe(next);
    }
  });

  it('refuses to start a task whose window has ended (71006)', async () => {
    const task = await createTask(t, a.token, {
      ...base(['OTA-A01']),
      window_end: new Date(t.clock.now().getTime() + 60_000).toISOString(),
    });
    t.clock.advance(61_000);
    const res = await act(t, a.token, task.id, 'start');
    expect(errorOf(res).code).toBe(71006);
    expect((await taskDetail(t, a.token, task.id)).status).toBe('inactive');
  });
});

// --- create, preview, read -------------------------------------------------------------------------------------

describe('creating a task', () => {
  it('previews the devices and the download volume of the targets', async () => {
    await online('OTA-A03');
    await online('OTA-A04', fx.version);
    const p = data<OtaTaskPreview>(
      await t.inject({
        method: 'POST',
        url: '/api/ota/tasks/preview',
        token: a.token,
        payload: {
          product_key: fx.productKey,
          version_id: fx.versionId,
          targets: { type: 'list', sns: 'OTA-A03\nOTA-A04\r\nOTA-A05,NOPE-1' },
        },
      }),
    );
    expect(p).toEqual({
      device_count: 3,
      same_version_count: 1,
      online_count: 2,
      sim_blocked_count: 0,
      download_devices: 2,
      size: fx.image.length,
      download_bytes: 2 * fx.image.length,
      not_found: ['NOPE-1'],
      version: fx.version,
    });
    const all = data<OtaTaskPreview>(
      await t.inject({
        method: 'POST',
        url: '/api/ota/tasks/preview',
        token: a.token,
        payload: {
          product_key: fx.productKey,
          version_id: fx.versionId,
          targets: { type: 'all' },
          skip_same_version: false,
        },
      }),
    );
    expect(all).toMatchObject({
      device_count: 40,
      download_devices: 40,
      download_bytes: 40 * fx.image.length,
    });
  });

  it('targets all devices, a filter, a list or picked devices of the caller, in waves', async () => {
    await online('OTA-A06');
    const all = await createTask(t, a.token, {
      ...base([]),
      targets: { type: 'all' },
      policy: { wave_type: 'count', wave_size: 15, skip_same_version: false },
    });
    expect(all).toMatchObject({ device_count: 40, wave_count: 3, targets: { type: 'all' } });
    const rows = await taskDevices(t, a.token, all.id);
    expect(rows.map((r) => r.wave)).toEqual(Array.from({ length: 40 }, (_, i) => Math.floor(i / 15) + 1));
    expect(rows[0]).toMatchObject({
      taskid: all.id,
      firmwareid: fx.firmwareId,
      firmwarename: 'DTU main',
      devicekey: 'OTA-A01',
      version: fx.version,
      status: 0,
      phase: 'pending',
      attempts: 0,
      upgrade_id: null,
    });
    const filtered = await createTask(t, a.token, {
      ...base([]),
      targets: { type: 'filter', keyword: 'a0', online: 1 },
    });
    expect(filtered.device_count).toBe(1);
    expect((await taskDevices(t, a.token, filtered.id))[0]?.devicekey).toBe('OTA-A06');
    expect(filtered.targets).toEqual({ type: 'filter', keyword: 'a0', online: 1 });
    const list = await createTask(t, a.token, {
      ...base([]),
      targets: { type: 'list', sns: 'OTA-A09\nOTA-A07\nOTA-A09' },
    });
    expect(list.targets).toEqual({ type: 'list', sn_count: 2 });
    expect((await taskDevices(t, a.token, list.id)).map((r) => r.devicekey)).toEqual(['OTA-A09', 'OTA-A07']);
  });

  it('refuses unknown or foreign devices, products and versions with their codes', async () => {
    const post = (token: string, payload: Record<string, unknown>) =>
      t.inject({ method: 'POST', url: '/api/ota/tasks', token, payload });
    let res = await post(a.token, { ...base(['OTA-A01', 'OTA-B01', 'NOPE-9']) });
    expect(errorOf(res)).toMatchObject({ code: 10117, details: { not_found: ['OTA-B01', 'NOPE-9'] } });
    res = await post(a.token, { ...base([]), targets: { type: 'filter', keyword: 'no-such-device' } });
    expect(errorOf(res).code).toBe(71002);
    res = await post(a.token, { ...base(['OTA-A01']), version_id: fxB.versionId });
    expect(errorOf(res).code).toBe(70001); // B's private firmware is not A's to use
    res = await post(admin, { ...base(['OTA-A01']), version_id: fxB.versionId });
    expect(errorOf(res).code).toBe(71003); // admins may use it, but it is for another product
    res = await post(a.token, { ...base(['OTA-A01']), version_id: 999_999 });
    expect(errorOf(res).code).toBe(70001);
    res = await post(b.token, { ...base(['OTA-A01']) });
    expect(errorOf(res).code).toBe(10107); // A's product: B has no device in it
    res = await post(a.token, { ...base(['OTA-A01']), product_key: 'nope-product' });
    expect(errorOf(res).code).toBe(10107);
    res = await post(a.token, {
      ...base(['OTA-A01']),
      window_end: new Date(t.clock.now().getTime() - 1000).toISOString(),
    });
    expect(errorOf(res)).toMatchObject({ code: 10113, details: [{ field: 'window_end' }] });
    res = await post(a.token, {
      ...base(['OTA-A01']),
      plan_time: '2030-01-02T00:00:00Z',
      window_end: '2030-01-01T00:00:00Z',
      policy: { wave_type: 'percent', wave_size: 150 },
    });
    const err = errorOf(res);
    expect(err.code).toBe(10113);
    expect((err.details as { field: string }[]).map((d) => d.field).sort()).toEqual([
      'policy.wave_size',
      'window_end',
    ]);
  });

  it('lets an admin roll out to any devices, and a user use a public version on their devices', async () => {
    const adminTask = await createTask(t, admin, base(['OTA-A10', 'OTA-A11']));
    expect(adminTask.owner).toBe('admin');
    const pub = await otaFixture(t, admin, admin, ['OTA-P01', 'OTA-P02'], { public: true, version: '9.0.0' });
    // The admin hands one device of its product to B.
    await t.inject({ method: 'PUT', url: '/api/devices/OTA-P02', token: admin, payload: { uid: b.uid } });
    const task = await createTask(t, b.token, {
      name: 'public',
      product_key: pub.productKey,
      version_id: pub.versionId,
      targets: { type: 'all' },
    });
    expect(task.device_count).toBe(1);
    expect((await taskDevices(t, b.token, task.id))[0]?.devicekey).toBe('OTA-P02');
  });
});

describe('reading tasks', () => {
  it('lists with counts, filters and pages; each user sees their own, admins all', async () => {
    const mine = await createTask(t, a.token, { ...base(['OTA-A12']), name: 'Zeta rollout' });
    const theirs = await createTask(t, b.token, {
      name: 'Zeta of B',
      product_key: fxB.productKey,
      version_id: fxB.versionId,
      targets: { type: 'all' },
    });
    const list = (token: string, query: Record<string, string>) =>
      t.inject({ method: 'GET', url: '/api/ota/tasks', token, query });
    const aList = await list(a.token, { keyword: 'zeta' });
    expect((aList.json() as { total: number }).total).toBe(1);
    const item = data<OtaTaskItem[]>(aList)[0]!;
    expect(item).toMatchObject({
      id: mine.id,
      owner: a.username,
      product_name: 'OTA DTU',
      firmware_name: 'DTU main',
      version: fx.version,
      status: 'inactive',
      device_count: 1,
      success_count: 0,
      fail_count: 0,
    });
    const adminList = data<OtaTaskItem[]>(await list(admin, { keyword: 'Zeta' }));
    expect(adminList.map((x) => x.id).sort()).toEqual([mine.id, theirs.id].sort());
    expect(
      data<OtaTaskItem[]>(await list(admin, { keyword: 'zeta', product_key: fxB.productKey })),
    ).toHaveLength(1);
    expect(data<OtaTaskItem[]>(await list(a.token, { status: 'running', keyword: 'zeta' }))).toHaveLength(0);
    const page = await list(a.token, { per_page: '2', current: '2' });
    expect(data<OtaTaskItem[]>(page)).toHaveLength(2);
    expect((page.json() as { total: number }).total).toBeGreaterThan(4);
  });

  it('never shows or lets anyone act on another user’s task (10107), while an admin may', async () => {
    const task = await createTask(t, a.token, base(['OTA-A13']));
    for (const [method, url] of [
      ['GET', `/api/ota/tasks/${task.id}`],
      ['GET', `/api/ota/tasks/${task.id}/devices`],
      ['POST', `/api/ota/tasks/${task.id}/start`],
      ['POST', `/api/ota/tasks/${task.id}/pause`],
      ['POST', `/api/ota/tasks/${task.id}/cancel`],
      ['DELETE', `/api/ota/tasks/${task.id}`],
    ] as const) {
      const res = await t.inject({ method, url, token: b.token });
      expect(res.statusCode, url).toBe(400);
      expect(errorOf(res).code, url).toBe(10107);
    }
    expect((await taskDetail(t, a.token, task.id)).status).toBe('inactive');
    const res = await act(t, admin, task.id, 'cancel');
    expect(data<OtaTaskDetail>(res).status).toBe('cancelled');
    const [row] = await t.app.deps.db
      .select({ uid: auditLogs.uid })
      .from(auditLogs)
      .where(eq(auditLogs.target, `ota-task:${task.id}`))
      .orderBy(auditLogs.id);
    expect(row?.uid).toBe(a.uid);
  });

  it('filters the upgrade log by status, phase and sn', async () => {
    await online('OTA-A14', fx.version);
    const task = await createTask(t, a.token, base(['OTA-A14', 'OTA-A15', 'OTA-A16']));
    const rows = (query: string) =>
      t.inject({ method: 'GET', url: `/api/ota/tasks/${task.id}/devices?${query}`, token: a.token });
    expect(data<unknown[]>(await rows('phase=skipped'))).toHaveLength(1);
    expect(data<unknown[]>(await rows('status=0&phase=pending'))).toHaveLength(2);
    const one = await rows('keyword=a16');
    expect(data<{ devicekey: string }[]>(one).map((r) => r.devicekey)).toEqual(['OTA-A16']);
    expect((one.json() as { total: number }).total).toBe(1);
  });
});

// --- firmware ---------------------------------------------------------------------------------------------------

describe('firmware in use', () => {
  it('refuses to delete a version an unfinished task rolls out (71005), and allows it after', async () => {
    const own = await otaFixture(t, a.token, admin, ['OTA-F01'], { version: '5.0.0', size: 1000 });
    const task = await createTask(t, a.token, {
      name: 'holds the version',
      product_key: own.productKey,
      version_id: own.versionId,
      targets: { type: 'all' },
    });
    const del = () =>
      t.inject({
        method: 'DELETE',
        url: `/api/firmware/${own.firmwareId}/versions/${own.versionId}`,
        token: admin,
      });
    for (const step of ['inactive', 'start', 'pause'] as const) {
      if (step !== 'inactive') await act(t, a.token, task.id, step);
      const res = await del();
      expect(errorOf(res)).toMatchObject({ code: 71005, details: { task_id: task.id } });
    }
    const whole = await t.inject({ method: 'DELETE', url: `/api/firmware/${own.firmwareId}`, token: admin });
    expect(errorOf(whole).code).toBe(71005);
    await act(t, a.token, task.id, 'cancel');
    expect((await del()).statusCode).toBe(200);
  });
});

// --- download ---------------------------------------------------------------------------------------------------

describe('download', () => {
  /** A device that accepted an upgrade and holds its command (with the download URL). */
  async function dispatched(sn: string, policy: Record<string, unknown> = {}) {
    const dev = await online(sn);
    dev.behaviour = 'accept-only';
    const task = await createTask(t, a.token, { ...base([sn]), policy });
    await act(t, a.token, task.id, 'start');
    const cmd = await eventually(async () => dev.commands[0]);
    // The device can have the message before the engine marks it sent (`sent_at`, what reply timeouts count
    // from): wait for the mark, or a test that moves the clock on would date the send after the move.
    await eventually(async () => {
      const [row] = await t.app.deps.db
        .select({ sentAt: otaDevices.sentAt })
        .from(otaDevices)
        .where(and(eq(otaDevices.taskId, task.id), eq(otaDevices.sn, sn)));
      return row?.sentAt ? true : undefined;
    });
    return { dev, task, cmd, path: new URL(cmd.url).pathname };
  }

  it('serves the file with ETag and Content-Length, and byte ranges a device resumes with', async () => {
    const { cmd, path, task } = await dispatched('OTA-A20');
    expect(cmd.url.startsWith(`${t.app.deps.config.publicUrl}/api/ota/download/`)).toBe(true);
    const whole = await t.inject({ method: 'GET', url: path });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-length']).toBe(String(fx.image.length));
    expect(whole.headers['content-type']).toBe('application/octet-stream');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers.etag).toBe(`"${md5(fx.image)}"`);
    expect(md5(whole.rawPayload)).toBe(cmd.checksum);
    // A broken download resumes where it stopped; the pieces make the file.
    const first = await t.inject({ method: 'GET', url: path, headers: { range: 'bytes=0-4095' } });
    expect(first.statusCode).toBe(206);
    expect(first.headers['content-range']).toBe(`bytes 0-4095/${fx.image.length}`);
    expect(first.headers['content-length']).toBe('4096');
    const rest = await t.inject({
      method: 'GET',
      url: path,
      headers: { range: 'bytes=4096-', 'if-range': String(whole.headers.etag) },
    });
    expect(rest.statusCode).toBe(206);
    expect(md5(Buffer.concat([first.rawPayload, rest.rawPayload]))).toBe(cmd.checksum);
    const tail = await t.inject({ method: 'GET', url: path, headers: { range: 'bytes=-100' } });
    expect(tail.rawPayload).toEqual(fx.image.subarray(fx.image.length - 100));
    // If-Range with another validator: the file changed, so the whole of it comes back.
    const changed = await t.inject({
      method: 'GET',
      url: path,
      headers: { range: 'bytes=4096-', 'if-range': '"something-else"' },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.rawPayload.length).toBe(fx.image.length);
    for (const range of [
      `bytes=${fx.image.length}-`,
      'bytes=500-100',
      'bytes=abc',
      'items=0-1',
      'bytes=-0',
    ]) {
      const bad = await t.inject({ method: 'GET', url: path, headers: { range } });
      expect(bad.statusCode, range).toBe(416);
      expect(bad.headers['content-range'], range).toBe(`bytes */${fx.image.length}`);
      expect(errorOf(bad).code).toBe(10113);
    }
    // Every request through the token is counted (written once a second).
    await eventually(async () =>
      (await taskDetail(t, a.token, task.id)).downloads === 5 ? true : undefined,
    );
  });

  it('refuses tampered, foreign, superseded and expired tokens with 403 / 71004', async () => {
    const { dev, path, task } = await dispatched('OTA-A21', {
      timeout_s: 10,
      retries: 1,
      retry_backoff_s: 1,
    });
    const token = path.split('/').at(-1)!;
    const [rowId, attempt, exp, sig] = token.split('.');
    const denied = async (url: string) => {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(403);
      expect(errorOf(res).code).toBe(71004);
    };
    // Another row (another device's upgrade) with this signature, a longer validity, garbage.
    await denied(`/api/ota/download/${Number(rowId) + 1}.${attempt}.${exp}.${sig}`);
    await denied(`/api/ota/download/${rowId}.${attempt}.${(parseInt(exp!, 36) + 1e9).toString(36)}.${sig}`);
    await denied(`/api/ota/download/${rowId}.${attempt}.${exp}.${'0'.repeat(64)}`);
    await denied('/api/ota/download/not-a-token');
    // A token signed for the row of another device: valid signature, but not this upgrade's row/attempt.
    await denied(
      `/api/ota/download/${signDownloadToken(t.app.deps.box, {
        rowId: Number(rowId),
        attempt: Number(attempt) + 1,
        expiresAt: t.clock.now().getTime() + 60_000,
      })}`,
    );
    expect((await t.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    // The attempt times out and is sent again: the first token stops working, the new one works.
    t.clock.advance(11_000);
    await t.app.ota.tick();
    // The retry is due a backoff after the timeout is handled, which under load can finish after a tick returned:
    // move the clock on in steps until it is sent (the policy allows one retry, so no third send can follow).
    const second = await eventually(async () => {
      if (dev.commands[1]) return dev.commands[1];
      t.clock.advance(1_000);
      await t.app.ota.tick();
      return dev.commands[1];
    });
    await denied(path);
    const newPath = new URL(second.url).pathname;
    expect((await t.inject({ method: 'GET', url: newPath })).statusCode).toBe(200);
    // 24 hours after the dispatch the token expires.
    t.clock.advance(24 * 3600_000 + 1000);
    await denied(newPath);
    await t.inject({ method: 'POST', url: `/api/ota/tasks/${task.id}/cancel`, token: a.token });
  });

  it('stops working when the task is deleted, and is not held back by the per-address flood guard', async () => {
    const limited = await buildTestApp({ config: { rateLimitPerMinute: 3 } });
    try {
      const adminL = await limited.adminToken();
      const own = await otaFixture(limited, adminL, adminL, ['OTA-L01'], { size: 500 });
      const dev = new OtaTestDevice(limited, own.devices[0]!);
      dev.behaviour = 'accept-only';
      await dev.connect();
      try {
        // Read from the table: this app allows 3 API calls a minute, which polling the API would spend.
        await eventually(async () => {
          const [d] = await limited.app.deps.db
            .select({ online: devices.online })
            .from(devices)
            .where(eq(devices.sn, 'OTA-L01'));
          return d?.online === 1 ? true : undefined;
        });
        const task = await createTask(limited, adminL, {
          name: 'flood',
          product_key: own.productKey,
          version_id: own.versionId,
          targets: { type: 'all' },
        });
        await act(limited, adminL, task.id, 'start');
        const cmd = await eventually(async () => dev.commands[0]);
        const path = new URL(cmd.url).pathname;
        for (let i = 0; i < 6; i++) {
          expect(
            (await limited.inject({ method: 'GET', url: path, remoteAddress: '192.0.2.9' })).statusCode,
          ).toBe(200);
        }
        await act(limited, adminL, task.id, 'cancel');
        await limited.inject({ method: 'DELETE', url: `/api/ota/tasks/${task.id}`, token: adminL });
        const gone = await limited.inject({ method: 'GET', url: path });
        expect(gone.statusCode).toBe(403);
      } finally {
        await dev.disconnect();
      }
    } finally {
      await limited.close();
    }
  });
});
