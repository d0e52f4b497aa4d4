import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { InboxItem, InboxUnread } from '@cellhub/contract/inbox';
import { alertDevices, createTrigger, historyOf, report } from '../../test/alerts-test-kit';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { eventually } from '../../test/gateway-test-kit';
import { act, createTask, otaFixture, OtaTestDevice, taskUntil } from '../../test/ota-test-kit';
import { createCard, manualProvider } from '../../test/sim-test-support';
import { runSimReminders } from '../sim/sim-reminders.service';
import { simCards } from '../sim/sim-cards.table';
import { addInboxMessages } from './inbox.service';

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };
const live: OtaTestDevice[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
});
afterEach(async () => {
  await Promise.all(live.splice(0).map((d) => d.disconnect()));
});
afterAll(() => t.close());

const body = <T>(res: { statusCode: number; body: string; json(): unknown }) => {
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode}: ${res.body}`);
  return res.json() as { data: T; total?: number };
};
const list = async (token: string, query = '') =>
  body<InboxItem[]>(await t.inject({ method: 'GET', url: `/api/inbox${query}`, token }));
const unread = async (token: string) =>
  body<InboxUnread>(await t.inject({ method: 'GET', url: '/api/inbox/unread', token })).data;

describe('messages written where things happen', () => {
  it('an alert raised writes one message for the trigger owner, with the alert as target', async () => {
    const [dev] = await alertDevices(t, a.token, ['IN-AL-1']);
    const tr = await createTrigger(t, a.token, {
      name: 'too hot',
      sn: 'IN-AL-1',
      key: 'temp',
      type: 4,
      b: 30,
    });
    await report(t, dev!, { temp: 31 });
    await report(t, dev!, { temp: 32 }); // still active: no second message
    const [h] = await historyOf(t, a.token, tr.id);
    const { data, total } = await list(a.token, '?category=alert');
    expect(total).toBe(1);
    expect(data[0]).toMatchObject({
      kind: 'alert_raised',
      category: 'alert',
      params: { alert_id: h!.id, trigger_name: 'too hot', sn: 'IN-AL-1', value: '31' },
      target_type: 'alert',
      target_key: String(h!.id),
      read_at: null,
    });
    expect((await list(b.token)).total).toBe(0);
    expect((await list(admin)).total).toBe(0);
  });

  it('an OTA task that reaches done writes a message for its owner with how the devices ended', async () => {
    const fx = await otaFixture(t, a.token, admin, ['IN-OTA-1', 'IN-OTA-2']);
    for (const d of fx.devices) {
      const dev = new OtaTestDevice(t, d, '1.0.0');
      await dev.connect();
      live.push(dev);
    }
    await eventually(async () => {
      const res = body<{ online: number }[]>(
        await t.inject({ method: 'GET', url: `/api/devices?product_key=${fx.productKey}`, token: a.token }),
      );
      return res.data.every((d) => d.online === 1) ? true : undefined;
    });
    live[1]!.behaviour = 'refuse';
    const task = await createTask(t, a.token, {
      name: 'inbox rollout',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: { type: 'pick', sns: ['IN-OTA-1', 'IN-OTA-2'] },
    });
    expect((await act(t, a.token, task.id, 'start')).statusCode).toBe(200);
    await taskUntil(t, a.token, task.id, (d) => d.status === 'done');
    const { data } = await list(a.token, '?category=ota');
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      kind: 'ota_finished',
      params: {
        task_id: task.id,
        task_name: 'inbox rollout',
        succeeded: 1,
        failed: 1,
        reason: 'every_device_ended',
      },
      target_type: 'ota_task',
      target_key: String(task.id),
    });
  });

  it('a SIM reminder writes one message per card and threshold, also for a user without a channel', async () => {
    const provider = await manualProvider(t, admin);
    const iccid = await createCard(t, admin, { provider_id: provider, uid: b.uid });
    const expires = new Date(t.app.deps.now().getTime() + 2.5 * 86_400_000);
    await t.app.deps.db.update(simCards).set({ expiresAt: expires }).where(eq(simCards.iccid, iccid));
    const settings = { days: [7, 3, 1], dataPercent: 0 };
    await runSimReminders(t.app.deps, settings);
    await runSimReminders(t.app.deps, settings);
    const { data } = await list(b.token, '?category=sim');
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      kind: 'sim_expiring',
      category: 'sim',
      params: { iccid, expiry: expires.toISOString(), days: 3 },
      target_type: 'sim_card',
      target_key: iccid,
    });
  });
});

describe('read state', () => {
  it('marks one, some or all read; counts the unread per tab; nobody reads or marks another user’s', async () => {
    const c = await t.createUser();
    const d = await t.createUser();
    await addInboxMessages(t.app.deps.db, [
      ...Array.from({ length: 25 }, (_, i) => ({
        uid: c.uid,
        kind: 'sim_data_low' as const,
        params: { iccid: `8986${i}`, phone: '', remaining_mb: 1, percent: 10 },
        target: { type: 'sim_card' as const, key: `8986${i}` },
      })),
      { uid: c.uid, kind: 'alert_raised', params: { alert_id: 1 }, dedupeKey: 'x' },
      { uid: c.uid, kind: 'alert_raised', params: { alert_id: 1 }, dedupeKey: 'x' },
    ]);
    expect(await unread(c.token)).toEqual({ total: 26, alert: 1, ota: 0, sim: 25 });
    expect(await unread(d.token)).toEqual({ total: 0, alert: 0, ota: 0, sim: 0 });

    // Pages, newest first.
    const p1 = await list(c.token, '?per_page=10');
    const p3 = await list(c.token, '?per_page=10&current=3');
    expect(p1.total).toBe(26);
    expect(p1.data).toHaveLength(10);
    expect(p3.data).toHaveLength(6);
    expect(p1.data[0]!.kind).toBe('alert_raised');
    const ids = [...p1.data, ...p3.data].map((m) => m.id);
    expect(new Set(ids).size).toBe(16);
    expect(p1.data.map((m) => m.id)).toEqual([...p1.data.map((m) => m.id)].sort((x, y) => y - x));

    // Another user: the message does not exist for her, read or marked.
    const target = p1.data[0]!;
    const foreign = await t.inject({ method: 'POST', url: `/api/inbox/${target.id}/read`, token: d.token });
    expect(foreign.statusCode).toBe(400);
    expect(errorOf(foreign).code).toBe(10107);
    expect(
      body<{ read: number }>(
        await t.inject({
          method: 'POST',
          url: '/api/inbox/read',
          token: d.token,
          payload: { ids: [target.id] },
        }),
      ).data.read,
    ).toBe(0);
    expect(
      body<{ read: number }>(
        await t.inject({ method: 'POST', url: '/api/inbox/read', token: d.token, payload: {} }),
      ).data.read,
    ).toBe(0);
    expect((await unread(c.token)).total).toBe(26);

    // One.
    const one = body<InboxItem>(
      await t.inject({ method: 'POST', url: `/api/inbox/${target.id}/read`, token: c.token }),
    );
    expect(one.data.read_at).not.toBeNull();
    const again = body<InboxItem>(
      await t.inject({ method: 'POST', url: `/api/inbox/${target.id}/read`, token: c.token }),
    );
    expect(again.data.read_at).toBe(one.data.read_at);
    expect(await unread(c.token)).toEqual({ total: 25, alert: 0, ota: 0, sim: 25 });
    expect((await list(c.token, '?unread=1')).total).toBe(25);

    // Some, then a whole tab.
    const some = p1.data.slice(1, 4).map((m) => m.id);
    expect(
      body<{ read: number }>(
        await t.inject({ method: 'POST', url: '/api/inbox/read', token: c.token, payload: { ids: some } }),
      ).data.read,
    ).toBe(3);
    expect(
      body<{ read: number }>(
        await t.inject({
          method: 'POST',
          url: '/api/inbox/read',
          token: c.token,
          payload: { category: 'sim' },
        }),
      ).data.read,
    ).toBe(22);
    expect(await unread(c.token)).toEqual({ total: 0, alert: 0, ota: 0, sim: 0 });
    expect((await list(c.token, '?unread=1')).total).toBe(0);
    expect((await list(c.token)).total).toBe(26);
  });

  it('rejects bad input with 10113 and a missing message with 10107', async () => {
    for (const req of [
      { method: 'GET' as const, url: '/api/inbox?category=mail' },
      { method: 'GET' as const, url: '/api/inbox?per_page=500' },
      { method: 'POST' as const, url: '/api/inbox/abc/read' },
      { method: 'POST' as const, url: '/api/inbox/read', payload: { ids: [] } },
    ]) {
      const res = await t.inject({ ...req, token: a.token });
      expect(res.statusCode, req.url).toBe(400);
      expect(errorOf(res).code).toBe(10113);
    }
    const missing = await t.inject({ method: 'POST', url: '/api/inbox/999999/read', token: a.token });
    expect(errorOf(missing).code).toBe(10107);
    const anonymous = await t.inject({ method: 'GET', url: '/api/inbox' });
    expect(anonymous.statusCode).toBe(403);
  });
});
