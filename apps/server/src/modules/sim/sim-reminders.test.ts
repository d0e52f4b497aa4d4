import { eq, like, or } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../config';
import { createDevices } from '../../test/gateway-test-kit';
import type { Deps } from '../../lib/deps';
import { buildTestApp, type TestApp } from '../../test/app';
import { jobs } from '../../jobs/jobs.table';
import { queuedJobKind } from '../../jobs/queue';
import { JobWorker } from '../../jobs/worker';
import { devices } from '../devices/devices.table';
import {
  type FakeAliyun,
  type FakeWechat,
  notifyTestConfig,
  startFakeAliyun,
  startFakeWechat,
  startSmtp,
  type TestSmtp,
} from '../../test/notify-test-kit';
import { notifyDeliveries } from '../notify/notify.service';
import { createNotifyWorker } from '../notify/notify.worker';
import { users } from '../users/users.table';
import { dayOf, monthOf } from './sim-common';
import { simCards } from './sim-cards.table';
import {
  beijingTime,
  expiryThreshold,
  REMINDERS_KIND,
  runSimReminders,
  simRemindersJob,
  startSimReminderWorker,
  wakeSimReminders,
} from './sim-reminders.service';
import { runDueSyncs } from './sim-sync.service';
import {
  api,
  createCard,
  createPackage,
  expectCode,
  manualProvider,
  topup,
} from '../../test/sim-test-support';

const DB = process.env.TEST_DB === 'postgres' ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;
const SETTINGS = { days: [7, 3, 1], dataPercent: 10 };
const ALIYUN = { accessKeyId: 'LTAIsimreminders', accessKeySecret: 'aliyun-secret-for-sim' };
const WECHAT = { appid: 'wxsimreminder0001', secret: 'wechat-sim-secret', templateId: 'TPL_sim_0001' };
const SMTP_USER = 'notice@cellhub.test';
const SMTP_PASS = 'smtp-Secret-2';

let t: TestApp;
/** A second server instance on the same database (PostgreSQL only; PGlite is one process's database). */
let second: TestApp | undefined;
let admin: string;
let provider: number;
let smtp: TestSmtp;
let aliyun: FakeAliyun;
let wechat: FakeWechat;
let seq = 0;

beforeAll(async () => {
  smtp = await startSmtp({ user: SMTP_USER, pass: SMTP_PASS });
  aliyun = await startFakeAliyun({ ...ALIYUN, now: () => t.clock.now() });
  wechat = await startFakeWechat({ ...WECHAT, now: () => t.clock.now() });
  const config = {
    simSyncTickMs: 0,
    simRemind: { ...SETTINGS, intervalMs: 0 },
    notify: notifyTestConfig({ aliyunSmsUrl: aliyun.url }),
    wechat: { oauthUrl: 'https://open.example.com', apiUrl: wechat.url },
    smsCodeLogFile: undefined,
  };
  t = await buildTestApp({ config });
  if (DB === 'PostgreSQL') {
    second = await buildTestApp({ config: { ...config, databaseUrl: t.app.deps.config.databaseUrl } });
  }
  admin = await t.adminToken();
  provider = await manualProvider(t, admin);
  await put('email', {
    host: '127.0.0.1',
    port: smtp.port,
    account: SMTP_USER,
    nickname: 'Cellhub',
    ssl: false,
    password: SMTP_PASS,
  });
  await put('sms', {
    provider: 'aliyun',
    access_key_id: ALIYUN.accessKeyId,
    access_key_secret: ALIYUN.accessKeySecret,
    sign_name: 'Cellhub',
    template_sim_expiry: 'SMS_300001',
    template_sim_data_low: 'SMS_300002',
  });
  await put('wechat', { appid: WECHAT.appid, secret: WECHAT.secret, template_id: WECHAT.templateId });
});
afterAll(async () => {
  await second?.close();
  await t?.close();
  await Promise.all([smtp?.close(), aliyun?.close(), wechat?.close()]);
});

