import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { buildTestApp, type TestApp } from '../../test/app';
import { eventually } from '../../test/gateway-test-kit';
import type { DeviceRef } from '../devices/device-ref';
import { users } from '../users/users.table';
import {
  alertDevices,
  createTrigger,
  data,
  deliveriesOf,
  deviceRef,
  goOffline,
  goOnline,
  historyOf,
  report,
  verifiedPhoneContact,
} from '../../test/alerts-test-kit';
import { alertStates } from './alerts.table';

const SEC = 1000;
const dir = mkdtempSync(path.join(tmpdir(), 'cellhub-alerts-'));
const codeLog = path.join(dir, 'sms-codes.log');
// No delivery worker: the tests look at the queued rows themselves.
const config = { smsCodeLogFile: codeLog, notify: { ...loadConfig({}).notify, pollMs: 0 } };

let t: TestApp;
let a: { uid: number; token: string };
let phoneSeq = 0;
const newPhone = () => `1380000${String(1000 + phoneSeq++).slice(-4)}`;

beforeAll(async () => {
  t = await buildTestApp({ config });
  a = await t.createUser();
  t.clock.freeze();
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

async function setup(sn: string, trigger: Record<string, unknown>) {
  const [dev] = await alertDevices(t, a.token, [sn]);
  const contact = await verifiedPhoneContact(t, a.token, codeLog, newPhone());
  const tr = await createTrigger(t, a.token, {
    name: `trigger ${sn}`,
    sn,
    key: 'temp',
    methods: ['sms'],
    contact_ids: [contact.id],
    push_content: '{device} {property} is {value} at {time}',
    recovery_content: '{device} {property} back to {value}',
    ...trigger,
  });
  return { dev: dev!, contact, trigger: tr };
}

describe('raise once, kept active, recover once', () => {
  it('type 4 greater than B: one history row, one raise and one recovery message', async () => {
    const { dev, contact, trigger } = await setup('AL-RAISE-1', { type: 4, b: 30, silence_s: 0 });
    await report(t, dev, { temp: 25 });
    await report(t, dev, { temp: 30 });
    expect(await historyOf(t, a.token, trigger.id)).toHaveLength(0);

    await report(t, dev, { temp: 30.5 });
    await report(t, dev, { temp: 35 });
    await report(t, dev, { temp: 31 });
    let rows = await historyOf(t, a.token, trigger.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: 'active',
      raised_value: 30.5,
      recovered_at: null,
      push_count: 1,
      // The property in both of the product's languages, as the trigger list gives it.
      property_name: '温度',
      property_name_us: 'Temperature',
    });
    const item = data<{ state: string }>(
      await t.inject({ method: 'GET', url: `/api/alert/triggers/${trigger.id}`, token: a.token }),
    );
    expect(item.state).toBe('active');

    await report(t, dev, { temp: 30 });
    await report(t, dev, { temp: 12 });
    rows = await historyOf(t, a.token, trigger.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: 'recovered',
      raised_value: 30.5,
      recovered_value: 30,
      push_count: 2,
    });

    const sent = await deliveriesOf(t, rows[0]!.id);
    expect(sent.map((d) => d.idempotencyKey)).toEqual([
      `alert:${rows[0]!.id}:raise:t:sms:${contact.id}`,
      `alert:${rows[0]!.id}:recover:t:sms:${contact.id}`,
    ]);
    expect(sent[0]).toMatchObject({ channel: 'sms', recipient: contact.phone, template: 'alert_raise' });
    expect(sent[0]!.body).toMatch(/^AL-RAISE-1 温度 is 30\.5 at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(sent[0]!.params).toMatchObject({ device: 'AL-RAISE-1', property: '温度', value: '30.5' });
    expect(sent[1]).toMatchObject({ template: 'alert_recover', body: 'AL-RAISE-1 温度 back to 30' });
  });

  it('type 3 less than A and 7 equal to A raise at their edges through the ingest path', async () => {
    const low = await setup('AL-LOW-1', { type: 3, a: 0 });
    await report(t, low.dev, { temp: 0 });
    expect(await historyOf(t, a.token, low.trigger.id)).toHaveLength(0);
    await report(t, low.dev, { temp: -0.1 });
    expect(await historyOf(t, a.token, low.trigger.id)).toMatchObject([
      { status: 'active', raised_value: -0.1 },
    ]);

    const eq7 = await setup('AL-EQ-1', { type: 7, a: 1, key: 'door' });
    await report(t, eq7.dev, { door: false });
    expect(await historyOf(t, a.token, eq7.trigger.id)).toHaveLength(0);
    await report(t, eq7.dev, { door: true });
    await report(t, eq7.dev, { door: false });
    expect(await historyOf(t, a.token, eq7.trigger.id)).toMatchObject([
      { status: 'recovered', raised_value: true, recovered_value: false },
    ]);
  });

  it('types 5 between and 6 outside: equal to A or B is inside', async () => {
    const between = await setup('AL-BETWEEN-1', { type: 5, a: 10, b: 20 });
    await report(t, between.dev, { temp: 9.99 });
    await report(t, between.dev, { temp: 10 });
    await report(t, between.dev, { temp: 20 });
    await report(t, between.dev, { temp: 20.01 });
    expect(await historyOf(t, a.token, between.trigger.id)).toMatchObject([
      { status: 'recovered', raised_value: 10, recovered_value: 20.01 },
    ]);

    const outside = await setup('AL-OUTSIDE-1', { type: 6, a: 10, b: 20 });
    await report(t, outside.dev, { temp: 10 });
    await report(t, outside.dev, { temp: 20 });
    expect(await historyOf(t, a.token, outside.trigger.id)).toHaveLength(0);
    await report(t, outside.dev, { temp: 20.01 });
    await report(t, outside.dev, { temp: 9.99 });
    await report(t, outside.dev, { temp: 15 });
    expect(await historyOf(t, a.token, outside.trigger.id)).toMatchObject([
      { status: 'recovered', raised_value: 20.01, recovered_value: 15 },
    ]);
  });

  it('a text value counts when it is a number; other text neither raises nor recovers', async () => {
    const { dev, trigger } = await setup('AL-TEXT-1', { type: 4, b: 1, key: 'mode' });
    await report(t, dev, { mode: 'high' });
    expect(await historyOf(t, a.token, trigger.id)).toHaveLength(0);
    await report(t, dev, { mode: '5' });
    await report(t, dev, { mode: 'broken' });
    expect(await historyOf(t, a.token, trigger.id)).toMatchObject([{ status: 'active', raised_value: '5' }]);
    await report(t, dev, { mode: '0.5' });
    expect(await historyOf(t, a.token, trigger.id)).toMatchObject([
      { status: 'recovered', recovered_value: '0.5' },
    ]);
  });
});

describe('silence time', () => {
  it('push once: a raise within the silence time of the last push is recorded but not pushed', async () => {
    const { dev, trigger } = await setup('AL-SILENCE-1', { type: 4, b: 30, silence_s: 300 });
    await report(t, dev, { temp: 31 });
    t.clock.advance(10 * SEC);
    await report(t, dev, { temp: 20 });
    t.clock.advance(10 * SEC);
    await report(t, dev, { temp: 32 });
    t.clock.advance(10 * SEC);
    await report(t, dev, { temp: 20 });
    let rows = await historyOf(t, a.token, trigger.id);
    expect(rows.map((r) => [r.status, r.raised_value, r.push_count])).toEqual([
      ['recovered', 31, 2],
      ['recovered', 32, 0],
    ]);
    // The silenced alert's recovery is not pushed either: nobody heard of its raise.
    expect(await deliveriesOf(t, rows[1]!.id)).toHaveLength(0);

    t.clock.advance(300 * SEC);
    await report(t, dev, { temp: 33 });
    rows = await historyOf(t, a.token, trigger.id);
    expect(rows).toHaveLength(3);
    expect(rows[2]).toMatchObject({ status: 'active', raised_value: 33, push_count: 1 });
    // Still active, silence passed again: push once means no reminder.
    t.clock.advance(600 * SEC);
    await report(t, dev, { temp: 34 });
    expect((await historyOf(t, a.token, trigger.id))[2]!.push_count).toBe(1);
  });

  it('push per silence time: reminders while active, each silence_s after the last push', async () => {
    const { dev, contact, trigger } = await setup('AL-REPEAT-1', {
      type: 4,
      b: 30,
      silence_s: 300,
      push_mode: 'per_silence',
    });
    await report(t, dev, { temp: 31 });
    t.clock.advance(299 * SEC);
    await report(t, dev, { temp: 31 });
    t.clock.advance(1 * SEC);
    await report(t, dev, { temp: 32 });
    t.clock.advance(100 * SEC);
    await report(t, dev, { temp: 33 });
    t.clock.advance(200 * SEC);
    await report(t, dev, { temp: 34 });
    t.clock.advance(10 * SEC);
    await report(t, dev, { temp: 10 });
    const [row] = await historyOf(t, a.token, trigger.id);
    const keys = (await deliveriesOf(t, row!.id)).map((d) => [d.idempotencyKey, d.params.value]);
    expect(keys).toEqual([
      [`alert:${row!.id}:raise:t:sms:${contact.id}`, '31'],
      [`alert:${row!.id}:raise:2:t:sms:${contact.id}`, '32'],
      [`alert:${row!.id}:raise:3:t:sms:${contact.id}`, '34'],
      [`alert:${row!.id}:recover:t:sms:${contact.id}`, '10'],
    ]);
    expect(row).toMatchObject({ status: 'recovered', push_count: 4 });
  });
});

describe('online/offline triggers', () => {
  it('type 2 raises when the device goes offline and recovers when it is back; type 1 the other way', async () => {
    const [dev] = await alertDevices(t, a.token, ['AL-PRESENCE-1']);
    await goOnline(t, dev!);
    const contact = await verifiedPhoneContact(t, a.token, codeLog, newPhone());
    const offline = await createTrigger(t, a.token, {
      name: 'offline',
      sn: dev!.sn,
      type: 2,
      methods: ['sms'],
      contact_ids: [contact.id],
    });
    const online = await createTrigger(t, a.token, { name: 'online', sn: dev!.sn, type: 1 });
    await t.app.alerts.idle();
    expect(await historyOf(t, a.token, offline.id)).toHaveLength(0);
    // Created while the device is online: type 1 is active at once.
    expect(await historyOf(t, a.token, online.id)).toMatchObject([{ status: 'active', raised_value: 1 }]);
    await goOffline(t, dev!);
    await goOffline(t, dev!);
    expect(await historyOf(t, a.token, offline.id)).toMatchObject([{ status: 'active', raised_value: 0 }]);
    expect(await historyOf(t, a.token, online.id)).toMatchObject([
      { status: 'recovered', recovered_value: 0 },
    ]);
    await goOnline(t, dev!);
    await goOnline(t, dev!);
    const [row] = await historyOf(t, a.token, offline.id);
    expect(row).toMatchObject({ status: 'recovered', raised_value: 0, recovered_value: 1, push_count: 2 });
    const sent = await deliveriesOf(t, row!.id);
    expect(sent.map((d) => [d.template, d.params.property, d.params.value])).toEqual([
      ['alert_raise', 'online', 'offline'],
      ['alert_recover', 'online', 'online'],
    ]);
    expect((await historyOf(t, a.token, online.id)).map((r) => r.status)).toEqual(['recovered', 'active']);
  });

  it('a trigger created for a device already offline raises at once', async () => {
    const [dev] = await alertDevices(t, a.token, ['AL-PRESENCE-2']);
    const tr = await createTrigger(t, a.token, { name: 'offline now', sn: dev!.sn, type: 2 });
    await t.app.alerts.idle();
    expect(await historyOf(t, a.token, tr.id)).toMatchObject([{ status: 'active', raised_value: 0 }]);
  });
});

describe('triggers change', () => {
  it('judges a new trigger against the latest stored value', async () => {
    const [dev] = await alertDevices(t, a.token, ['AL-LATEST-1']);
    await report(t, dev!, { temp: 50 });
    const tr = await createTrigger(t, a.token, { name: 'late', sn: dev!.sn, key: 'temp', type: 4, b: 40 });
    await t.app.alerts.idle();
    expect(await historyOf(t, a.token, tr.id)).toMatchObject([{ status: 'active', raised_value: 50 }]);
  });

  it('a changed condition or a disable ends the active alert without a push; delete keeps the history', async () => {
    const { dev, trigger } = await setup('AL-EDIT-1', { type: 4, b: 30 });
    await report(t, dev, { temp: 35 });
    const body = { name: 'edited', sn: dev.sn, key: 'temp', type: 4, b: 40 };
    data(
      await t.inject({
        method: 'PUT',
        url: `/api/alert/triggers/${trigger.id}`,
        token: a.token,
        payload: body,
      }),
    );
    await t.app.alerts.idle();
    let rows = await historyOf(t, a.token, trigger.id);
    expect(rows).toMatchObject([{ status: 'recovered', recovered_value: null, push_count: 1 }]);
    await report(t, dev, { temp: 41 });
    rows = await historyOf(t, a.token, trigger.id);
    expect(rows.map((r) => r.status)).toEqual(['recovered', 'active']);

    data(
      await t.inject({
        method: 'PUT',
        url: `/api/alert/triggers/${trigger.id}/enable`,
        token: a.token,
        payload: { enable: 0 },
      }),
    );
    await t.app.alerts.idle();
    await report(t, dev, { temp: 20 });
    await report(t, dev, { temp: 45 });
    rows = await historyOf(t, a.token, trigger.id);
    expect(rows.map((r) => r.status)).toEqual(['recovered', 'recovered']);
    expect(rows[1]!.recovered_value).toBeNull();

    data(await t.inject({ method: 'DELETE', url: `/api/alert/triggers/${trigger.id}`, token: a.token }));
    await t.app.alerts.idle();
    const all = data<{ trigger_id: number | null; trigger_name: string; sn: string }[]>(
      await t.inject({ method: 'GET', url: '/api/alert/history', token: a.token, query: { sn: dev.sn } }),
    );
    expect(all).toHaveLength(2);
    // Each alert keeps the trigger's name of when it was raised.
    expect(all.map((r) => [r.trigger_id, r.trigger_name])).toEqual([
      [null, 'edited'],
      [null, 'trigger AL-EDIT-1'],
    ]);
    await report(t, dev, { temp: 99 });
    expect(
      data<unknown[]>(
        await t.inject({ method: 'GET', url: '/api/alert/history', token: a.token, query: { sn: dev.sn } }),
      ),
    ).toHaveLength(2);
  });
});

describe('recipients', () => {
  it('alert configurations add their contacts; a contact in both hears once; unverified contacts hear nothing', async () => {
    const { dev, contact, trigger } = await setup('AL-CONFIG-1', { type: 4, b: 30 });
    const other = await verifiedPhoneContact(t, a.token, codeLog, newPhone(), 'night shift');
    const unverified = data<{ id: number }>(
      await t.inject({
        method: 'POST',
        url: '/api/alert/contacts',
        token: a.token,
        payload: { name: 'never verified', phone: newPhone() },
      }),
    );
    const cfg = data<{ id: number }>(
      await t.inject({
        method: 'POST',
        url: '/api/alert/configs',
        token: a.token,
        payload: {
          name: 'night',
          trigger_ids: [trigger.id],
          contact_ids: [contact.id, other.id, unverified.id],
          methods: ['sms'],
          interval_s: 600,
        },
      }),
    );
    await report(t, dev, { temp: 31 });
    const [row] = await historyOf(t, a.token, trigger.id);
    const sent = await deliveriesOf(t, row!.id);
    expect(sent.map((d) => [d.idempotencyKey, d.recipient])).toEqual([
      [`alert:${row!.id}:raise:t:sms:${contact.id}`, contact.phone],
      [`alert:${row!.id}:raise:c${cfg.id}:sms:${other.id}`, other.phone],
    ]);
    expect(row!.push_count).toBe(2);
  });

  it('WeChat goes to the owner once they bound WeChat', async () => {
    await t.app.deps.db.update(users).set({ wechatOpenid: 'o-alerts-owner' }).where(eq(users.id, a.uid));
    const [dev] = await alertDevices(t, a.token, ['AL-WECHAT-1']);
    const tr = await createTrigger(t, a.token, {
      name: 'wechat',
      sn: dev!.sn,
      key: 'temp',
      type: 4,
      b: 1,
      methods: ['wechat'],
    });
    await report(t, dev!, { temp: 2 });
    const [row] = await historyOf(t, a.token, tr.id);
    const sent = await deliveriesOf(t, row!.id);
    expect(sent.map((d) => [d.channel, d.recipient, d.idempotencyKey])).toEqual([
      ['wechat', 'o-alerts-owner', `alert:${row!.id}:raise:t:wechat:owner`],
    ]);
  });
});

describe('ownership', () => {
  it('a device given to another user stops feeding its former owner’s triggers', async () => {
    const { dev, trigger } = await setup('AL-OWNER-1', { type: 4, b: 30 });
    const b = await t.createUser();
    const admin = await t.adminToken();
    data(
      await t.inject({ method: 'PUT', url: `/api/devices/${dev.sn}`, token: admin, payload: { uid: b.uid } }),
    );
    const moved: DeviceRef = await deviceRef(t, dev.sn);
    expect(moved.uid).toBe(b.uid);
    await report(t, moved, { temp: 99 });
    expect(await historyOf(t, a.token, trigger.id)).toHaveLength(0);
    // B sees nothing of A's.
    const bHistory = data<unknown[]>(
      await t.inject({ method: 'GET', url: '/api/alert/history', token: b.token }),
    );
    expect(bHistory).toHaveLength(0);
  });
});

describe('ownership of the rule', () => {
  it("an admin's trigger watches a device of another user, and keeps watching it after a move", async () => {
    const [dev] = await alertDevices(t, a.token, ['AL-ADMIN-1']);
    const admin = await t.adminToken();
    const tr = await createTrigger(t, admin, {
      name: 'fleet watch',
      sn: dev!.sn,
      key: 'temp',
      type: 4,
      b: 30,
    });
    await report(t, dev!, { temp: 31 });
    expect(await historyOf(t, admin, tr.id)).toMatchObject([{ status: 'active', raised_value: 31 }]);
    const b = await t.createUser();
    data(
      await t.inject({
        method: 'PUT',
        url: `/api/devices/${dev!.sn}`,
        token: admin,
        payload: { uid: b.uid },
      }),
    );
    await report(t, await deviceRef(t, dev!.sn), { temp: 12 });
    expect(await historyOf(t, admin, tr.id)).toMatchObject([{ status: 'recovered', recovered_value: 12 }]);
  });
});

describe('delivery', () => {
  it('a raised alert is sent at once: the commit wakes the delivery worker, its poll is not needed', async () => {
    // The worker polls every 10 minutes: only the wake-up after the alert's commit can explain a prompt send.
    const app = await buildTestApp({ config: { ...config, notify: { ...config.notify, pollMs: 600_000 } } });
    try {
      const user = await app.createUser();
      const [dev] = await alertDevices(app, user.token, ['AL-WAKE-1']);
      const contact = await verifiedPhoneContact(app, user.token, codeLog, newPhone());
      const tr = await createTrigger(app, user.token, {
        name: 'wake',
        sn: dev!.sn,
        key: 'temp',
        type: 4,
        b: 30,
        methods: ['sms'],
        contact_ids: [contact.id],
      });
      await report(app, dev!, { temp: 31 });
      const [raised] = await historyOf(app, user.token, tr.id);
      const sent = await eventually(async () => {
        const rows = await deliveriesOf(app, raised!.id);
        return rows[0]?.status === 'sent' ? rows : undefined;
      }, 20_000);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ channel: 'sms', recipient: contact.phone, attempts: 1 });
    } finally {
      await app.close();
    }
  });
});

