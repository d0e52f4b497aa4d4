import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { allowTestTarget } from '../../test/outbound';
import { auditLogs } from '../audit/audit.table';
import { notifyDeliveries } from '../notify/notify.service';
import { createNotifyWorker } from '../notify/notify.worker';
import {
  alertDevices,
  createTrigger,
  data,
  historyOf,
  lastLoggedCode,
  report,
  startMailbox,
  verifiedPhoneContact,
} from '../../test/alerts-test-kit';
import { alertContactCodes } from './alerts.table';

const dir = mkdtempSync(path.join(tmpdir(), 'cellhub-alerts-api-'));
const codeLog = path.join(dir, 'sms-codes.log');
const config = { smsCodeLogFile: codeLog, notify: { ...loadConfig({}).notify, pollMs: 0 } };

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };
let mailbox: Awaited<ReturnType<typeof startMailbox>>;

beforeAll(async () => {
  t = await buildTestApp({ config });
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
  mailbox = await startMailbox();
  data(
    await t.inject({
      method: 'PUT',
      url: '/api/system/settings/email',
      token: admin,
      payload: {
        host: '127.0.0.1',
        port: mailbox.port,
        account: 'alerts@cellhub.test',
        nickname: 'Cellhub',
        ssl: false,
        password: 'secret',
      },
    }),
  );
  t.clock.freeze();
});
afterAll(async () => {
  await t.close();
  await mailbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = (url: string, token: string, payload: Record<string, unknown> | undefined) =>
  t.inject({ method: 'POST', url, token, payload });
const put = (url: string, token: string, payload: Record<string, unknown>) =>
  t.inject({ method: 'PUT', url, token, payload });
const get = (url: string, token: string, query?: Record<string, string>) =>
  t.inject({ method: 'GET', url, token, query });

function expectCode(
  res: { statusCode: number; body: string; json(): unknown },
  code: number,
  field?: string,
) {
  expect(res.statusCode, res.body).toBe(code === 10104 ? 429 : 400);
  const err = errorOf(res as never);
  expect(err.code).toBe(code);
  if (field) expect(JSON.stringify(err.details)).toContain(`"field":"${field}"`);
}

describe('triggers: the seed codes', () => {
  it('answers 11000-11005 and 11010 for what the type needs, 10113 for a missing key', async () => {
    await alertDevices(t, a.token, ['AT-CODES-1']);
    const base = { name: 'codes', sn: 'AT-CODES-1', key: 'temp' };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...base, source: 'scene', scene_id: 1, type: 4, b: 1 }, 11000, 'scene_id'],
      [{ ...base, sn: null, type: 4, b: 1 }, 11001, 'sn'],
      [{ ...base, type: 4 }, 11002, 'b'],
      [{ ...base, type: 3 }, 11003, 'a'],
      [{ ...base, type: 7 }, 11003, 'a'],
      [{ ...base, type: 5 }, 11004, 'a'],
      [{ ...base, type: 6, a: 5 }, 11002, 'b'],
      [{ ...base, type: 5, a: 5, b: 5 }, 11005, 'b'],
      [{ ...base, type: 6, a: 10, b: 2 }, 11005, 'b'],
      [{ ...base, type: 4, b: 1, push_mode: 'per_silence', silence_s: 0 }, 11010, 'silence_s'],
      [{ ...base, key: null, type: 4, b: 1 }, 10113, 'key'],
    ];
    for (const [payload, code, field] of cases) {
      expectCode(await post('/api/alert/triggers', a.token, payload), code, field);
    }
    expectCode(
      await post('/api/alert/triggers', a.token, { ...base, key: 'nope', type: 4, b: 1 }),
      70003,
      'key',
    );
    const ok = data<{
      a: number | null;
      b: number | null;
      key: string | null;
      property_name: string;
      property_name_us: string;
    }>(await post('/api/alert/triggers', a.token, { ...base, type: 5, a: 5, b: 5.5 }));
    expect(ok).toMatchObject({
      a: 5,
      b: 5.5,
      key: 'temp',
      property_name: '温度',
      property_name_us: 'Temperature',
    });
    // Online triggers keep no key and no values.
    const presence = data<{ key: string | null; a: number | null }>(
      await post('/api/alert/triggers', a.token, { ...base, type: 2, a: 3 }),
    );
    expect(presence).toMatchObject({ key: null, a: null });
  });

  it('lists, filters, edits and deletes with audit rows', async () => {
    await alertDevices(t, a.token, ['AT-LIST-1']);
    const created = data<{ id: number; enable: number; state: string; contacts: unknown[] }>(
      await post('/api/alert/triggers', a.token, {
        name: 'Cold room',
        sn: 'AT-LIST-1',
        key: 'temp',
        type: 3,
        a: -18,
        push_content: '{device}: {value}',
        silence_s: 600,
        push_mode: 'per_silence',
        methods: ['sms', 'email'],
      }),
    );
    expect(created).toMatchObject({ enable: 1, state: 'normal', contacts: [] });
    const list = await get('/api/alert/triggers', a.token, { keyword: 'cold', type: '3' });
    expect((list.json() as { total: number }).total).toBe(1);
    expect(data<{ id: number }[]>(list)[0]!.id).toBe(created.id);
    expect(
      (data(await get('/api/alert/triggers', a.token, { keyword: 'AT-LIST' })) as unknown[]).length,
    ).toBe(1);

    const off = data<{ enable: number }>(
      await put(`/api/alert/triggers/${created.id}/enable`, a.token, { enable: 0 }),
    );
    expect(off.enable).toBe(0);
    expect(
      (data(await get('/api/alert/triggers', a.token, { enable: '1', keyword: 'cold' })) as unknown[]).length,
    ).toBe(0);
    const edited = data<{ name: string; a: number; silence_s: number }>(
      await put(`/api/alert/triggers/${created.id}`, a.token, {
        name: 'Cold room 2',
        sn: 'AT-LIST-1',
        key: 'temp',
        type: 3,
        a: -20,
        silence_s: 60,
      }),
    );
    expect(edited).toMatchObject({ name: 'Cold room 2', a: -20, silence_s: 60 });
    data(await t.inject({ method: 'DELETE', url: `/api/alert/triggers/${created.id}`, token: a.token }));
    expectCode(await get(`/api/alert/triggers/${created.id}`, a.token), 10107);
    const audit = await t.app.deps.db
      .select({ action: auditLogs.action })
      .from(auditLogs)
      .where(eq(auditLogs.target, `alert_trigger:${created.id}`));
    expect(audit.map((r) => r.action).sort()).toEqual([
      'alert_trigger_create',
      'alert_trigger_delete',
      'alert_trigger_update',
      'alert_trigger_update',
    ]);
  });
});

