import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import path from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/app-error';
import { buildTestApp, type TestApp } from '../../test/app';
import { eventually } from '../../test/gateway-test-kit';
import { allowTestTarget } from '../../test/outbound';
import { users } from '../users/users.table';
import { ChannelSmsProvider } from './channel-sms-provider';
import {
  type FakeAliyun,
  type FakeTencent,
  type FakeWechat,
  notifyTestConfig,
  startFakeAliyun,
  startFakeTencent,
  startFakeWechat,
  startSmtp,
  type TestSmtp,
} from '../../test/notify-test-kit';
import { enqueueNotification, type NotificationInput, sendNow } from './notify.service';
import { type DeliveryRow, notifyDeliveries } from './notify.table';
import { createNotifyWorker, type NotifyWorker } from './notify.worker';
import { forgetWechatTokens } from './wechat.adapter';

const ALIYUN = { accessKeyId: 'LTAI5tTestKeyId', accessKeySecret: 'aliyun-test-secret' };
const TENCENT = {
  secretId: 'AKIDTestSecretId0123',
  secretKey: 'tencent-test-secret-key',
  sdkAppId: '1400006666',
};
const WECHAT = { appid: 'wx0123456789abcdef', secret: 'wechat-app-secret', templateId: 'TPL_alert_0001' };
const SMTP_USER = 'alerts@cellhub.test';
const SMTP_PASS = 'smtp-Secret-1';

let t: TestApp;
let admin: string;
let smtp: TestSmtp;
let aliyun: FakeAliyun;
let tencent: FakeTencent;
let wechat: FakeWechat;
let worker: NotifyWorker;
let seq = 0;

/** The fakes' clock: the test clock, plus a skew to play a provider whose clock differs. */
let fakeSkewMs = 0;
const now = () => new Date(t.clock.now().getTime() + fakeSkewMs);

beforeAll(async () => {
  smtp = await startSmtp({ user: SMTP_USER, pass: SMTP_PASS });
  aliyun = await startFakeAliyun({ ...ALIYUN, now });
  tencent = await startFakeTencent({ ...TENCENT, now });
  wechat = await startFakeWechat({ ...WECHAT, now });
  t = await buildTestApp({
    config: {
      notify: notifyTestConfig({ aliyunSmsUrl: aliyun.url, tencentSmsUrl: tencent.url, ratePerMinute: 100 }),
      wechat: { oauthUrl: 'https://open.example.com', apiUrl: wechat.url },
      smsCodeLogFile: undefined,
    },
  });
  admin = await t.adminToken();
  worker = createNotifyWorker(t.app.deps, { random: () => 0.5 });
  await put('email', {
    host: '127.0.0.1',
    port: smtp.port,
    account: SMTP_USER,
    nickname: '告警中心',
    ssl: false,
    password: SMTP_PASS,
  });
  await put('wechat', { ...WECHAT, template_id: WECHAT.templateId });
});
afterAll(async () => {
  await t?.close();
  await Promise.all([smtp?.close(), aliyun?.close(), tencent?.close(), wechat?.close()]);
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

const useAliyun = () =>
  put('sms', {
    provider: 'aliyun',
    access_key_id: ALIYUN.accessKeyId,
    access_key_secret: ALIYUN.accessKeySecret,
    sign_name: '阿里云短信测试',
    template_verify_code: 'SMS_100001',
    template_alert_raise: 'SMS_100002',
    template_alert_recover: 'SMS_100003',
  });

const useTencent = () =>
  put('sms', {
    provider: 'tencent',
    access_key_id: TENCENT.secretId,
    access_key_secret: TENCENT.secretKey,
    sdk_app_id: TENCENT.sdkAppId,
    region: 'ap-guangzhou',
    sign_name: '腾讯云',
    template_verify_code: '449739',
    template_alert_raise: '449740',
    template_alert_recover: '449741',
  });

function message(over: Partial<NotificationInput> = {}): NotificationInput {
  seq++;
  return {
    idempotencyKey: `test:${seq}:${Math.random()}`,
    channel: 'email',
    to: `ops${seq}@example.com`,
    template: 'alert_raise',
    subject: `Alert ${seq}: DTU-1 temperature high`,
    body: `DTU-1 temperature is 81.5 °C (above 80) at 2024-05-06 07:08:09 [${seq}]`,
    params: { device: 'DTU-1', property: 'temperature', value: '81.5', time: '2024-05-06 07:08:09' },
    ...over,
  };
}

const enqueue = async (n: NotificationInput) => (await enqueueNotification(t.app.deps.db, n)).id;

async function row(id: number): Promise<DeliveryRow> {
  const [r] = await t.app.deps.db.select().from(notifyDeliveries).where(eq(notifyDeliveries.id, id));
  return r!;
}

/** Runs the worker until nothing is due now. */
async function drain(w: NotifyWorker = worker): Promise<void> {
  for (let i = 0; i < 50 && (await w.runOnce()) > 0; i++);
}

describe('enqueueNotification', () => {
  it('is idempotent: the same key twice is one row', async () => {
    const n = message();
    const first = await enqueueNotification(t.app.deps.db, n);
    const second = await enqueueNotification(t.app.deps.db, { ...n, body: 'another body' });
    expect(first.created).toBe(true);
    expect(second).toEqual({ id: first.id, created: false });
    const rows = await t.app.deps.db
      .select()
      .from(notifyDeliveries)
      .where(eq(notifyDeliveries.idempotencyKey, n.idempotencyKey));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'pending', attempts: 0, body: n.body, recipient: n.to });
  });

  it("joins the caller's transaction: rolled back, nothing is queued", async () => {
    const n = message();
    await expect(
      t.app.deps.db.transaction(async (tx) => {
        await enqueueNotification(tx, n);
        throw new Error('the alert write failed');
      }),
    ).rejects.toThrow('the alert write failed');
    const rows = await t.app.deps.db
      .select()
      .from(notifyDeliveries)
      .where(eq(notifyDeliveries.idempotencyKey, n.idempotencyKey));
    expect(rows).toHaveLength(0);
  });
});

