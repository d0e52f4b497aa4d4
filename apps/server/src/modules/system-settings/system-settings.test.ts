import { type AddressInfo, createServer } from 'node:net';
import { and, desc, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_MASK } from '@cellhub/contract/system-settings';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { auditLogs } from '../audit/audit.table';
import {
  type FakeAliyun,
  type FakeWechat,
  notifyTestConfig,
  startFakeAliyun,
  startFakeWechat,
  startSmtp,
  type TestSmtp,
} from '../../test/notify-test-kit';
import { notifyDeliveries } from '../notify/notify.table';
import { forgetWechatTokens } from '../notify/wechat.adapter';
import { users } from '../users/users.table';
import { systemSettings } from './system-settings.table';

const SMTP_USER = 'noreply@cellhub.test';
const SMTP_PASS = 'Smtp-Password-42';
const ALIYUN_SECRET = 'aliyun-Access-Key-Secret-9';
const WECHAT = { appid: 'wxabcdef0123456789', secret: 'wechat-App-Secret-7', templateId: 'TPL_test_01' };

let t: TestApp;
let admin: string;
let user: { uid: number; token: string };
let smtp: TestSmtp;
let aliyun: FakeAliyun;
let wechat: FakeWechat;

beforeAll(async () => {
  smtp = await startSmtp({ user: SMTP_USER, pass: SMTP_PASS });
  aliyun = await startFakeAliyun({
    accessKeyId: 'LTAI5tSettings',
    accessKeySecret: ALIYUN_SECRET,
    now: () => t.clock.now(),
  });
  wechat = await startFakeWechat({ ...WECHAT, now: () => t.clock.now() });
  t = await buildTestApp({
    config: {
      notify: notifyTestConfig({ aliyunSmsUrl: aliyun.url }),
      wechat: { oauthUrl: 'https://open.example.com', apiUrl: wechat.url },
    },
  });
  admin = await t.adminToken();
  user = await t.createUser();
  forgetWechatTokens();
});
afterAll(async () => {
  await t?.close();
  await Promise.all([smtp?.close(), aliyun?.close(), wechat?.close()]);
});