describe('ownership', () => {
  it('B cannot attach A’s devices, contacts or triggers, nor see or change A’s things; admins see all', async () => {
    await alertDevices(t, a.token, ['AT-OWN-A']);
    await alertDevices(t, b.token, ['AT-OWN-B']);
    const contactA = data<{ id: number }>(
      await post('/api/alert/contacts', a.token, { name: 'A person', email: 'a@example.com' }),
    );
    const triggerA = await createTrigger(t, a.token, {
      name: 'A',
      sn: 'AT-OWN-A',
      key: 'temp',
      type: 4,
      b: 1,
    });

    expectCode(
      await post('/api/alert/triggers', b.token, { name: 'x', sn: 'AT-OWN-A', key: 'temp', type: 4, b: 1 }),
      10117,
    );
    expectCode(
      await post('/api/alert/triggers', b.token, {
        name: 'x',
        sn: 'AT-OWN-B',
        key: 'temp',
        type: 4,
        b: 1,
        contact_ids: [contactA.id],
      }),
      10107,
      'contact_ids',
    );
    expectCode(
      await post('/api/alert/configs', b.token, {
        name: 'x',
        trigger_ids: [triggerA.id],
        contact_ids: [],
        methods: ['wechat'],
        interval_s: 60,
      }),
      10107,
      'trigger_ids',
    );
    for (const url of [`/api/alert/triggers/${triggerA.id}`, `/api/alert/contacts/${contactA.id}`]) {
      expectCode(await get(url, b.token), 10107);
      expectCode(await t.inject({ method: 'DELETE', url, token: b.token }), 10107);
    }
    expectCode(await put(`/api/alert/triggers/${triggerA.id}/enable`, b.token, { enable: 0 }), 10107);
    expectCode(await post(`/api/alert/contacts/${contactA.id}/code`, b.token, { channel: 'email' }), 10107);
    expect(data<{ id: number }[]>(await get('/api/alert/triggers', b.token)).map((r) => r.id)).not.toContain(
      triggerA.id,
    );
    expect(data<{ id: number }[]>(await get('/api/alert/contacts', b.token)).map((r) => r.id)).not.toContain(
      contactA.id,
    );
    // An admin editing A's trigger may only use A's devices and contacts.
    expect(data<{ id: number }>(await get(`/api/alert/triggers/${triggerA.id}`, admin)).id).toBe(triggerA.id);
    expectCode(
      await put(`/api/alert/triggers/${triggerA.id}`, admin, {
        name: 'A',
        sn: 'AT-OWN-B',
        key: 'temp',
        type: 4,
        b: 1,
      }),
      10117,
    );
  });

  it('B cannot see or acknowledge A’s alerts; acknowledging records who and when', async () => {
    const [dev] = await alertDevices(t, a.token, ['AT-ACK-1']);
    const tr = await createTrigger(t, a.token, { name: 'ack', sn: 'AT-ACK-1', key: 'temp', type: 4, b: 1 });
    await report(t, dev!, { temp: 5 });
    const [alert] = await historyOf(t, a.token, tr.id);
    expect(alert).toMatchObject({ status: 'active', acknowledged_at: null });
    expect(data<unknown[]>(await get('/api/alert/history', b.token, { trigger_id: String(tr.id) }))).toEqual(
      [],
    );
    expectCode(await post(`/api/alert/history/${alert!.id}/ack`, b.token, undefined), 10107);
    expect(
      data<{ acknowledged: number }>(await post('/api/alert/history/ack', b.token, { ids: [alert!.id] })),
    ).toEqual({
      acknowledged: 0,
    });
    const acked = data<{ acknowledged_at: string; acknowledged_by: string; status: string }>(
      await post(`/api/alert/history/${alert!.id}/ack`, a.token, undefined),
    );
    expect(acked.acknowledged_by).toMatch(/^user/);
    expect(acked.status).toBe('active');
    expect(
      data<unknown[]>(await get('/api/alert/history', a.token, { acknowledged: '0', sn: 'AT-ACK-1' })),
    ).toEqual([]);
    expect(
      data<{ acknowledged: number }>(await post('/api/alert/history/ack', a.token, { ids: [alert!.id] })),
    ).toEqual({
      acknowledged: 0,
    });
    expect(data<unknown[]>(await get('/api/alert/history', admin, { sn: 'AT-ACK-1' }))).toHaveLength(1);
  });
});