describe('email over SMTP', () => {
  beforeEach(() => {
    smtp.received.length = 0;
  });

  it('delivers a queued message to a real SMTP server: recipients, subject, body, sender', async () => {
    const n = message({ to: 'oncall@example.com' });
    const id = await enqueue(n);
    await drain();
    await smtp.waitFor(1);
    const mails = smtp.received.filter((m) => m.envelopeTo.includes('oncall@example.com'));
    expect(mails).toHaveLength(1);
    const mail = mails[0];
    expect(mail!.user).toBe(SMTP_USER);
    expect(mail!.envelopeFrom).toBe(SMTP_USER);
    expect(mail!.envelopeTo).toEqual(['oncall@example.com']);
    expect(mail!.mail.subject).toBe(n.subject);
    expect(mail!.mail.text?.trim()).toBe(n.body);
    expect(mail!.mail.from?.value[0]).toEqual({ address: SMTP_USER, name: '告警中心' });
    expect(mail!.mail.to).toMatchObject({ value: [{ address: 'oncall@example.com' }] });
    const r = await row(id);
    expect(r).toMatchObject({ status: 'sent', attempts: 1, lastError: null });
    expect(r.providerMessageId).toBe(mail!.mail.messageId);
    expect(r.providerMessageId).toBe(`<cellhub-${id}@cellhub.test>`);
    // Nothing is sent twice: more runs find nothing.
    expect(await worker.runOnce()).toBe(0);
    expect(smtp.received.filter((m) => m.envelopeTo.includes('oncall@example.com'))).toHaveLength(1);
  });

  it('sendNow sends a verification code at once and stores the row without the code', async () => {
    const sent = await sendNow(t.app.deps, {
      channel: 'email',
      to: 'verify@example.com',
      template: 'verify_code',
      subject: 'Your code 482913',
      body: 'Your Cellhub verification code is 482913.',
      params: { code: '482913' },
      contactId: 77,
    });
    const [mail] = await smtp.waitFor(1);
    expect(mail!.mail.text).toContain('482913');
    expect(mail!.mail.subject).toBe('Your code 482913');
    expect(sent).toMatchObject({ status: 'sent', attempts: 1, contactId: 77 });
    const stored = await row(sent.id);
    expect(stored.body).toBe('Your Cellhub verification code is ******.');
    expect(stored.subject).toBe('Your code ******');
    expect(stored.params).toEqual({ code: '******' });
  });

  it('sendNow surfaces SMTP refusals as 20117 with the reason, recorded as failed', async () => {
    smtp.refuse.add('nobody@example.com');
    const err = await sendNow(t.app.deps, {
      channel: 'email',
      to: 'nobody@example.com',
      template: 'test',
      body: 'test',
      params: {},
    }).catch((e: unknown) => e);
    smtp.refuse.clear();
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(20117);
    expect((err as AppError).message).toMatch(/550|Mailbox unavailable/);
    const [r] = await t.app.deps.db
      .select()
      .from(notifyDeliveries)
      .where(eq(notifyDeliveries.recipient, 'nobody@example.com'));
    expect(r).toMatchObject({ status: 'failed', attempts: 1 });
    expect(r!.lastError).toMatch(/550/);
  });

  it('a refused mailbox in the queue is final at once (no retries)', async () => {
    smtp.refuse.add('gone@example.com');
    const id = await enqueue(message({ to: 'gone@example.com' }));
    await drain();
    smtp.refuse.clear();
    const r = await row(id);
    expect(r).toMatchObject({ status: 'failed', attempts: 1 });
    expect(r.lastError).toMatch(/550/);
  });
});

