import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { FakeWechat } from '../../test/fake-wechat';
import { setSetting, SETTING_KEYS } from '../system-settings/system-settings.service';
import { systemSettings } from '../system-settings/system-settings.table';

let t: TestApp;
let wx: FakeWechat;

beforeAll(async () => {
  wx = await new FakeWechat().start();
  t = await buildTestApp({
    config: {
      publicUrl: 'https://cellhub.example.com',
      wechat: { appid: wx.appid, secret: wx.secret, oauthUrl: 'https://open.example.com', apiUrl: wx.url },
    },
  });
});
afterAll(async () => {
  await t.close();
  await wx.stop();
});

async function newTicket(token?: string) {
  const res = await t.inject({
    method: 'POST',
    url: token ? '/api/user/wechat/qr' : '/api/auth/wechat/qr',
    token,
  });
  expect(res.statusCode).toBe(200);
  return res.json().data as { ticket: string; qr_url: string; expires_at: string };
}

const poll = (ticket: string) => t.inject({ method: 'GET', url: `/api/auth/wechat/qr/${ticket}` });
const callback = (query: Record<string, string>) =>
  t.inject({ method: 'GET', url: '/api/auth/wechat/callback', query });

/** Binds `openid` to the user through the real flow. */
async function bind(token: string, openid: string) {
  const { ticket } = await newTicket(token);
  const page = await callback({ code: wx.issueCode(openid), state: ticket });
  expect(page.body).toContain('WeChat bound');
  const res = await t.inject({ method: 'GET', url: `/api/user/wechat/qr/${ticket}`, token });
  expect(res.json()).toEqual({ status: true, data: null });
}

describe('WeChat QR sign-in', () => {
  it('creates a ticket whose QR URL points at the OAuth page with our callback', async () => {
    const { ticket, qr_url, expires_at } = await newTicket();
    const url = new URL(qr_url);
    expect(url.origin + url.pathname).toBe('https://open.example.com/connect/qrconnect');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      appid: wx.appid,
      redirect_uri: 'https://cellhub.example.com/api/auth/wechat/callback',
      response_type: 'code',
      scope: 'snsapi_login',
      state: ticket,
    });
    expect(new Date(expires_at).getTime() - t.clock.now().getTime()).toBeGreaterThan(4 * 60_000);
  });

  it('polls 20124 until scanned, then signs in once (20123 afterwards)', async () => {
    const u = await t.createUser();
    await bind(u.token, 'openid-alice');
    const { ticket } = await newTicket();
    expect(errorOf(await poll(ticket)).code).toBe(20124);
    const page = await callback({ code: wx.issueCode('openid-alice'), state: ticket });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('Signed in');
    const last = wx.calls.at(-1)!;
    expect(Object.fromEntries(last)).toMatchObject({
      appid: wx.appid,
      secret: wx.secret,
      grant_type: 'authorization_code',
    });
    const res = await poll(ticket);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ uid: u.uid, issuper: false });
    const info = await t.inject({ method: 'GET', url: '/api/user/info', token: res.json().data.token });
    expect(info.json().data).toMatchObject({ uid: u.uid, wechat_bound: true });
    expect(errorOf(await poll(ticket)).code).toBe(20123);
  });

  it('answers 20123 for an unknown ticket and 20122 after 5 minutes', async () => {
    expect(errorOf(await poll('no-such-ticket')).code).toBe(20123);
    const { ticket } = await newTicket();
    t.clock.advance(5 * 60_000 + 1000);
    expect(errorOf(await poll(ticket)).code).toBe(20122);
    const page = await callback({ code: wx.issueCode('x'), state: ticket });
    expect(page.body).toContain('expired');
  });

  it('answers 20128 when no account is bound to the WeChat user', async () => {
    const { ticket } = await newTicket();
    await callback({ code: wx.issueCode('openid-nobody'), state: ticket });
    expect(errorOf(await poll(ticket)).code).toBe(20128);
  });

  it('answers 20128 when the token exchange fails (the fake checks the code strictly)', async () => {
    const { ticket } = await newTicket();
    const page = await callback({ code: 'forged-code', state: ticket });
    expect(page.body).toContain('failed');
    const res = await poll(ticket);
    expect(errorOf(res).code).toBe(20128);
    // The callback settles a ticket once: a later valid code changes nothing.
    await callback({ code: wx.issueCode('openid-alice'), state: ticket });
    expect(errorOf(await poll(ticket)).code).toBe(20128);
  });

  it('answers 20128 when the user declined (no code)', async () => {
    const { ticket } = await newTicket();
    await callback({ state: ticket });
    expect(errorOf(await poll(ticket)).code).toBe(20128);
  });

  it('rejects a malformed ticket parameter with 10113', async () => {
    const res = await t.inject({ method: 'GET', url: `/api/auth/wechat/qr/${'x'.repeat(200)}` });
    expect(errorOf(res)).toMatchObject({ code: 10113, details: [{ field: 'params' }] });
    expect(res.headers['x-frame-options']).toBe('DENY');
    const long = await t.inject({ method: 'GET', url: `/api/auth/wechat/qr/${'x'.repeat(90)}` });
    expect(errorOf(long)).toMatchObject({ code: 10113, details: [{ field: 'ticket' }] });
  });
});