async function put(channel: 'sms' | 'email' | 'wechat', payload: Record<string, unknown>) {
  const res = await t.inject({
    method: 'PUT',
    url: `/api/system/settings/${channel}`,
    token: admin,
    payload,
  });
  if (res.statusCode !== 200) throw new Error(`settings ${channel}: ${res.body}`);
}

/** A user with the given channels (set on the row, as profile edits, phone change and WeChat binding would). */
async function user(channels: { email?: boolean; phone?: boolean; wechat?: boolean } = {}) {
  const u = await t.createUser();
  seq += 1;
  const tag = `${Date.now() % 1_000_000}${seq}`.padStart(8, '0').slice(-8);
  const email = channels.email ? `sim${tag}@example.com` : '';
  const phone = channels.phone ? `139${tag}` : null;
  const openid = channels.wechat ? `oSim${tag}openid` : null;
  await t.app.deps.db.update(users).set({ email, phone, wechatOpenid: openid }).where(eq(users.id, u.uid));
  return { ...u, email, phone, openid };
}

const cardId = async (iccid: string): Promise<number> => {
  const [c] = await t.app.deps.db.select({ id: simCards.id }).from(simCards).where(eq(simCards.iccid, iccid));
  return c!.id;
};

/** The card's reminder messages, oldest first. */
async function messagesOf(iccid: string) {
  const id = await cardId(iccid);
  return t.app.deps.db
    .select()
    .from(notifyDeliveries)
    .where(
      or(
        like(notifyDeliveries.idempotencyKey, `sim-expiry:${id}:%`),
        like(notifyDeliveries.idempotencyKey, `sim-data:${id}:%`),
      ),
    )
    .orderBy(notifyDeliveries.id);
}

/** Moves the test clock (sign-in tokens expire on it too: the admin signs in again). */
async function advance(ms: number) {
  t.clock.advance(ms);
  admin = await t.adminToken();
}

/** Sets a card's expiry as an admin does for a manual card. */
const setExpiry = (iccid: string, at: Date) =>
  api(t, admin, 'PUT', `/api/card-admin/cards/${iccid}`, { expiry: at.toISOString() });

/** Two server instances: a second app on the same PostgreSQL database, or a second set of deps on PGlite. */
function instances(): [Deps, Deps] {
  // Both on the first app's clock, which the tests move.
  return [t.app.deps, { ...(second ?? t).app.deps, now: t.clock.now }];
}