describe('Aliyun SMS', () => {
  beforeAll(useAliyun);

  it('signs SendSms as documented; the fake recomputes the signature and accepts it', async () => {
    const before = aliyun.sent.length;
    const id = await enqueue(message({ channel: 'sms', to: '13800138000', template: 'alert_raise' }));
    await drain();
    const r = await row(id);
    expect(r).toMatchObject({ status: 'sent', providerMessageId: `9006${before + 1}^0` });
    const sent = aliyun.sent.at(-1)!;
    expect(sent.params).toMatchObject({
      Action: 'SendSms',
      Version: '2017-05-25',
      PhoneNumbers: '13800138000',
      SignName: '阿里云短信测试',
      TemplateCode: 'SMS_100002',
      OutId: `cellhub-${id}`,
      Format: 'JSON',
    });
    expect(sent.templateParam).toEqual({
      device: 'DTU-1',
      property: 'temperature',
      value: '81.5',
      time: '2024-05-06 07:08:09',
    });
  });

  it('international numbers go without the plus; recover uses its own template', async () => {
    const id = await enqueue(message({ channel: 'sms', to: '+85291234567', template: 'alert_recover' }));
    await drain();
    expect((await row(id)).status).toBe('sent');
    expect(aliyun.sent.at(-1)!.params).toMatchObject({
      PhoneNumbers: '85291234567',
      TemplateCode: 'SMS_100003',
    });
  });

  it('a wrong secret is refused by the fake (SignatureDoesNotMatch) and retried, not lost', async () => {
    await put('sms', {
      provider: 'aliyun',
      access_key_id: ALIYUN.accessKeyId,
      access_key_secret: 'not-the-secret',
      sign_name: '阿里云短信测试',
      template_verify_code: 'SMS_100001',
      template_alert_raise: 'SMS_100002',
      template_alert_recover: 'SMS_100003',
    });
    const id = await enqueue(message({ channel: 'sms', to: '13800138001' }));
    await drain();
    let r = await row(id);
    expect(r).toMatchObject({ status: 'pending', attempts: 1 });
    expect(r.lastError).toMatch(/SignatureDoesNotMatch/);
    await useAliyun();
    t.clock.advance(2_000);
    await drain();
    r = await row(id);
    expect(r).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
  });

  it('a number the provider refuses fails at once with its code', async () => {
    aliyun.badNumbers.add('13800138002');
    const id = await enqueue(message({ channel: 'sms', to: '13800138002' }));
    await drain();
    const r = await row(id);
    expect(r).toMatchObject({ status: 'failed', attempts: 1 });
    expect(r.lastError).toMatch(/isv\.MOBILE_NUMBER_ILLEGAL/);
  });

  it('provider down then up: HTTP 500 twice, then 200 — sent once, nothing lost', async () => {
    const accepted = aliyun.sent.length;
    const requests = aliyun.requests;
    aliyun.failNext(
      {
        status: 500,
        body: '{"Code":"ServiceUnavailable","Message":"The request has failed due to a temporary failure of the server."}',
      },
      { status: 500, body: 'upstream error' },
    );
    const id = await enqueue(message({ channel: 'sms', to: '13800138003' }));
    await drain();
    let r = await row(id);
    expect(r).toMatchObject({ status: 'pending', attempts: 1 });
    expect(r.lastError).toMatch(/ServiceUnavailable/);
    // Backoff: base 1 s × 2^0, with the jitter at its middle (random 0.5): 750 ms.
    expect(r.nextAttemptAt.getTime() - now().getTime()).toBeGreaterThan(500);
    expect(r.nextAttemptAt.getTime() - now().getTime()).toBeLessThanOrEqual(1000);
    expect(await worker.runOnce()).toBe(0); // not due yet
    t.clock.advance(1_000);
    await drain();
    r = await row(id);
    expect(r).toMatchObject({ status: 'pending', attempts: 2 });
    expect(r.lastError).toMatch(/HTTP 500/);
    t.clock.advance(2_000);
    await drain();
    r = await row(id);
    expect(r).toMatchObject({ status: 'sent', attempts: 3, lastError: null });
    t.clock.advance(60_000);
    await drain();
    expect(aliyun.requests - requests).toBe(3);
    expect(aliyun.sent.length - accepted).toBe(1);
    expect(aliyun.sent.at(-1)!.params.PhoneNumbers).toBe('13800138003');
  });

  it('provider unreachable then back on the same port: retried until it answers', async () => {
    const id = await enqueue(message({ channel: 'sms', to: '13800138004' }));
    await aliyun.stop();
    try {
      await drain();
      const r = await row(id);
      expect(r).toMatchObject({ status: 'pending', attempts: 1 });
      expect(r.lastError).toMatch(/cannot reach 127\.0\.0\.1/);
    } finally {
      await aliyun.restart();
    }
    t.clock.advance(1_000);
    await drain();
    expect(await row(id)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(aliyun.sent.filter((s) => s.params.PhoneNumbers === '13800138004')).toHaveLength(1);
  });

  it('after the last try the row is the failure record', async () => {
    const id = await enqueue(message({ channel: 'sms', to: '13800138005' }));
    for (let i = 0; i < 6; i++) {
      aliyun.failNext({ status: 503, body: '{"Code":"isp.SYSTEM_ERROR","Message":"系统错误"}' });
      await drain();
      t.clock.advance(60 * 60_000);
    }
    const r = await row(id);
    expect(r).toMatchObject({ status: 'failed', attempts: 6, maxAttempts: 6, sentat: null });
    expect(r.lastError).toMatch(/isp\.SYSTEM_ERROR/);
    await drain();
    expect((await row(id)).attempts).toBe(6);
  });

  it('sign-in codes go through the configured provider (recorded without the code)', async () => {
    const provider = new ChannelSmsProvider(() => t.app.deps);
    await provider.send('13800138006', 'verification_code', { code: '135790', minutes: '5' });
    const sent = aliyun.sent.at(-1)!;
    expect(sent.params).toMatchObject({ PhoneNumbers: '13800138006', TemplateCode: 'SMS_100001' });
    expect(sent.templateParam).toEqual({ code: '135790' });
    const [r] = await t.app.deps.db
      .select()
      .from(notifyDeliveries)
      .where(eq(notifyDeliveries.recipient, '13800138006'));
    expect(r).toMatchObject({ status: 'sent', template: 'verify_code', params: { code: '******' } });
    expect(r!.body).not.toContain('135790');
  });

  it('POST /api/user/smscode sends the sign-in code through Aliyun', async () => {
    const original = t.app.deps.sms;
    t.app.deps.sms = new ChannelSmsProvider(() => t.app.deps);
    try {
      const { token } = await t.createUser();
      const res = await t.inject({
        method: 'POST',
        url: '/api/user/smscode',
        token,
        payload: { phone: '+8613900139000', purpose: 'change_phone' },
      });
      expect(res.statusCode).toBe(200);
      const sent = aliyun.sent.at(-1)!;
      expect(sent.params.PhoneNumbers).toBe('13900139000');
      expect(sent.templateParam.code).toMatch(/^\d{6}$/);
      // The code that arrived works.
      const change = await t.inject({
        method: 'PUT',
        url: '/api/user/phone',
        token,
        payload: { phone: '13900139000', captcha: sent.templateParam.code },
      });
      expect(change.statusCode).toBe(200);
    } finally {
      t.app.deps.sms = original;
    }
  });
});

describe('Tencent Cloud SMS', () => {
  beforeAll(useTencent);

  it('signs with TC3-HMAC-SHA256; the fake verifies it; parameters in template order', async () => {
    const id = await enqueue(message({ channel: 'sms', to: '13700137000', template: 'alert_raise' }));
    await drain();
    const r = await row(id);
    expect(r.status).toBe('sent');
    const sent = tencent.sent.at(-1)!;
    expect(r.providerMessageId).toMatch(/^2028:/);
    expect(sent.body).toEqual({
      PhoneNumberSet: ['+8613700137000'],
      SmsSdkAppId: TENCENT.sdkAppId,
      SignName: '腾讯云',
      TemplateId: '449740',
      TemplateParamSet: ['DTU-1', 'temperature', '81.5', '2024-05-06 07:08:09'],
      SessionContext: `cellhub-${id}`,
    });
    expect(sent.headers).toMatchObject({
      'x-tc-action': 'SendSms',
      'x-tc-version': '2021-01-11',
      'x-tc-region': 'ap-guangzhou',
      'content-type': 'application/json; charset=utf-8',
    });
  });

  it('a wrong key is refused (AuthFailure.SignatureFailure) and retried; fixed, it goes out once', async () => {
    await put('sms', {
      provider: 'tencent',
      access_key_id: TENCENT.secretId,
      access_key_secret: 'wrong',
      sdk_app_id: TENCENT.sdkAppId,
      sign_name: '腾讯云',
      template_alert_raise: '449740',
      template_verify_code: '449739',
    });
    const id = await enqueue(message({ channel: 'sms', to: '13700137001' }));
    await drain();
    expect((await row(id)).lastError).toMatch(/AuthFailure\.SignatureFailure/);
    await useTencent();
    t.clock.advance(2_000);
    await drain();
    expect(await row(id)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(tencent.sent.filter((s) => s.body.PhoneNumberSet[0] === '+8613700137001')).toHaveLength(1);
  });

  it('a request signed with a clock 10 minutes off is refused as expired (the timestamp is signed)', async () => {
    fakeSkewMs = 10 * 60_000;
    try {
      const id = await enqueue(message({ channel: 'sms', to: '13700137002' }));
      await drain();
      const r = await row(id);
      expect(r).toMatchObject({ status: 'pending', attempts: 1 });
      expect(r.lastError).toMatch(/AuthFailure\.SignatureExpire/);
    } finally {
      fakeSkewMs = 0;
    }
  });

  it('sendNow: not configured is 20141; provider refusal is 31002 with the reason', async () => {
    await put('sms', { provider: 'tencent' });
    const notConfigured = await sendNow(t.app.deps, {
      channel: 'sms',
      to: '13700137003',
      template: 'test',
      body: 'x',
      params: { code: '123456' },
    }).catch((e: unknown) => e);
    expect((notConfigured as AppError).code).toBe(20141);
    await useTencent();
    const refused = await sendNow(t.app.deps, {
      channel: 'sms',
      to: '+1',
      template: 'test',
      body: 'x',
      params: { code: '123456' },
    }).catch((e: unknown) => e);
    expect((refused as AppError).code).toBe(31002);
    expect((refused as AppError).message).toMatch(/InvalidParameterValue\.IncorrectPhoneNumber/);
  });
});

describe('WeChat template messages', () => {
  beforeEach(() => forgetWechatTokens());

  it('sends to the openid a user bound through the QR sign-in; the token is cached', async () => {
    const u = await t.createUser();
    await t.app.deps.db.update(users).set({ wechatOpenid: 'oUser_bound_0001' }).where(eq(users.id, u.uid));
    const [bound] = await t.app.deps.db.select().from(users).where(eq(users.id, u.uid));
    const calls = wechat.tokenCalls;
    const a = await enqueue(message({ channel: 'wechat', to: bound!.wechatOpenid!, userId: u.uid }));
    const b = await enqueue(message({ channel: 'wechat', to: bound!.wechatOpenid!, userId: u.uid }));
    await drain();
    expect((await row(a)).status).toBe('sent');
    expect((await row(b)).status).toBe('sent');
    expect(wechat.tokenCalls - calls).toBe(1);
    const sent = wechat.sent.at(-1)!;
    expect(sent.body.touser).toBe('oUser_bound_0001');
    expect(sent.body.template_id).toBe(WECHAT.templateId);
    expect(sent.body.data).toMatchObject({
      content: { value: expect.stringContaining('DTU-1 temperature is 81.5') },
      device: { value: 'DTU-1' },
      value: { value: '81.5' },
    });
    // Another process (or a restart) reads the token other instances stored instead of fetching its own.
    forgetWechatTokens();
    await enqueue(message({ channel: 'wechat', to: 'oUser_bound_0001' }));
    await drain();
    expect(wechat.tokenCalls - calls).toBe(1);
  });

  it.each([40001, 42001] as const)(
    'errcode %i: a new token is fetched and the message sent once',
    async (errcode) => {
      await enqueue(message({ channel: 'wechat', to: 'oWarmUp_token' }));
      await drain();
      const calls = wechat.tokenCalls;
      const sentBefore = wechat.sent.length;
      wechat.invalidateTokens(errcode);
      const id = await enqueue(message({ channel: 'wechat', to: 'oAfter_refresh' }));
      await drain();
      expect(await row(id)).toMatchObject({ status: 'sent', attempts: 1 });
      expect(wechat.tokenCalls - calls).toBe(1);
      expect(wechat.sent.length - sentBefore).toBe(1);
    },
  );

  it('renews the token when it expires by the clock', async () => {
    await enqueue(message({ channel: 'wechat', to: 'oClock_user1' }));
    await drain();
    const calls = wechat.tokenCalls;
    t.clock.advance(7200 * 1000);
    const id = await enqueue(message({ channel: 'wechat', to: 'oClock_user1' }));
    await drain();
    expect((await row(id)).status).toBe('sent');
    expect(wechat.tokenCalls - calls).toBe(1);
  });

  it('a user who does not follow the account (43004) fails at once', async () => {
    wechat.notFollowing.add('oNot_following');
    const id = await enqueue(message({ channel: 'wechat', to: 'oNot_following' }));
    await drain();
    const r = await row(id);
    expect(r).toMatchObject({ status: 'failed', attempts: 1 });
    expect(r.lastError).toMatch(/43004/);
  });
});

describe('delivery worker', () => {
  beforeEach(() => {
    smtp.received.length = 0;
  });

  it('two workers running at once never send one row twice', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) ids.push(await enqueue(message({ to: `crowd${i}@example.com` })));
    const other = createNotifyWorker(t.app.deps);
    await Promise.all([drain(worker), drain(other), drain(worker), drain(other)]);
    const rows = await t.app.deps.db.select().from(notifyDeliveries).where(inArray(notifyDeliveries.id, ids));
    expect(rows.every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
    await smtp.waitFor(30);
    const recipients = smtp.received.map((m) => m.envelopeTo[0]).sort();
    expect(recipients).toEqual(Array.from({ length: 30 }, (_, i) => `crowd${i}@example.com`).sort());
  });

  it('takes over a row whose worker died while sending (lease expired)', async () => {
    const id = await enqueue(message({ to: 'orphan@example.com' }));
    // A worker claimed it and vanished.
    await t.app.deps.db
      .update(notifyDeliveries)
      .set({ status: 'sending', attempts: 1, lockedUntil: new Date(now().getTime() + 60_000) })
      .where(eq(notifyDeliveries.id, id));
    expect(await worker.runOnce()).toBe(0);
    t.clock.advance(61_000);
    await drain();
    expect(await row(id)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(smtp.received.map((m) => m.envelopeTo[0])).toEqual(['orphan@example.com']);
  });
});

describe('a worker killed mid-send', () => {
  it('another worker takes the row over when the lease runs out; the mail arrives once', async () => {
    // An SMTP server that accepts the connection and never greets: the first worker's send hangs there.
    const stalled: Socket[] = [];
    const stall = createServer((socket) => stalled.push(socket));
    await new Promise<void>((resolve) => stall.listen(0, '127.0.0.1', resolve));
    allowTestTarget(`smtp://127.0.0.1:${(stall.address() as AddressInfo).port}`);
    const email = (port: number) =>
      put('email', { host: '127.0.0.1', port, account: SMTP_USER, ssl: false, password: SMTP_PASS });
    try {
      await email((stall.address() as AddressInfo).port);
      smtp.received.length = 0;
      const id = await enqueue(message({ to: 'killed@example.com' }));
      const first = createNotifyWorker(t.app.deps);
      const firstRun = first.runOnce();
      await eventually(async () => (stalled.length === 1 ? true : undefined));
      first.abandon();
      expect(await row(id)).toMatchObject({ status: 'sending', attempts: 1 });

      await email(smtp.port);
      expect(await worker.runOnce()).toBe(0); // the dead worker's lease still holds
      t.clock.advance(4 * t.app.deps.config.notify.sendTimeoutMs + 31_000);
      await drain();
      expect(await row(id)).toMatchObject({ status: 'sent', attempts: 2 });

      // The dead worker's connection drops: its send fails, and it writes nothing over the outcome.
      for (const socket of stalled) socket.destroy();
      await firstRun;
      expect(await row(id)).toMatchObject({ status: 'sent', attempts: 2 });
      await smtp.waitFor(1);
      expect(smtp.received.map((m) => m.envelopeTo[0])).toEqual(['killed@example.com']);
    } finally {
      for (const socket of stalled) socket.destroy();
      await new Promise((resolve) => stall.close(resolve));
      await email(smtp.port);
    }
  });
});

describe('per-recipient rate limit', () => {
  let limited: TestApp;
  let w: NotifyWorker;

  beforeAll(async () => {
    limited = await buildTestApp({
      config: { notify: notifyTestConfig({ ratePerMinute: 2 }), smsCodeLogFile: undefined },
    });
    const token = await limited.adminToken();
    const res = await limited.inject({
      method: 'PUT',
      url: '/api/system/settings/email',
      token,
      payload: { host: '127.0.0.1', port: smtp.port, account: SMTP_USER, ssl: false, password: SMTP_PASS },
    });
    expect(res.statusCode).toBe(200);
    w = createNotifyWorker(limited.app.deps);
    smtp.received.length = 0;
  });
  afterAll(() => limited?.close());

  it('sends at most N per minute to one recipient; the rest waits and is sent later, none dropped', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await enqueueNotification(limited.app.deps.db, message({ to: 'busy@example.com' }))).id);
    }
    const other = (await enqueueNotification(limited.app.deps.db, message({ to: 'calm@example.com' }))).id;
    // Rows are due from the database's now(); stop the test clock just after, so window edges are exact.
    limited.clock.advance(1000);
    limited.clock.freeze();
    await drain(w);
    const status = async () =>
      (
        await limited.app.deps.db.select().from(notifyDeliveries).where(inArray(notifyDeliveries.id, ids))
      ).map((r) => r.status);
    expect((await status()).filter((s) => s === 'sent')).toHaveLength(2);
    const [calm] = await limited.app.deps.db
      .select()
      .from(notifyDeliveries)
      .where(eq(notifyDeliveries.id, other));
    expect(calm!.status).toBe('sent');
    const waiting = await limited.app.deps.db
      .select()
      .from(notifyDeliveries)
      .where(inArray(notifyDeliveries.id, ids));
    for (const r of waiting.filter((x) => x.status !== 'sent')) {
      expect(r).toMatchObject({ status: 'pending', attempts: 0 });
      expect(r.nextAttemptAt.getTime()).toBe(limited.clock.now().getTime() + 60_000);
    }
    limited.clock.advance(30_000);
    await drain(w);
    expect((await status()).filter((s) => s === 'sent')).toHaveLength(2);
    limited.clock.advance(30_000);
    await drain(w);
    expect((await status()).filter((s) => s === 'sent')).toHaveLength(4);
    limited.clock.advance(60_000);
    await drain(w);
    expect(await status()).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
    await smtp.waitFor(6);
    expect(smtp.received.filter((m) => m.envelopeTo[0] === 'busy@example.com')).toHaveLength(5);
  });
});

describe('log provider', () => {
  it('writes sign-in codes to SMS_CODE_LOG_FILE as before', async () => {
    const withLog = await buildTestApp({ config: { notify: notifyTestConfig() } });
    try {
      const file = path.join(withLog.dataDir, 'codes.log');
      withLog.app.deps.config.smsCodeLogFile = file;
      await new ChannelSmsProvider(() => withLog.app.deps).send('13600136000', 'verification_code', {
        code: '246801',
        minutes: '5',
      });
      expect(readFileSync(file, 'utf8')).toBe('13600136000 246801\n');
    } finally {
      await withLog.close();
    }
  });
});