describe('alert configurations', () => {
  it('answers 11007, 11010, 11011 and keeps the links', async () => {
    await alertDevices(t, a.token, ['AT-CFG-1']);
    const tr = await createTrigger(t, a.token, { name: 'cfg', sn: 'AT-CFG-1', key: 'temp', type: 4, b: 1 });
    const c = data<{ id: number }>(
      await post('/api/alert/contacts', a.token, { name: 'C', phone: '13800138000' }),
    );
    const body = {
      name: 'shift',
      trigger_ids: [tr.id],
      contact_ids: [c.id],
      methods: ['sms'],
      interval_s: 900,
    };
    expectCode(await post('/api/alert/configs', a.token, { ...body, trigger_ids: [] }), 11007, 'trigger_ids');
    expectCode(await post('/api/alert/configs', a.token, { ...body, interval_s: null }), 11010, 'interval_s');
    expectCode(await post('/api/alert/configs', a.token, { ...body, contact_ids: [] }), 11011, 'contact_ids');
    expectCode(await post('/api/alert/configs', a.token, { ...body, methods: [] }), 10113, 'methods');
    const created = data<{ id: number; triggers: { name: string }[]; contacts: { name: string }[] }>(
      await post('/api/alert/configs', a.token, body),
    );
    expect(created.triggers).toEqual([{ id: tr.id, name: 'cfg' }]);
    expect(created.contacts).toEqual([{ id: c.id, name: 'C' }]);
    expect(
      data<{ id: number }[]>(await get('/api/alert/configs', a.token, { trigger_id: String(tr.id) })),
    ).toHaveLength(1);
    expect(data<{ used_by: number }>(await get(`/api/alert/contacts/${c.id}`, a.token)).used_by).toBe(1);
    const edited = data<{ interval_s: number; push_mode: string }>(
      await put(`/api/alert/configs/${created.id}`, a.token, {
        ...body,
        interval_s: 60,
        push_mode: 'per_silence',
      }),
    );
    expect(edited).toMatchObject({ interval_s: 60, push_mode: 'per_silence' });
    // Deleting the contact removes it from the configuration.
    data(await t.inject({ method: 'DELETE', url: `/api/alert/contacts/${c.id}`, token: a.token }));
    expect(
      data<{ contact_ids: number[] }>(await get(`/api/alert/configs/${created.id}`, a.token)).contact_ids,
    ).toEqual([]);
    data(await t.inject({ method: 'DELETE', url: `/api/alert/configs/${created.id}`, token: a.token }));
    expectCode(await get(`/api/alert/configs/${created.id}`, a.token), 10107);
  });
});