describe('restart', () => {
  it('keeps the state: an active alert is neither raised again nor forgotten, and recovers once', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cellhub-alerts-restart-'));
    const log = path.join(dataDir, 'codes.log');
    // A file-backed embedded database survives the restart (buildTestApp's own is in memory).
    const cfg = { ...config, smsCodeLogFile: log, dataDir, databaseUrl: undefined };
    try {
      let app = await buildTestApp({ config: cfg });
      const user = await app.createUser('restarter');
      const [dev] = await alertDevices(app, user.token, ['AL-RESTART-1']);
      const contact = await verifiedPhoneContact(app, user.token, log, '13900001111');
      const tr = await createTrigger(app, user.token, {
        name: 'restart',
        sn: dev!.sn,
        key: 'temp',
        type: 4,
        b: 30,
        methods: ['sms'],
        contact_ids: [contact.id],
      });
      await report(app, dev!, { temp: 31 });
      expect(await historyOf(app, user.token, tr.id)).toMatchObject([{ status: 'active' }]);
      await app.close();

      app = await buildTestApp({ config: cfg });
      const token = (await app.login('restarter', 'User1234')).token;
      const states = await app.app.deps.db.select().from(alertStates).where(eq(alertStates.triggerId, tr.id));
      expect(states).toMatchObject([{ status: 'active' }]);
      await report(app, dev!, { temp: 35 });
      await report(app, dev!, { temp: 36 });
      let rows = await historyOf(app, token, tr.id);
      expect(rows).toMatchObject([{ status: 'active', push_count: 1 }]);
      await report(app, dev!, { temp: 20 });
      await report(app, dev!, { temp: 21 });
      rows = await historyOf(app, token, tr.id);
      expect(rows).toMatchObject([{ status: 'recovered', recovered_value: 20, push_count: 2 }]);
      expect((await deliveriesOf(app, rows[0]!.id)).map((d) => d.template)).toEqual([
        'alert_raise',
        'alert_recover',
      ]);
      await app.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Two file-backed PGlite databases are created and migrated from scratch (the template dump is for in-memory
    // ones); on a loaded 2-core machine that alone takes 12-30 s.
  }, 120_000);
});
