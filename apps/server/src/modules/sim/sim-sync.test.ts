import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type {
  SimCardDetail,
  SimProviderItem,
  SimProviderTestResult,
  SimSyncRun,
} from '@cellhub/contract/sim';
import { JobWorker } from '../../jobs/worker';
import { buildTestApp, type TestApp } from '../../test/app';
import { eventually } from '../../test/gateway-test-kit';
import { FAULTS } from '../../test/sim-providers/fake-http';
import { FakeOneNce } from '../../test/sim-providers/one-nce-fake';
import { FakeOnelink } from '../../test/sim-providers/onelink-fake';
import { simProviders } from './sim-providers.table';
import {
  claimRun,
  runDueSyncs,
  scheduleDueSyncs,
  simSyncKind,
  SYNC_BACKOFF_MS,
  SYNC_LEASE_MS,
  SYNC_MAX_ATTEMPTS,
} from './sim-sync.service';
import {
  api,
  createCard,
  createPackage,
  expectCode,
  manualProvider,
  newIccid,
} from '../../test/sim-test-support';

const DB = process.env.TEST_DB === 'postgres' ? 'PostgreSQL' : 'PGlite';
const MINUTE = 60_000;

let t: TestApp;
let admin: string;
const onelink = new FakeOnelink();
const nce = new FakeOneNce();

beforeAll(async () => {
  t = await buildTestApp({ config: { simSyncTickMs: 0 } });
  admin = await t.adminToken();
  await onelink.start();
  await nce.start();
  // The fakes judge token expiry and "this month" on the same clock as the server.
  onelink.now = t.clock.now;
  nce.now = t.clock.now;
});
afterAll(async () => {
  await onelink.stop();
  await nce.stop();
  await t.close();
});
beforeEach(() => {
  onelink.reset();
  nce.reset();
  onelink.now = t.clock.now;
  nce.now = t.clock.now;
});

async function onelinkProvider(extra: Record<string, unknown> = {}): Promise<SimProviderItem> {
  return api<SimProviderItem>(t, admin, 'POST', '/api/card-admin/providers', {
    name: `OneLink ${newIccid().slice(-5)}`,
    kind: 'onelink',
    operator: 'china_mobile',
    sync_interval_min: 0,
    config: { appid: onelink.appid, password: onelink.password, base_url: onelink.baseUrl },
    ...extra,
  });
}

const sync = (id: number) => api<SimSyncRun>(t, admin, 'POST', `/api/card-admin/providers/${id}/sync`);
const runs = (providerId: number) =>
  api<SimSyncRun[]>(t, admin, 'GET', `/api/card-admin/sync-runs?provider_id=${providerId}`);
const chinaMonth = () => {
  const d = new Date(t.clock.now().getTime() + 8 * 3_600_000);
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
};

describe(`providers (${DB})`, () => {
  it('keeps credentials encrypted and masked; a masked or empty secret keeps the stored one', async () => {
    const p = await onelinkProvider();
    expect(p.config).toEqual({ appid: onelink.appid, password: '******', base_url: onelink.baseUrl });
    const [row] = await t.app.deps.db.select().from(simProviders).where(eq(simProviders.id, p.id));
    expect(JSON.stringify(row)).not.toContain(onelink.password);
    expect(row!.secrets).toMatch(/^v1:/);
    const body = {
      name: 'renamed',
      kind: 'onelink',
      operator: 'china_mobile',
      config: { appid: onelink.appid, password: '******', base_url: onelink.baseUrl },
    };
    await api(t, admin, 'PUT', `/api/card-admin/providers/${p.id}`, body);
    const test = await api<SimProviderTestResult>(t, admin, 'POST', `/api/card-admin/providers/${p.id}/test`);
    expect(test).toMatchObject({ ok: true, error_kind: null });
    await api(t, admin, 'PUT', `/api/card-admin/providers/${p.id}`, {
      ...body,
      config: { ...body.config, password: '' },
    });
    expect(
      (await api<SimProviderTestResult>(t, admin, 'POST', `/api/card-admin/providers/${p.id}/test`)).ok,
    ).toBe(true);
    // A wrong password is reported, not thrown.
    await api(t, admin, 'PUT', `/api/card-admin/providers/${p.id}`, {
      ...body,
      config: { ...body.config, password: 'wrong' },
    });
    const bad = await api<SimProviderTestResult>(t, admin, 'POST', `/api/card-admin/providers/${p.id}/test`);
    expect(bad).toMatchObject({ ok: false, error_kind: 'auth' });
  });

  it('requires the secret of a new provider, checks config per kind, and is admin only', async () => {
    const post = (payload: object, token = admin) =>
      t.inject({ method: 'POST', url: '/api/card-admin/providers', token, payload });
    const base = { name: 'x', operator: 'other', kind: '1nce' };
    expect(expectCode(await post({ ...base, config: { username: 'u' } }), 10113)).toEqual([
      { field: 'config.password', message: 'required' },
    ]);
    expectCode(await post({ ...base, config: { password: 'p' } }), 10113);
    expectCode(
      await post({ ...base, kind: 'onelink', config: { appid: 'has space', password: 'p' } }),
      10113,
    );
    expectCode(await post({ ...base, kind: 'sprint', config: {} }), 10113);
    const u = await t.createUser();
    expectCode(await post({ ...base, config: { username: 'u', password: 'p' } }, u.token), 10108);
    expectCode(await t.inject({ method: 'GET', url: '/api/card-admin/providers', token: u.token }), 10108);
  });

  it('refuses to delete a provider that has cards (60009)', async () => {
    const p = await manualProvider(t, admin);
    const iccid = await createCard(t, admin, { provider_id: p });
    const details = expectCode(
      await t.inject({ method: 'DELETE', url: `/api/card-admin/providers/${p}`, token: admin }),
      60009,
    );
    expect(details).toEqual({ card_count: 1 });
    await api(t, admin, 'DELETE', `/api/card-admin/cards/${iccid}`);
    await api(t, admin, 'DELETE', `/api/card-admin/providers/${p}`);
  });
});