describe(`SIM expiry reminders (${DB})`, () => {
  it('the threshold is the smallest of the configured days the expiry is within', () => {
    const now = new Date('2026-03-01T00:00:00Z');
    const at = (days: number) => new Date(now.getTime() + days * DAY);
    expect(expiryThreshold(at(8), now, [7, 3, 1])).toBeUndefined();
    expect(expiryThreshold(at(7), now, [7, 3, 1])).toBe(7);
    expect(expiryThreshold(at(3.5), now, [7, 3, 1])).toBe(7);
    expect(expiryThreshold(at(2.5), now, [1, 7, 3])).toBe(3);
    expect(expiryThreshold(at(0.2), now, [7, 3, 1])).toBe(1);
    expect(expiryThreshold(at(-0.1), now, [7, 3, 1])).toBeUndefined();
    expect(beijingTime(new Date('2026-03-01T16:30:00Z'))).toBe('2026-03-02 00:30');
  });

  it('a card expiring in 3 days gets exactly one reminder, run twice and on two instances at once', async () => {
    const a = await user({ email: true, phone: true, wechat: true });
    const pkg = await createPackage(t, admin, { validity_unit: 'day', validity_count: 30 });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: a.uid, package_id: pkg });
    await api(t, admin, 'PUT', `/api/card-admin/cards/${iccid}`, { phone: '1440012345678' });
    const expires = new Date(t.clock.now().getTime() + 3 * DAY - 60_000);
    await setExpiry(iccid, expires);

    const [one, two] = instances();
    const runs = [await runSimReminders(one, SETTINGS), await runSimReminders(one, SETTINGS)];
    runs.push(...(await Promise.all([runSimReminders(one, SETTINGS), runSimReminders(two, SETTINGS)])));
    runs.push(await runSimReminders(two, SETTINGS));

    const id = await cardId(iccid);
    const key = `sim-expiry:${id}:${dayOf(expires)}:3`;
    const rows = await messagesOf(iccid);
    expect(rows.map((r) => r.idempotencyKey).sort()).toEqual(
      [`${key}:email`, `${key}:sms`, `${key}:wechat`].sort(),
    );
    expect(rows.every((r) => r.uid === a.uid && r.template === 'sim_expiry')).toBe(true);
    expect(rows.map((r) => [r.channel, r.recipient]).sort()).toEqual(
      [
        ['email', a.email],
        ['sms', a.phone],
        ['wechat', a.openid],
      ].sort(),
    );
    // Counted once over all five passes, whichever instance won.
    expect(runs.filter((r) => r.expiry > 0)).toHaveLength(1);

    const email = rows.find((r) => r.channel === 'email')!;
    expect(email.subject).toContain(iccid);
    expect(email.body).toContain(`ICCID ${iccid}，号码 1440012345678`);
    expect(email.body).toContain(`${beijingTime(expires)}（北京时间）`);
    expect(email.body).toContain('剩余不足 3 天');
    expect(email.body).toContain(`${t.app.deps.config.publicUrl}/card/package`);
    expect(email.params).toEqual({
      iccid,
      phone: '1440012345678',
      expiry: beijingTime(expires),
      days: '3',
    });

    // Delivered through each channel: a real SMTP server, Aliyun SMS with the reminder's template, WeChat.
    const worker = createNotifyWorker(t.app.deps);
    const mailsBefore = smtp.received.length;
    while ((await worker.runOnce()) > 0);
    const mails = await smtp.waitFor(mailsBefore + 1);
    const mail = mails.find((m) => m.envelopeTo.includes(a.email))!;
    expect(mail.mail.subject).toBe(email.subject);
    expect(mail.mail.text).toContain('/card/package');
    const sms = aliyun.sent.find((s) => s.params.PhoneNumbers === a.phone)!;
    expect(sms.params.TemplateCode).toBe('SMS_300001');
    expect(sms.templateParam).toEqual(email.params);
    const push = wechat.sent.find((s) => s.body.touser === a.openid)!;
    expect(push.body.data.content!.value).toBe(email.body);
    expect(push.body.data.iccid!.value).toBe(iccid);
    const after = await messagesOf(iccid);
    expect(after.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
  });

  it('each threshold once as the expiry comes nearer; nothing for a card far from expiry', async () => {
    const a = await user({ email: true });
    const near = await createCard(t, admin, { provider_id: provider, uid: a.uid });
    const far = await createCard(t, admin, { provider_id: provider, uid: a.uid });
    const expires = new Date(t.clock.now().getTime() + 10 * DAY);
    await setExpiry(near, expires);
    await setExpiry(far, new Date(t.clock.now().getTime() + 40 * DAY));

    await runSimReminders(t.app.deps, SETTINGS);
    expect(await messagesOf(near)).toHaveLength(0);
    const id = await cardId(near);
    const seen: string[] = [];
    for (const [days, threshold] of [
      [3.5, 7],
      [0.5, 7],
      [3, 3],
      [2.5, 1],
    ] as const) {
      await advance(days * DAY);
      await runSimReminders(t.app.deps, SETTINGS);
      await runSimReminders(t.app.deps, SETTINGS);
      seen.push(`sim-expiry:${id}:${dayOf(expires)}:${threshold}:email`);
      expect((await messagesOf(near)).map((r) => r.idempotencyKey)).toEqual([...new Set(seen)]);
    }
    // Past the expiry: no more reminders.
    await advance(2 * DAY);
    await runSimReminders(t.app.deps, SETTINGS);
    expect(await messagesOf(near)).toHaveLength(3);
    expect(await messagesOf(far)).toHaveLength(0);
  });

  it('a renewal moves the expiry: no more reminders for the old date, the new one gets its own later', async () => {
    const b = await user({ email: true });
    const pkg = await createPackage(t, admin, { validity_unit: 'day', validity_count: 10, price_fen: 500 });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: b.uid, package_id: pkg });
    const oldExpiry = new Date(t.clock.now().getTime() + 3 * DAY - 60_000);
    await setExpiry(iccid, oldExpiry);
    await runSimReminders(t.app.deps, SETTINGS);
    const id = await cardId(iccid);
    expect((await messagesOf(iccid)).map((r) => r.idempotencyKey)).toEqual([
      `sim-expiry:${id}:${dayOf(oldExpiry)}:3:email`,
    ]);

    // The user renews the same package: 10 more days on the current expiry.
    await topup(t, admin, b.uid, 1000);
    await api(t, b.token, 'POST', '/api/orders', { package_id: pkg, iccids: [iccid], pay: true });
    const card = await api<{ expiry: string }>(t, b.token, 'GET', `/api/cards/${iccid}`);
    const newExpiry = new Date(card.expiry);
    expect(newExpiry.getTime()).toBe(oldExpiry.getTime() + 10 * DAY);

    await runSimReminders(t.app.deps, SETTINGS);
    await advance(2.5 * DAY); // the old date's 1-day threshold would be due now
    await runSimReminders(t.app.deps, SETTINGS);
    await advance(1 * DAY); // past the old date
    await runSimReminders(t.app.deps, SETTINGS);
    expect(await messagesOf(iccid)).toHaveLength(1);

    await advance(3 * DAY); // 6.5 days before the new date
    await runSimReminders(t.app.deps, SETTINGS);
    await runSimReminders(t.app.deps, SETTINGS);
    const keys = (await messagesOf(iccid)).map((r) => r.idempotencyKey);
    expect(keys).toEqual([
      `sim-expiry:${id}:${dayOf(oldExpiry)}:3:email`,
      `sim-expiry:${id}:${dayOf(newExpiry)}:7:email`,
    ]);
  });
});