describe('WeChat binding', () => {
  it('requires sign-in to bind, poll a binding and unbind', async () => {
    for (const [method, url] of [
      ['POST', '/api/user/wechat/qr'],
      ['GET', '/api/user/wechat/qr/abc'],
      ['DELETE', '/api/user/wechat'],
    ] as const) {
      const res = await t.inject({ method, url });
      expect(res.statusCode, url).toBe(403);
    }
  });

  it("does not let one user poll another user's binding ticket", async () => {
    const a = await t.createUser();
    const b = await t.createUser();
    const { ticket } = await newTicket(a.token);
    const res = await t.inject({ method: 'GET', url: `/api/user/wechat/qr/${ticket}`, token: b.token });
    expect(errorOf(res).code).toBe(20123);
  });

  it('refuses an openid bound to another account', async () => {
    const a = await t.createUser();
    const b = await t.createUser();
    await bind(a.token, 'openid-shared');
    const { ticket } = await newTicket(b.token);
    await callback({ code: wx.issueCode('openid-shared'), state: ticket });
    const res = await t.inject({ method: 'GET', url: `/api/user/wechat/qr/${ticket}`, token: b.token });
    expect(errorOf(res).code).toBe(20128);
  });

  it('unbinds, then signing in with that WeChat user fails', async () => {
    const u = await t.createUser();
    await bind(u.token, 'openid-bob');
    const res = await t.inject({ method: 'DELETE', url: '/api/user/wechat', token: u.token });
    expect(res.json()).toEqual({ status: true, data: null });
    const again = await t.inject({ method: 'DELETE', url: '/api/user/wechat', token: u.token });
    expect(errorOf(again).code).toBe(10118);
    const { ticket } = await newTicket();
    await callback({ code: wx.issueCode('openid-bob'), state: ticket });
    expect(errorOf(await poll(ticket)).code).toBe(20128);
  });
});

describe('WeChat credentials from system settings', () => {
  it('uses the encrypted settings when the environment has none; the stored secret is not plaintext', async () => {
    const other = await buildTestApp({
      config: { wechat: { oauthUrl: 'https://open.example.com', apiUrl: wx.url } },
    });
    try {
      const before = await other.inject({ method: 'POST', url: '/api/auth/wechat/qr' });
      expect(errorOf(before).code).toBe(20128);
      const { db, box } = other.app.deps;
      await setSetting(db, box, SETTING_KEYS.wechatAppid, wx.appid);
      await setSetting(db, box, SETTING_KEYS.wechatSecret, wx.secret, { secret: true });
      const [row] = await db
        .select()
        .from(systemSettings)
        .where(eq(systemSettings.key, SETTING_KEYS.wechatSecret));
      expect(row?.secret).toBe(true);
      expect(row?.value).not.toContain(wx.secret);

      const u = await other.createUser();
      const created = await other.inject({ method: 'POST', url: '/api/user/wechat/qr', token: u.token });
      const { ticket } = created.json().data as { ticket: string };
      await other.inject({
        method: 'GET',
        url: '/api/auth/wechat/callback',
        query: { code: wx.issueCode('openid-carol'), state: ticket },
      });
      const res = await other.inject({ method: 'GET', url: `/api/user/wechat/qr/${ticket}`, token: u.token });
      expect(res.statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });
});