describe(`sync job (${DB})`, () => {
  it("pulls status, identity and usage of the provider's cards; unknown cards are marked", async () => {
    const p = await onelinkProvider();
    const pkg = await createPackage(t, admin, { flow_mb: 100 });
    const known = newIccid();
    const unknown = newIccid();
    onelink.addCard({ iccid: known, cardStatus: '2', monthKb: { [chinaMonth()]: 30 * 1024 } });
    await createCard(t, admin, { provider_id: p.id, iccid: known, package_id: pkg });
    await createCard(t, admin, { provider_id: p.id, iccid: unknown });
    const queued = await sync(p.id);
    expect(queued).toMatchObject({ status: 'queued', trigger: 'manual', provider_id: p.id });
    // Asking again while it is queued answers the same run.
    expect((await sync(p.id)).id).toBe(queued.id);
    expect(await runDueSyncs(t.app.deps)).toBe(1);
    const [run] = await runs(p.id);
    expect(run).toMatchObject({
      id: queued.id,
      status: 'succeeded',
      attempts: 1,
      cards_total: 2,
      cards_updated: 1,
      cards_not_found: 1,
      error: null,
    });
    const card = await api<SimCardDetail>(t, admin, 'GET', `/api/cards/${known}`);
    expect(card).toMatchObject({
      status: 'active',
      raw_status: '2',
      month_used: 30,
      remaining_traffic: 70,
      phone: `1440${known.slice(-9)}`,
    });
    expect(card.activation_time).not.toBeNull();
    expect(card.last_synced_at).not.toBeNull();
    const missing = await api<SimCardDetail>(t, admin, 'GET', `/api/cards/${unknown}`);
    expect(missing.sync_error).toBe('not known to the operator');
    const listed = await api<SimProviderItem>(t, admin, 'GET', `/api/card-admin/providers/${p.id}`);
    expect(listed).toMatchObject({ card_count: 2, last_sync_status: 'succeeded' });
  });

  it('flags cards whose data ran out', async () => {
    const p = await onelinkProvider();
    const pkg = await createPackage(t, admin, { flow_mb: 10 });
    const iccid = newIccid();
    onelink.addCard({ iccid, monthKb: { [chinaMonth()]: 11 * 1024 } });
    await createCard(t, admin, { provider_id: p.id, iccid, package_id: pkg });
    await sync(p.id);
    await runDueSyncs(t.app.deps);
    expect((await runs(p.id))[0]).toMatchObject({ status: 'succeeded', cards_flagged: 1 });
    expect((await api<SimCardDetail>(t, admin, 'GET', `/api/cards/${iccid}`)).flags).toContain('exhausted');
  });

  it('retries after an operator failure with backoff, then succeeds', async () => {
    const p = await onelinkProvider();
    const iccid = newIccid();
    onelink.addCard({ iccid, cardStatus: '4' });
    await createCard(t, admin, { provider_id: p.id, iccid });
    onelink.http.inject(FAULTS.serverError(502), { times: 1 });
    await sync(p.id);
    await runDueSyncs(t.app.deps);
    const [waiting] = await runs(p.id);
    expect(waiting).toMatchObject({ status: 'retry_wait', attempts: 1 });
    expect(waiting?.error).toMatch(/ProviderError/);
    expect(Date.parse(waiting!.next_attempt_at!) - t.clock.now().getTime()).toBeGreaterThanOrEqual(
      SYNC_BACKOFF_MS - 1000,
    );
    // Not due yet: nothing runs; a second request answers the waiting run.
    expect(await runDueSyncs(t.app.deps)).toBe(0);
    expect((await sync(p.id)).id).toBe(waiting!.id);
    t.clock.advance(SYNC_BACKOFF_MS + 1000);
    expect(await runDueSyncs(t.app.deps)).toBe(1);
    const [done] = await runs(p.id);
    expect(done).toMatchObject({ id: waiting!.id, status: 'succeeded', attempts: 2, error: null });
    expect((await api<SimCardDetail>(t, admin, 'GET', `/api/cards/${iccid}`)).status).toBe('suspended');
  });

  it('waits as long as a rate limit asks (1NCE, with the quota it reports)', async () => {
    const p = await api<SimProviderItem>(t, admin, 'POST', '/api/card-admin/providers', {
      name: '1NCE',
      kind: '1nce',
      operator: 'other',
      sync_interval_min: 0,
      config: { username: nce.username, password: nce.password, base_url: nce.baseUrl },
    });
    const iccid = '8988228066602306711';
    nce.addSim({ iccid, quota: { volume: 400, total_volume: 500, expiry_date: '2034-03-09T00:00:00.000Z' } });
    await createCard(t, admin, { provider_id: p.id, iccid, operator: 'other' });
    nce.http.inject(FAULTS.rateLimited(300), { path: `/v1/sims/${iccid}`, times: 1 });
    await sync(p.id);
    await runDueSyncs(t.app.deps);
    const [waiting] = await runs(p.id);
    expect(waiting?.status).toBe('retry_wait');
    expect(waiting?.error).toMatch(/RateLimitError/);
    expect(Date.parse(waiting!.next_attempt_at!) - t.clock.now().getTime()).toBeGreaterThanOrEqual(
      300_000 - 1000,
    );
    t.clock.advance(SYNC_BACKOFF_MS + 1000);
    expect(await runDueSyncs(t.app.deps)).toBe(0);
    t.clock.advance(300_000);
    expect(await runDueSyncs(t.app.deps)).toBe(1);
    expect((await runs(p.id))[0]?.status).toBe('succeeded');
    const card = await api<SimCardDetail>(t, admin, 'GET', `/api/cards/${iccid}`);
    expect(card).toMatchObject({
      status: 'active',
      raw_status: 'Enabled',
      month_total: 500,
      remaining_traffic: 400,
    });
    expect(card.operator_quota).toEqual({ total: 500, used: 100, remaining: 400 });
    expect(card.operator_expiry).toBe('2034-03-09T00:00:00.000Z');
  });

  it('fails at once when the operator refuses the credentials, and after the last attempt otherwise', async () => {
    const p = await onelinkProvider();
    await createCard(t, admin, { provider_id: p.id });
    onelink.refuseAllTokens = true;
    await sync(p.id);
    await runDueSyncs(t.app.deps);
    expect((await runs(p.id))[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect((await runs(p.id))[0]?.error).toMatch(/AuthError/);
    onelink.refuseAllTokens = false;

    onelink.http.inject(FAULTS.malformed(), { times: 100 });
    await sync(p.id);
    for (let i = 0; i < SYNC_MAX_ATTEMPTS; i++) {
      await runDueSyncs(t.app.deps);
      t.clock.advance(2 * 3_600_000);
    }
    const [last] = await runs(p.id);
    expect(last).toMatchObject({ status: 'failed', attempts: SYNC_MAX_ATTEMPTS });
    expect(last?.error).toMatch(/malformed/);
    expect(await runDueSyncs(t.app.deps)).toBe(0);
  });

  it('schedules each remote provider once per interval, safely from several instances', async () => {
    const p = await onelinkProvider({ sync_interval_min: 60 });
    await manualProvider(t, admin); // manual providers are never scheduled
    const before = (await runs(p.id)).length;
    const [a, b] = await Promise.all([scheduleDueSyncs(t.app.deps), scheduleDueSyncs(t.app.deps)]);
    expect(a + b).toBeGreaterThanOrEqual(1);
    expect((await runs(p.id)).length).toBe(before + 1);
    await runDueSyncs(t.app.deps);
    await scheduleDueSyncs(t.app.deps);
    expect((await runs(p.id)).length).toBe(before + 1);
    t.clock.advance(61 * MINUTE);
    await scheduleDueSyncs(t.app.deps);
    const list = await runs(p.id);
    expect(list.length).toBe(before + 2);
    expect(list[0]).toMatchObject({ trigger: 'schedule', status: 'queued' });
    await runDueSyncs(t.app.deps);
  });

  it("one run is claimed by one worker; a crashed worker's run is taken over after its lease", async () => {
    const p = await onelinkProvider();
    await sync(p.id);
    const [first, second] = await Promise.all([claimRun(t.app.deps), claimRun(t.app.deps)]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    // The claimer "crashed": nobody else may take the run until the lease ends.
    expect(await claimRun(t.app.deps)).toBeUndefined();
    t.clock.advance(SYNC_LEASE_MS + 1000);
    const again = await claimRun(t.app.deps);
    expect(again?.id).toBe((first ?? second)!.id);
    expect(again?.attempts).toBe(2);
    await t.app.deps.db.execute(sql`update sim_sync_runs set status = 'failed' where id = ${again!.id}`);
  });

  it('a worker killed mid-run: another takes the run over after its lease; the outcome is written once', async () => {
    const p = await onelinkProvider();
    const iccids = [newIccid(), newIccid(), newIccid()];
    for (const iccid of iccids) {
      onelink.addCard({ iccid, cardStatus: '2', monthKb: { [chinaMonth()]: 2048 } });
      await createCard(t, admin, { provider_id: p.id, iccid });
    }
    const queued = await sync(p.id);
    // The first worker's first call to the operator hangs (answered late, with nonsense).
    onelink.http.inject(FAULTS.slow(1500), { times: 1 });
    const asked = onelink.http.requests.length;
    const worker = () =>
      new JobWorker(simSyncKind(t.app.deps), { log: t.app.log, concurrency: 1, pollMs: 0 });
    const first = worker();
    const firstRun = first.runOnce();
    await eventually(async () => (onelink.http.requests.length > asked ? true : undefined));
    first.abandon();
    const takeover = onelink.http.requests.length;
    t.clock.advance(SYNC_LEASE_MS + 1000);
    await worker().runOnce();
    const done = (await runs(p.id)).find((r) => r.id === queued.id);
    expect(done).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      cards_total: 3,
      cards_updated: 3,
      error: null,
    });
    // Each card's usage was asked for once, by the worker that took over.
    const usageCalls = onelink.http.requests
      .slice(takeover)
      .filter((r) => r.path.endsWith('/query/sim-data-usage'));
    expect(usageCalls).toHaveLength(3);
    // The dead worker's call finally fails; it writes nothing over the outcome.
    await firstRun;
    expect((await runs(p.id)).find((r) => r.id === queued.id)).toEqual(done);
  });

  it('activates and suspends cards through the operator; its refusal is 60008', async () => {
    const p = await onelinkProvider();
    const iccid = newIccid();
    onelink.addCard({ iccid, cardStatus: '2' });
    await createCard(t, admin, { provider_id: p.id, iccid });
    const status = (action: string) =>
      t.inject({
        method: 'POST',
        url: `/api/card-admin/cards/${iccid}/status`,
        token: admin,
        payload: { action },
      });
    const suspended = await status('suspend');
    expect(suspended.statusCode).toBe(200);
    expect((suspended.json() as { data: SimCardDetail }).data.status).toBe('suspended');
    expect(onelink.statusChanges).toEqual([{ iccid, operType: '0' }]);
    // OneLink refuses a second change of the same card within 30 minutes.
    const refused = expectCode(await status('activate'), 60008) as { error_kind: string };
    expect(refused.error_kind).toBe('provider');
    expect((await api<SimCardDetail>(t, admin, 'GET', `/api/cards/${iccid}`)).status).toBe('suspended');
    t.clock.advance(31 * MINUTE);
    expect(((await status('activate')).json() as { data: SimCardDetail }).data.status).toBe('active');
    expect(onelink.cards.get(iccid)?.cardStatus).toBe('2');
    // Manual cards change their recorded status only.
    const manual = await manualProvider(t, admin);
    const m = await createCard(t, admin, { provider_id: manual });
    const res = await t.inject({
      method: 'POST',
      url: `/api/card-admin/cards/${m}/status`,
      token: admin,
      payload: { action: 'suspend' },
    });
    expect((res.json() as { data: SimCardDetail }).data.status).toBe('suspended');
    expectCode(
      await t.inject({
        method: 'POST',
        url: `/api/card-admin/cards/${m}/status`,
        token: admin,
        payload: { action: 'burn' },
      }),
      10113,
    );
  });

  it('is admin only', async () => {
    const u = await t.createUser();
    const p = await manualProvider(t, admin);
    expectCode(
      await t.inject({ method: 'POST', url: `/api/card-admin/providers/${p}/sync`, token: u.token }),
      10108,
    );
    expectCode(await t.inject({ method: 'GET', url: '/api/card-admin/sync-runs', token: u.token }), 10108);
    expectCode(
      await t.inject({ method: 'POST', url: '/api/card-admin/providers/999999/sync', token: admin }),
      10107,
    );
  });
});