describe(`SIM low-data reminders (${DB})`, () => {
  const BOUNDARY = '----simreminders';
  async function importUsage(rows: [string, string, number][]) {
    const csv = `iccid,date,used_mb\n${rows.map((r) => r.join(',')).join('\n')}\n`;
    const head =
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="usage.csv"\r\n` +
      'Content-Type: text/csv\r\n\r\n';
    const res = await t.inject({
      method: 'POST',
      url: '/api/card-admin/usage/import',
      token: admin,
      payload: Buffer.concat([Buffer.from(head), Buffer.from(csv), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]),
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    if (res.statusCode !== 200) throw new Error(res.body);
  }

  it('remaining traffic under 10 % of the package flow: one reminder for the month', async () => {
    const c = await user({ email: true, phone: true });
    const pkg = await createPackage(t, admin, { flow_mb: 100, validity_unit: 'month', validity_count: 3 });
    const low = await createCard(t, admin, { provider_id: provider, uid: c.uid, package_id: pkg });
    const fine = await createCard(t, admin, { provider_id: provider, uid: c.uid, package_id: pkg });
    const today = dayOf(t.clock.now());
    await importUsage([
      [low, today, 95.5],
      [fine, today, 85],
    ]);

    const first = await runSimReminders(t.app.deps, SETTINGS);
    expect(first.dataLow).toBeGreaterThanOrEqual(1);
    await runSimReminders(t.app.deps, SETTINGS);
    const id = await cardId(low);
    const key = `sim-data:${id}:${monthOf(t.clock.now())}`;
    const rows = await messagesOf(low);
    expect(rows.map((r) => r.idempotencyKey).sort()).toEqual([`${key}:email`, `${key}:sms`]);
    const email = rows.find((r) => r.channel === 'email')!;
    expect(email.template).toBe('sim_data_low');
    expect(email.recipient).toBe(c.email);
    expect(email.body).toContain(`ICCID ${low}`);
    expect(email.body).toContain('本月剩余流量 4.5 MB');
    expect(email.body).toContain('套餐流量 100 MB 的 10%');
    expect(email.body).toContain('/card/package');
    expect(email.params).toEqual({ iccid: low, phone: '-', remaining: '4.5 MB', percent: '10' });
    expect(await messagesOf(fine)).toHaveLength(0);

    // More use the same month: still the one reminder.
    await importUsage([[low, today, 99]]);
    await runSimReminders(t.app.deps, SETTINGS);
    expect(await messagesOf(low)).toHaveLength(2);
  });

  it('a pool gets a new reminder once a renewal has added flow and it runs low again', async () => {
    const c = await user({ email: true });
    const pkg = await createPackage(t, admin, {
      type: 'pool',
      flow_mb: 100,
      validity_unit: 'month',
      validity_count: 6,
      price_fen: 100,
    });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: c.uid, package_id: pkg });
    const today = dayOf(t.clock.now());
    await importUsage([[iccid, today, 92]]);
    await runSimReminders(t.app.deps, SETTINGS);
    expect(await messagesOf(iccid)).toHaveLength(1);

    await topup(t, admin, c.uid, 1000);
    await api(t, c.token, 'POST', '/api/orders', { package_id: pkg, iccids: [iccid], pay: true });
    await runSimReminders(t.app.deps, SETTINGS); // 108 MB of 200 left: not low
    expect(await messagesOf(iccid)).toHaveLength(1);
    await importUsage([[iccid, today, 185]]);
    await runSimReminders(t.app.deps, SETTINGS);
    const rows = await messagesOf(iccid);
    expect(rows).toHaveLength(2);
    expect(rows[1]!.body).toContain('剩余流量 15 MB');
    expect(rows[0]!.idempotencyKey).not.toBe(rows[1]!.idempotencyKey);
  });
});

describe(`SIM reminder recipients (${DB})`, () => {
  it('users without any channel get none and nothing fails; stock cards and disabled users neither', async () => {
    const silent = await user();
    const disabled = await user({ email: true });
    await t.app.deps.db.update(users).set({ disabled: true }).where(eq(users.id, disabled.uid));
    const soon = new Date(t.clock.now().getTime() + DAY);
    const cards = [
      await createCard(t, admin, { provider_id: provider, uid: silent.uid }),
      await createCard(t, admin, { provider_id: provider, uid: disabled.uid }),
      await createCard(t, admin, { provider_id: provider }),
    ];
    for (const iccid of cards) await setExpiry(iccid, soon);
    const run = await runSimReminders(t.app.deps, SETTINGS);
    expect(run.noChannel).toBeGreaterThanOrEqual(2);
    for (const iccid of cards) expect(await messagesOf(iccid)).toHaveLength(0);
  });

  it("goes to the card's user only: the assigned user, else the owner of the device holding it", async () => {
    const owner = await user({ email: true });
    const assignee = await user({ email: true });
    const other = await user({ email: true, phone: true });
    const inDevice = await createCard(t, admin, { provider_id: provider });
    const assigned = await createCard(t, admin, { provider_id: provider, uid: assignee.uid });
    const [d1, d2] = await createDevices(t, owner.token, [
      `REMIND${seq}A${Date.now() % 1e5}`,
      `REMIND${seq}B`,
    ]);
    await t.app.deps.db.update(devices).set({ iccid: inDevice }).where(eq(devices.sn, d1!.sn));
    await t.app.deps.db.update(devices).set({ iccid: assigned }).where(eq(devices.sn, d2!.sn));
    // The other user's own card is far from expiry: they must hear nothing.
    await createCard(t, admin, { provider_id: provider, uid: other.uid });
    const soon = new Date(t.clock.now().getTime() + 2 * DAY);
    await setExpiry(inDevice, soon);
    await setExpiry(assigned, soon);

    await runSimReminders(t.app.deps, SETTINGS);
    const viaDevice = await messagesOf(inDevice);
    expect(viaDevice.map((r) => [r.uid, r.channel, r.recipient])).toEqual([
      [owner.uid, 'email', owner.email],
    ]);
    const toAssignee = await messagesOf(assigned);
    expect(toAssignee.map((r) => [r.uid, r.channel, r.recipient])).toEqual([
      [assignee.uid, 'email', assignee.email],
    ]);
    const forOther = await t.app.deps.db
      .select()
      .from(notifyDeliveries)
      .where(eq(notifyDeliveries.uid, other.uid));
    expect(forOther).toHaveLength(0);
    // Each user sees their card, and not the other's (the reminder names a card its reader may open).
    await api(t, owner.token, 'GET', `/api/cards/${inDevice}`);
    expectCode(await t.inject({ method: 'GET', url: `/api/cards/${inDevice}`, token: other.token }), 60003);
  });
});

describe(`SIM reminder worker (${DB})`, () => {
  it('runs after a sync run without waiting for its interval', async () => {
    const u = await user({ email: true });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    await setExpiry(iccid, new Date(t.clock.now().getTime() + 5 * DAY));
    const worker = startSimReminderWorker(t.app.deps, 3_600_000);
    try {
      await api(t, admin, 'POST', `/api/card-admin/providers/${provider}/sync`);
      expect(await runDueSyncs(t.app.deps)).toBe(1);
      await vi.waitFor(async () => expect(await messagesOf(iccid)).toHaveLength(1), { timeout: 5000 });
    } finally {
      await worker.stop();
    }
  });

  it('a pass killed midway is taken over after its lease; each reminder is queued once', async () => {
    const u = await user({ email: true });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    await setExpiry(iccid, new Date(t.clock.now().getTime() + 5 * DAY));
    // The first worker's pass reads the due reminders, then hangs before its write commits.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let blocked = false;
    const db = t.app.deps.db;
    const hangingDb = new Proxy(db, {
      get(target, prop) {
        if (prop === 'transaction') {
          return async (...args: Parameters<typeof db.transaction>) => {
            blocked = true;
            await held;
            return target.transaction(...args);
          };
        }
        const value: unknown = Reflect.get(target, prop);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const worker = (deps: Deps) =>
      new JobWorker(queuedJobKind(t.app.deps, simRemindersJob(deps, 3_600_000)), {
        log: t.app.log,
        concurrency: 1,
        pollMs: 0,
      });
    const first = worker({ ...t.app.deps, db: hangingDb });
    await first.runOnce(); // creates the recurring row, due in an hour
    await wakeSimReminders(t.app.deps);
    const firstRun = first.runOnce();
    await vi.waitFor(() => expect(blocked).toBe(true), { timeout: 5000 });
    first.abandon();
    expect(await messagesOf(iccid)).toHaveLength(0);

    const second = worker(t.app.deps);
    t.clock.advance(10 * 60_000 + 1000);
    expect(await second.runOnce()).toBe(1);
    expect(await messagesOf(iccid)).toHaveLength(1);
    // The dead pass comes back to life and writes: its reminder is already queued, so nothing is added.
    release();
    await firstRun;
    expect(await messagesOf(iccid)).toHaveLength(1);
    const [job] = await t.app.deps.db.select().from(jobs).where(eq(jobs.kind, REMINDERS_KIND));
    expect(job).toMatchObject({ status: 'queued', attempts: 0, lastError: null });
  });

  it('reads SIM_REMIND_DAYS, SIM_REMIND_DATA_PERCENT and SIM_REMIND_INTERVAL_MS', () => {
    const env = { SECRET_KEY: 'k'.repeat(40) };
    expect(loadConfig(env).simRemind).toEqual({ days: [7, 3, 1], dataPercent: 10, intervalMs: 600_000 });
    expect(
      loadConfig({
        ...env,
        SIM_REMIND_DAYS: '1, 14,3,3',
        SIM_REMIND_DATA_PERCENT: '5.5',
        SIM_REMIND_INTERVAL_MS: '0',
      }).simRemind,
    ).toEqual({ days: [14, 3, 1], dataPercent: 5.5, intervalMs: 0 });
    expect(loadConfig({ ...env, SIM_REMIND_DAYS: '' }).simRemind.days).toEqual([]);
    expect(() => loadConfig({ ...env, SIM_REMIND_DAYS: 'seven' })).toThrow(/SIM_REMIND_DAYS/);
    expect(() => loadConfig({ ...env, SIM_REMIND_DATA_PERCENT: '150' })).toThrow(/SIM_REMIND_DATA_PERCENT/);
  });
});