describe('contacts: verification codes', () => {
  it('phone: 20115 sent, 20119 empty, 20121 wrong, then verified; a new phone must verify again', async () => {
    const phone = '13912345678';
    const c = data<{ id: number; phone_verified: boolean }>(
      await post('/api/alert/contacts', a.token, { name: 'Phone', phone: `+86 ${phone}`.replace(' ', '') }),
    );
    expect(c.phone_verified).toBe(false);
    const sent = data<{ code: number; to: string; expires_in: number }>(
      await post(`/api/alert/contacts/${c.id}/code`, a.token, { channel: 'sms' }),
    );
    expect(sent).toEqual({ code: 20115, channel: 'sms', to: phone, expires_in: 300 });
    const code = lastLoggedCode(codeLog, phone)!;
    expect(code).toMatch(/^\d{6}$/);
    // Stored only as a keyed hash; the delivery row does not hold it either.
    const stored = await t.app.deps.db
      .select()
      .from(alertContactCodes)
      .where(eq(alertContactCodes.contactId, c.id));
    expect(JSON.stringify(stored)).not.toContain(code);
    const rows = await t.app.deps.db
      .select()
      .from(notifyDeliveries)
      .where(
        and(
          eq(notifyDeliveries.contactId, c.id),
          like(notifyDeliveries.idempotencyKey, 'alert-contact-code:%'),
        ),
      );
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(code);

    expectCode(
      await post(`/api/alert/contacts/${c.id}/verify`, a.token, { channel: 'sms', code: '' }),
      20119,
    );
    const wrong = code === '000000' ? '111111' : '000000';
    expectCode(
      await post(`/api/alert/contacts/${c.id}/verify`, a.token, { channel: 'sms', code: wrong }),
      20121,
    );
    // A second code within the minute is refused.
    expectCode(await post(`/api/alert/contacts/${c.id}/code`, a.token, { channel: 'sms' }), 10104);
    const ok = data<{ phone_verified: boolean; email_verified: boolean }>(
      await post(`/api/alert/contacts/${c.id}/verify`, a.token, { channel: 'sms', code }),
    );
    expect(ok).toMatchObject({ phone_verified: true, email_verified: false });
    // Used once.
    expectCode(await post(`/api/alert/contacts/${c.id}/verify`, a.token, { channel: 'sms', code }), 20121);

    const same = data<{ phone_verified: boolean }>(
      await put(`/api/alert/contacts/${c.id}`, a.token, { name: 'Renamed', phone }),
    );
    expect(same.phone_verified).toBe(true);
    const moved = data<{ phone_verified: boolean }>(
      await put(`/api/alert/contacts/${c.id}`, a.token, { name: 'Renamed', phone: '13912345679' }),
    );
    expect(moved.phone_verified).toBe(false);
  });

  it('a code expires after 5 minutes and allows 5 attempts', async () => {
    const phone = '13912340000';
    const c = data<{ id: number }>(await post('/api/alert/contacts', a.token, { name: 'Expiry', phone }));
    data(await post(`/api/alert/contacts/${c.id}/code`, a.token, { channel: 'sms' }));
    const code = lastLoggedCode(codeLog, phone)!;
    t.clock.advance(301_000);
    expectCode(await post(`/api/alert/contacts/${c.id}/verify`, a.token, { channel: 'sms', code }), 20121);
    data(await post(`/api/alert/contacts/${c.id}/code`, a.token, { channel: 'sms' }));
    const fresh = lastLoggedCode(codeLog, phone)!;
    const wrong = fresh === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      expectCode(
        await post(`/api/alert/contacts/${c.id}/verify`, a.token, { channel: 'sms', code: wrong }),
        20121,
      );
    }
    expectCode(
      await post(`/api/alert/contacts/${c.id}/verify`, a.token, { channel: 'sms', code: fresh }),
      20121,
    );
  });

  it('email: 20116 sent through the real SMTP server, 20118 empty, 20120 wrong, then verified', async () => {
    const c = data<{ id: number }>(
      await post('/api/alert/contacts', a.token, { name: 'Mail', email: 'Ops@Example.com' }),
    );
    const before = mailbox.received.length;
    const sent = data<{ code: number; to: string }>(
      await post(`/api/alert/contacts/${c.id}/code`, a.token, { channel: 'email' }),
    );
    expect(sent).toMatchObject({ code: 20116, to: 'ops@example.com' });
    const [mail] = (await mailbox.waitFor(before + 1)).slice(before);
    expect(mail!.to).toEqual(['ops@example.com']);
    const code = /(\d{6})/.exec(mail!.mail.subject ?? '')?.[1];
    expect(code).toMatch(/^\d{6}$/);
    expect(mail!.mail.text).toContain(code);
    expectCode(
      await post(`/api/alert/contacts/${c.id}/verify`, a.token, { channel: 'email', code: ' ' }),
      20118,
    );
    expectCode(
      await post(`/api/alert/contacts/${c.id}/verify`, a.token, {
        channel: 'email',
        code: code === '000000' ? '111111' : '000000',
      }),
      20120,
    );
    // A code sent by SMS does not verify the email.
    expectCode(await post(`/api/alert/contacts/${c.id}/code`, a.token, { channel: 'sms' }), 10113, 'phone');
    const ok = data<{ email_verified: boolean }>(
      await post(`/api/alert/contacts/${c.id}/verify`, a.token, { channel: 'email', code }),
    );
    expect(ok.email_verified).toBe(true);
  });

  it('20117 when the email cannot be sent', async () => {
    // An allowed host where nothing listens: a send failure, not a refused address (that is 40004).
    allowTestTarget('smtp://127.0.0.1:9');
    data(
      await t.inject({
        method: 'PUT',
        url: '/api/system/settings/email',
        token: admin,
        payload: { host: '127.0.0.1', port: 9, account: 'alerts@cellhub.test', ssl: false, password: 'x' },
      }),
    );
    try {
      const c = data<{ id: number }>(
        await post('/api/alert/contacts', a.token, { name: 'Down', email: 'd@example.com' }),
      );
      expectCode(await post(`/api/alert/contacts/${c.id}/code`, a.token, { channel: 'email' }), 20117);
    } finally {
      data(
        await t.inject({
          method: 'PUT',
          url: '/api/system/settings/email',
          token: admin,
          payload: {
            host: '127.0.0.1',
            port: mailbox.port,
            account: 'alerts@cellhub.test',
            ssl: false,
            password: '',
          },
        }),
      );
    }
  });

  it('a verified email contact receives the alert mail and the recovery mail', async () => {
    const [dev] = await alertDevices(t, a.token, ['AT-MAIL-1']);
    const c = data<{ id: number }>(
      await post('/api/alert/contacts', a.token, { name: 'Ops', email: 'ops2@example.com' }),
    );
    data(await post(`/api/alert/contacts/${c.id}/code`, a.token, { channel: 'email' }));
    const codeMail = (await mailbox.waitFor(mailbox.received.length)).at(-1)!;
    const code = /(\d{6})/.exec(codeMail.mail.subject ?? '')![1]!;
    data(await post(`/api/alert/contacts/${c.id}/verify`, a.token, { channel: 'email', code }));
    const sms = await verifiedPhoneContact(t, a.token, codeLog, '13700000001');
    const tr = await createTrigger(t, a.token, {
      name: 'Hot',
      sn: 'AT-MAIL-1',
      key: 'temp',
      type: 4,
      b: 30,
      methods: ['email'],
      contact_ids: [c.id, sms.id],
      push_content: '{device} {property} {value}',
    });
    await report(t, dev!, { temp: 42 });
    const [alert] = await historyOf(t, a.token, tr.id);
    const rows = await t.app.deps.db
      .select()
      .from(notifyDeliveries)
      .where(like(notifyDeliveries.idempotencyKey, `alert:${alert!.id}:%`));
    // Email only: the SMS contact has no email.
    expect(rows.map((r) => [r.channel, r.recipient, r.subject, r.body])).toEqual([
      ['email', 'ops2@example.com', '[Cellhub] 告警 Alert: Hot (AT-MAIL-1)', 'AT-MAIL-1 温度 42'],
    ]);
    // The delivery worker sends it to the real SMTP server; then the recovery follows the same way.
    const worker = createNotifyWorker(t.app.deps);
    const before = mailbox.received.length;
    // Rows are due from the database's now(); the test clock stands still, so move it past that.
    t.clock.advance(60_000);
    expect(await worker.runOnce()).toBe(1);
    let mail = (await mailbox.waitFor(before + 1)).at(-1)!;
    expect(mail.to).toEqual(['ops2@example.com']);
    expect(mail.mail.subject).toBe('[Cellhub] 告警 Alert: Hot (AT-MAIL-1)');
    expect(mail.mail.text?.trim()).toBe('AT-MAIL-1 温度 42');
    await report(t, dev!, { temp: 20 });
    t.clock.advance(60_000);
    expect(await worker.runOnce()).toBe(1);
    mail = (await mailbox.waitFor(before + 2)).at(-1)!;
    expect(mail.mail.subject).toBe('[Cellhub] 恢复 Recovered: Hot (AT-MAIL-1)');
    expect(mail.mail.text).toContain('back to normal: 20');
    await worker.stop();
  });
});
