import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardWorkplace, WORKPLACE_LIMIT } from '@cellhub/contract/dashboard';
import { alertDevices, createTrigger, report } from '../../test/alerts-test-kit';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { act, createTask, otaFixture } from '../../test/ota-test-kit';
import { createCard, manualProvider } from '../../test/sim-test-support';
import { devices } from '../devices/devices.table';
import { simCards } from '../sim/sim-cards.table';
import { startOfToday } from './workplace.service';

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
});
afterAll(() => t.close());

const workplace = async (token: string, query = '') => {
  const res = await t.inject({ method: 'GET', url: `/api/dashboard/workplace${query}`, token });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { data: DashboardWorkplace }).data;
};

describe('GET /api/dashboard/workplace', () => {
  it("lists the caller's active alerts, running tasks, cards to renew and devices offline today", async () => {
    const empty = await workplace(a.token);
    for (const k of ['alerts', 'ota', 'sim_expiring', 'sim_exhausted', 'offline_today'] as const)
      expect(empty[k]).toEqual({ total: 0, items: [] });

    // An active alert of a, and one of b's.
    const [devA] = await alertDevices(t, a.token, ['WP-A1', 'WP-A2']);
    const [devB] = await alertDevices(t, b.token, ['WP-B1']);
    await createTrigger(t, a.token, { name: 'hot', sn: 'WP-A1', key: 'temp', type: 4, b: 30 });
    await createTrigger(t, b.token, { name: 'hot b', sn: 'WP-B1', key: 'temp', type: 4, b: 30 });
    await report(t, devA!, { temp: 40 });
    await report(t, devB!, { temp: 40 });

    // A running task of a (its device offline: it stays running, waiting).
    const fx = await otaFixture(t, a.token, admin, ['WP-OTA-1']);
    const task = await createTask(t, a.token, {
      name: 'night rollout',
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: { type: 'pick', sns: ['WP-OTA-1'] },
    });
    expect((await act(t, a.token, task.id, 'start')).statusCode).toBe(200);

    // Cards of a: one expiring in 5 days, one later in 20, one out of traffic; one of b expiring.
    const provider = await manualProvider(t, admin);
    const now = t.app.deps.now().getTime();
    const soon = await createCard(t, admin, { provider_id: provider, uid: a.uid });
    const later = await createCard(t, admin, { provider_id: provider, uid: a.uid });
    const empty1 = await createCard(t, admin, { provider_id: provider, uid: a.uid });
    const ofB = await createCard(t, admin, { provider_id: provider, uid: b.uid });
    const db = t.app.deps.db;
    await db
      .update(simCards)
      .set({ expiresAt: new Date(now + 20 * 86_400_000) })
      .where(eq(simCards.iccid, later));
    await db
      .update(simCards)
      .set({ expiresAt: new Date(now + 5 * 86_400_000) })
      .where(eq(simCards.iccid, soon));
    await db
      .update(simCards)
      .set({ expiresAt: new Date(now + 5 * 86_400_000) })
      .where(eq(simCards.iccid, ofB));
    await db.update(simCards).set({ exhausted: true }).where(eq(simCards.iccid, empty1));

    // WP-B1 reported just now and is online; WP-A2 was heard an hour ago and is offline now; WP-A1 was heard 3 days ago.
    await db
      .update(devices)
      .set({ online: 0, lastcommunicationat: new Date(now - 3_600_000) })
      .where(eq(devices.sn, 'WP-A2'));
    await db
      .update(devices)
      .set({ online: 0, lastcommunicationat: new Date(now - 3 * 86_400_000) })
      .where(eq(devices.sn, 'WP-A1'));
    await db.update(devices).set({ online: 1 }).where(eq(devices.sn, 'WP-B1'));

    const since = new Date(now - 2 * 3_600_000).toISOString();
    const mine = await workplace(a.token, `?since=${encodeURIComponent(since)}`);
    expect(mine.alerts.total).toBe(1);
    expect(mine.alerts.items[0]).toMatchObject({ trigger_name: 'hot', sn: 'WP-A1', status: 'active' });
    expect(mine.ota.total).toBe(1);
    expect(mine.ota.items[0]).toMatchObject({ id: task.id, name: 'night rollout', status: 'running' });
    expect(mine.sim_expiring.total).toBe(2);
    expect(mine.sim_expiring.items.map((c) => c.iccid)).toEqual([soon, later]);
    expect(mine.sim_exhausted.items.map((c) => c.iccid)).toEqual([empty1]);
    expect(mine.offline_today.total).toBe(1);
    expect(mine.offline_today.items[0]).toMatchObject({ sn: 'WP-A2', product_name: 'Alert DTU' });
    expect(mine.since).toBe(since);

    // b sees her own only; the admin sees everyone's.
    const theirs = await workplace(b.token);
    expect(theirs.alerts.items.map((x) => x.sn)).toEqual(['WP-B1']);
    expect(theirs.ota.total).toBe(0);
    expect(theirs.sim_expiring.items.map((c) => c.iccid)).toEqual([ofB]);
    expect(theirs.sim_exhausted.total).toBe(0);
    expect(theirs.offline_today.total).toBe(0);
    const all = await workplace(admin);
    expect(all.alerts.total).toBe(2);
    expect(all.sim_expiring.total).toBe(3);
    expect(all.ota.total).toBe(1);
  });

  it('lists the cards that expire soonest, not the newest cards that expire', async () => {
    const c = await t.createUser();
    const provider = await manualProvider(t, admin);
    const now = t.app.deps.now().getTime();
    // Created oldest first with the soonest expiry first: a newest-first page would leave the most urgent out.
    const iccids: string[] = [];
    for (let i = 0; i <= WORKPLACE_LIMIT; i++) {
      const iccid = await createCard(t, admin, { provider_id: provider, uid: c.uid });
      await t.app.deps.db
        .update(simCards)
        .set({ expiresAt: new Date(now + (i + 1) * 86_400_000) })
        .where(eq(simCards.iccid, iccid));
      iccids.push(iccid);
    }
    const view = await workplace(c.token);
    expect(view.sim_expiring.total).toBe(WORKPLACE_LIMIT + 1);
    expect(view.sim_expiring.items.map((x) => x.iccid)).toEqual(iccids.slice(0, WORKPLACE_LIMIT));
  });

  it('takes the start of today from the browser within two days, else UTC midnight; refuses bad input', async () => {
    const now = new Date('2026-05-02T03:00:00Z');
    expect(startOfToday(now, undefined).toISOString()).toBe('2026-05-02T00:00:00.000Z');
    expect(startOfToday(now, '2026-05-01T16:00:00.000Z').toISOString()).toBe('2026-05-01T16:00:00.000Z');
    expect(startOfToday(now, '2026-04-01T16:00:00.000Z').toISOString()).toBe('2026-05-02T00:00:00.000Z');
    expect(startOfToday(now, '2026-05-03T00:00:00.000Z').toISOString()).toBe('2026-05-02T00:00:00.000Z');
    const bad = await t.inject({
      method: 'GET',
      url: '/api/dashboard/workplace?since=yesterday',
      token: a.token,
    });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).code).toBe(10113);
    expect((await t.inject({ method: 'GET', url: '/api/dashboard/workplace' })).statusCode).toBe(403);
  });
});