const data = <T = Record<string, unknown>>(res: { statusCode: number; body: string; json(): unknown }): T => {
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode}: ${res.body}`);
  return (res.json() as { data: T }).data;
};

type View = {
  sms: Record<string, unknown>;
  email: Record<string, unknown>;
  wechat: Record<string, unknown>;
  test_targets: Record<string, unknown>;
};

const get = async () =>
  data<View>(await t.inject({ method: 'GET', url: '/api/system/settings', token: admin }));
const put = (channel: string, payload: Record<string, unknown>, token = admin) =>
  t.inject({ method: 'PUT', url: `/api/system/settings/${channel}`, token, payload });
const test = (channel: string, to: string, token = admin) =>
  t.inject({ method: 'POST', url: `/api/system/settings/${channel}/test`, token, payload: { to } });

const EMAIL = {
  host: '127.0.0.1',
  port: 0,
  account: SMTP_USER,
  nickname: 'Cellhub 通知',
  ssl: false,
  password: SMTP_PASS,
};

describe('GET /api/system/settings', () => {
  it('answers defaults before anything is saved', async () => {
    const view = await get();
    expect(view.sms).toMatchObject({ provider: 'log', access_key_secret: '', sign_name: '' });
    expect(view.email).toMatchObject({ host: '', port: 465, ssl: true, password: '' });
    expect(view.wechat).toMatchObject({ appid: '', secret: '', template_id: '' });
    expect(view.test_targets).toEqual({ phone: null, email: null, wechat_openid: null });
  });

  it('is for admins only (10108)', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/system/settings', token: user.token });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe(10108);
    const write = await put('email', { ...EMAIL, port: smtp.port }, user.token);
    expect(errorOf(write).code).toBe(10108);
    const send = await test('email', 'x@example.com', user.token);
    expect(errorOf(send).code).toBe(10108);
  });
});

describe('an SMTP form without what it needs to send (issue 13: an empty form answered "saved")', () => {
  it('refuses an empty form with 10113 naming host and account, and stores nothing', async () => {
    const res = await put('email', {});
    expect(res.statusCode).toBe(400);
    const err = errorOf(res);
    expect(err.code).toBe(10113);
    expect(JSON.stringify(err.details)).toContain('host');
    expect(JSON.stringify(err.details)).toContain('account');
    const blank = await put('email', {
      host: '',
      port: 465,
      account: '',
      nickname: '',
      ssl: true,
      password: '',
    });
    expect(errorOf(blank).code).toBe(10113);
    const rows = await t.app.deps.db.select().from(systemSettings).where(like(systemSettings.key, 'email.%'));
    expect(rows).toEqual([]);
  });

  it('refuses a server and account without a password while none is stored', async () => {
    const res = await put('email', { ...EMAIL, port: 465, password: '' });
    expect(errorOf(res).code).toBe(10113);
    expect(JSON.stringify(errorOf(res).details)).toContain('password');
    expect(errorOf(await put('email', { ...EMAIL, port: 465, password: SECRET_MASK })).code).toBe(10113);
    expect((await get()).email).toMatchObject({ host: '', password: '' });
  });
});

describe('saving settings', () => {
  it('stores secrets sealed, answers them masked, and never sends them to the browser', async () => {
    const res = await put('email', { ...EMAIL, port: smtp.port });
    const view = data<View>(res);
    expect(view.email).toEqual({ ...EMAIL, port: smtp.port, password: SECRET_MASK });
    expect(res.body).not.toContain(SMTP_PASS);
    const [row] = await t.app.deps.db
      .select()
      .from(systemSettings)
      .where(eq(systemSettings.key, 'email.password'));
    expect(row!.secret).toBe(true);
    expect(row!.value).toMatch(/^v1:/);
    expect(row!.value).not.toContain(SMTP_PASS);
    // Bound to its key: the sealed value copied to another setting does not open.
    expect(() => t.app.deps.box.decrypt(row!.value, 'sms.access_key_secret')).toThrow();
    expect(t.app.deps.box.decrypt(row!.value, 'email.password')).toBe(SMTP_PASS);
    const again = await t.inject({ method: 'GET', url: '/api/system/settings', token: admin });
    expect(again.body).not.toContain(SMTP_PASS);
  });

  it('keeps a secret sent blank, masked or left out; replaces it when a new one is sent', async () => {
    const stored = async () => {
      const [row] = await t.app.deps.db
        .select()
        .from(systemSettings)
        .where(eq(systemSettings.key, 'email.password'));
      return t.app.deps.box.decrypt(row!.value, 'email.password');
    };
    data(await put('email', { ...EMAIL, port: smtp.port, password: '' }));
    expect(await stored()).toBe(SMTP_PASS);
    data(await put('email', { ...EMAIL, port: smtp.port, password: SECRET_MASK }));
    expect(await stored()).toBe(SMTP_PASS);
    const { password: _omit, ...withoutPassword } = EMAIL;
    const view = data<View>(await put('email', { ...withoutPassword, port: smtp.port, nickname: '告警' }));
    expect(view.email).toMatchObject({ nickname: '告警', password: SECRET_MASK });
    expect(await stored()).toBe(SMTP_PASS);
    data(await put('email', { ...EMAIL, port: smtp.port, password: 'Another-Pass-1' }));
    expect(await stored()).toBe('Another-Pass-1');
    data(await put('email', { ...EMAIL, port: smtp.port }));
    expect(await stored()).toBe(SMTP_PASS);
  });

  it('audits each save with the changed field names, never the values', async () => {
    data(
      await put('sms', {
        provider: 'aliyun',
        access_key_id: 'LTAI5tSettings',
        access_key_secret: ALIYUN_SECRET,
        sign_name: '物联网平台',
        template_verify_code: 'SMS_200001',
      }),
    );
    const [audit] = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'system_settings_update'), eq(auditLogs.target, 'sms')))
      .orderBy(desc(auditLogs.id))
      .limit(1);
    expect(audit!.detail).toEqual({
      changed: expect.arrayContaining([
        'provider',
        'access_key_id',
        'access_key_secret',
        'sign_name',
        'template_verify_code',
      ]),
    });
    expect(JSON.stringify(audit!.detail)).not.toContain(ALIYUN_SECRET);
  });

  it('shares the messaging app appid and secret with the QR sign-in settings', async () => {
    data(await put('wechat', { appid: WECHAT.appid, secret: WECHAT.secret, template_id: WECHAT.templateId }));
    const rows = await t.app.deps.db
      .select()
      .from(systemSettings)
      .where(like(systemSettings.key, 'wechat.%'));
    const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
    expect(byKey['wechat.appid']!.value).toBe(WECHAT.appid);
    expect(byKey['wechat.secret']!.secret).toBe(true);
    expect(byKey['wechat.template_id']!.value).toBe(WECHAT.templateId);
    const view = await get();
    expect(view.wechat).toEqual({ appid: WECHAT.appid, secret: SECRET_MASK, template_id: WECHAT.templateId });
  });

  it.each([
    ['sms', { provider: 'pigeon' }, 'provider'],
    ['sms', { provider: 'tencent', sdk_app_id: 'abc' }, 'sdk_app_id'],
    ['sms', { provider: 'tencent', region: 'Guangzhou' }, 'region'],
    ['email', { host: 'smtp example', port: 25 }, 'host'],
    ['email', { host: 'smtp.example.com', port: 0 }, 'port'],
    ['email', { host: 'smtp.example.com', account: 'not-an-address' }, 'account'],
    ['email', { host: 'smtp.example.com', ssl: 'yes' }, 'ssl'],
    ['wechat', { appid: 'has spaces in it' }, 'appid'],
  ])('PUT %s %j is refused with 10113 naming %s', async (channel, payload, field) => {
    const res = await put(channel, payload);
    expect(res.statusCode).toBe(400);
    const err = errorOf(res);
    expect(err.code).toBe(10113);
    expect(JSON.stringify(err.details)).toContain(field);
  });
});

describe('send test', () => {
  it('email: the local SMTP server receives it; the answer is the recorded delivery', async () => {
    data(await put('email', { ...EMAIL, port: smtp.port }));
    const before = smtp.received.length;
    const res = await test('email', 'admin-inbox@example.com');
    const item = data<Record<string, unknown>>(res);
    expect(item).toMatchObject({
      channel: 'email',
      to: 'admin-inbox@example.com',
      template: 'test',
      status: 'sent',
      attempts: 1,
    });
    expect(res.body).not.toContain(SMTP_PASS);
    const received = await smtp.waitFor(before + 1);
    const mail = received.at(-1)!;
    expect(mail.envelopeTo).toEqual(['admin-inbox@example.com']);
    expect(mail.user).toBe(SMTP_USER);
    expect(mail.mail.subject).toBe('Cellhub test message');
    expect(mail.mail.from?.value[0]).toEqual({ address: SMTP_USER, name: 'Cellhub 通知' });
    expect(mail.mail.text).toContain('the email channel works');
    const [audit] = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.action, 'system_settings_test'))
      .orderBy(desc(auditLogs.id))
      .limit(1);
    expect(audit).toMatchObject({
      target: 'email',
      detail: { to: 'admin-inbox@example.com', status: 'sent' },
    });
  });

  it('email: a wrong password is 20117 with the server reason, and recorded as failed', async () => {
    data(await put('email', { ...EMAIL, port: smtp.port, password: 'wrong-password' }));
    const res = await test('email', 'admin-inbox@example.com');
    expect(res.statusCode).toBe(400);
    const err = errorOf(res);
    expect(err.code).toBe(20117);
    expect(err.message).toMatch(/EAUTH|Invalid username or password/);
    // The provider's words also travel in details, for the console to show beside the code's own text.
    expect(err.details).toMatchObject({
      channel: 'email',
      reason: expect.stringMatching(/Invalid username or password/),
    });
    const [row] = await t.app.deps.db
      .select()
      .from(notifyDeliveries)
      .orderBy(desc(notifyDeliveries.id))
      .limit(1);
    expect(row).toMatchObject({ channel: 'email', template: 'test', status: 'failed' });
    data(await put('email', { ...EMAIL, port: smtp.port }));
  });

  it('email: a server that is not there is 20117 too (never a 500)', async () => {
    const closed = await startSmtp();
    await closed.close();
    data(await put('email', { ...EMAIL, port: closed.port }));
    const res = await test('email', 'admin-inbox@example.com');
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe(20117);
    expect(errorOf(res).message).toMatch(/ECONNECTION|ECONNREFUSED/);
    data(await put('email', { ...EMAIL, port: smtp.port }));
  });

  it('email: an SMTP host inside the network is refused with 40004, open and closed ports alike, nothing reached', async () => {
    // Neither port is on the allow-list: one listens and greets like a mail server, the other is closed.
    let connections = 0;
    const inner = createServer((socket) => {
      connections++;
      socket.end('220 internal ESMTP\r\n');
    });
    await new Promise<void>((resolve) => inner.listen(0, '127.0.0.1', resolve));
    const open = (inner.address() as AddressInfo).port;
    const released = createServer();
    await new Promise<void>((resolve) => released.listen(0, '127.0.0.1', resolve));
    const closed = (released.address() as AddressInfo).port;
    await new Promise((resolve) => released.close(resolve));
    try {
      const answers: string[] = [];
      for (const [host, port] of [
        ['127.0.0.1', open],
        ['127.0.0.1', closed],
        ['localhost', open],
        ['0x7f.1', closed],
        ['2130706433', open],
      ] as const) {
        data(await put('email', { ...EMAIL, host, port }));
        const res = await test('email', 'admin-inbox@example.com');
        expect(res.statusCode, `${host}:${port}`).toBe(400);
        answers.push(res.body);
      }
      expect(new Set(answers).size).toBe(1);
      expect(JSON.parse(answers[0]!)).toEqual({
        code: 40004,
        message: 'The target address is not allowed',
        details: [{ field: 'host', message: 'the host is a private or local address' }],
      });
      expect(connections).toBe(0);
      const [row] = await t.app.deps.db
        .select()
        .from(notifyDeliveries)
        .orderBy(desc(notifyDeliveries.id))
        .limit(1);
      expect(row).toMatchObject({
        channel: 'email',
        status: 'failed',
        lastError: expect.stringMatching(/^SMTP host refused/),
      });
      // The allowed server is still reached: the fence does not refuse everything.
      data(await put('email', { ...EMAIL, port: smtp.port }));
      expect(data(await test('email', 'admin-inbox@example.com'))).toMatchObject({ status: 'sent' });
    } finally {
      await new Promise((resolve) => inner.close(resolve));
      data(await put('email', { ...EMAIL, port: smtp.port }));
    }
  });

  it('SMS through Aliyun: signed request accepted by the fake, random code in the verify template', async () => {
    data(
      await put('sms', {
        provider: 'aliyun',
        access_key_id: 'LTAI5tSettings',
        sign_name: '物联网平台',
        template_verify_code: 'SMS_200001',
      }),
    );
    const res = await test('sms', '+86 138-0013-8000'.replace(/[ -]/g, ''));
    expect(data(res)).toMatchObject({ channel: 'sms', to: '13800138000', status: 'sent' });
    const sent = aliyun.sent.at(-1)!;
    expect(sent.params).toMatchObject({
      PhoneNumbers: '13800138000',
      SignName: '物联网平台',
      TemplateCode: 'SMS_200001',
    });
    expect(sent.templateParam.code).toMatch(/^\d{6}$/);
  });

  it('SMS not configured (provider chosen, keys missing) is 20141', async () => {
    data(await put('sms', { provider: 'tencent' }));
    const res = await test('sms', '13800138000');
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe(20141);
    expect(errorOf(res).message).toMatch(/Tencent Cloud SMS/);
    data(await put('sms', { provider: 'log' }));
  });

  it('SMS with the log provider succeeds (development)', async () => {
    const res = await test('sms', '13800138000');
    expect(data(res)).toMatchObject({ status: 'sent' });
  });

  it("WeChat: a template message to the admin's own bound openid (offered in test_targets)", async () => {
    const [me] = await t.app.deps.db.select().from(users).where(eq(users.username, 'admin'));
    await t.app.deps.db.update(users).set({ wechatOpenid: 'oAdmin_openid_01' }).where(eq(users.id, me!.id));
    const view = await get();
    expect(view.test_targets.wechat_openid).toBe('oAdmin_openid_01');
    const res = await test('wechat', 'oAdmin_openid_01');
    expect(data(res)).toMatchObject({ channel: 'wechat', status: 'sent' });
    expect(wechat.sent.at(-1)!.body).toMatchObject({
      touser: 'oAdmin_openid_01',
      template_id: WECHAT.templateId,
      data: { content: { value: expect.stringContaining('messaging app channel works') } },
    });
  });

  it('WeChat with a wrong secret is 90002 with WeChat errcode', async () => {
    forgetWechatTokens();
    await t.app.deps.db.delete(systemSettings).where(eq(systemSettings.key, 'wechat.access_token'));
    data(
      await put('wechat', { appid: WECHAT.appid, secret: 'wrong-secret', template_id: WECHAT.templateId }),
    );
    const res = await test('wechat', 'oAdmin_openid_01');
    expect(errorOf(res).code).toBe(90002);
    expect(errorOf(res).message).toMatch(/40125/);
    data(await put('wechat', { appid: WECHAT.appid, secret: WECHAT.secret, template_id: WECHAT.templateId }));
  });
});
