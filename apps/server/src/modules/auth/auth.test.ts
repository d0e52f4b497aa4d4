import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_PASSWORD, buildTestApp, errorOf, USER_PASSWORD, type TestApp } from '../../test/app';
import { auditLogs } from '../audit/audit.table';
import { countOf, LIMITS, loginDelayMs } from '../rate-limit/rate-limit.service';
import { sessions, smsCodes } from './auth.table';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

let ipCounter = 0;
/** Each test signs in from its own address so the per-address limits of one do not leak into another. */
const freshIp = () => `10.0.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

async function auditActions(uid: number): Promise<string[]> {
  const rows = await t.app.deps.db.select().from(auditLogs).where(eq(auditLogs.uid, uid));
  return rows.map((r) => r.action);
}

describe('POST /api/auth/login', () => {
  it('signs the admin in as super and writes an audit row', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'admin', password: ADMIN_PASSWORD },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe(true);
    expect(body.data).toMatchObject({ issuper: true });
    expect(body.data.token).toMatch(/^[\w-]{40,}$/);
    // Only the hash is stored.
    const rows = await t.app.deps.db.select().from(sessions).where(eq(sessions.uid, body.data.uid));
    expect(rows.some((r) => r.tokenHash === body.data.token)).toBe(false);
    expect(await auditActions(body.data.uid)).toContain('sign_in');
  });

  it('signs a user in as not super; the username is case-insensitive', async () => {
    const u = await t.createUser();
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: u.username.toUpperCase(), password: USER_PASSWORD },
    });
    expect(res.json().data).toMatchObject({ uid: u.uid, issuper: false });
  });

  it('answers 31001 for a wrong password or an unknown user, and audits the failure', async () => {
    const u = await t.createUser();
    const wrong = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: u.username, password: 'Wrong123' },
    });
    expect(wrong.statusCode).toBe(400);
    expect(errorOf(wrong)).toEqual({ code: 31001, message: 'Login error: wrong username or password' });
    const unknown = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'nobody_here', password: 'Wrong123' },
    });
    expect(errorOf(unknown).code).toBe(31001);
    expect(await auditActions(u.uid)).toContain('sign_in_failed');
  });

  it('rejects bad input with 10113 and the fields', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'a', password: 5 },
    });
    expect(errorOf(res).code).toBe(10113);
    expect(errorOf(res).details).toEqual([expect.objectContaining({ field: 'password' })]);
  });

  it('limits failures per account and address: 429 after 5 from one address, for 15 minutes', async () => {
    const u = await t.createUser();
    const ip = freshIp();
    t.clock.toNextDay(3_600_000);
    const attempt = (password: string, remoteAddress = ip) =>
      t.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress,
        payload: { username: u.username, password },
      });
    for (let i = 0; i < 5; i++) expect(errorOf(await attempt('Wrong123')).code).toBe(31001);
    // Even the right password, from that address.
    const limited = await attempt(USER_PASSWORD);
    expect(limited.statusCode).toBe(429);
    expect(errorOf(limited).code).toBe(10104);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    t.clock.advance(15 * 60_000);
    expect((await attempt(USER_PASSWORD)).statusCode).toBe(200);
  });

  it('never locks the owner out: guesses from other addresses only slow the account down', async () => {
    const u = await t.createUser();
    t.clock.toNextDay(7_200_000);
    const attempt = (remoteAddress: string, password: string) =>
      t.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress,
        payload: { username: u.username, password },
      });
    // One attacking address is stopped after 5 guesses; a second one goes on, slowed (250 ms, 500 ms).
    const [first, second] = [freshIp(), freshIp()];
    for (let i = 0; i < 5; i++) expect((await attempt(first, `Guess${i}xyz`)).statusCode).toBe(400);
    expect((await attempt(first, 'Guess5xyz')).statusCode).toBe(429);
    for (let i = 0; i < 2; i++) expect((await attempt(second, `More${i}xyz`)).statusCode).toBe(400);
    const failures = await countOf(t.app.deps.db, LIMITS.loginAccount(u.username), t.clock.now());
    expect(failures).toBe(7);
    const started = performance.now();
    const owner = await attempt(freshIp(), USER_PASSWORD);
    expect(owner.statusCode).toBe(200);
    expect(owner.json().data.uid).toBe(u.uid);
    // Slowed by the account's failures, not refused.
    expect(loginDelayMs(failures)).toBe(1000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(loginDelayMs(failures) - 5);
  });

  it('slows an account down more the more it is guessed at, up to 4 s', () => {
    expect([0, 4, 5, 6, 7, 9, 10, 100].map(loginDelayMs)).toEqual([0, 0, 250, 500, 1000, 4000, 4000, 4000]);
  });

  it('refuses sign-in (503 / 10105) and logs it when the limiter cannot record a failure', async () => {
    const log = vi.spyOn(t.app.deps.log, 'error');
    await t.app.deps.db.execute(sql`alter table rate_limits rename to rate_limits_away`);
    try {
      const res = await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: freshIp(),
        payload: { username: 'admin', password: 'Wrong123' },
      });
      expect(res.statusCode).toBe(503);
      expect(errorOf(res).code).toBe(10105);
      const phone = await t.inject({
        method: 'POST',
        url: '/api/auth/login/phone',
        remoteAddress: freshIp(),
        payload: { phone: '13800000009', captcha: '123456' },
      });
      expect(phone.statusCode).toBe(503);
      expect(errorOf(phone).code).toBe(10105);
      expect(log.mock.calls.map((c) => c[1])).toContain(
        'rate limiter failed (sign-in check): request refused',
      );
    } finally {
      await t.app.deps.db.execute(sql`alter table rate_limits_away rename to rate_limits`);
      log.mockRestore();
    }
  });

  it('refuses sign-in when only the write of a failure fails', async () => {
    const u = await t.createUser();
    // Reads succeed, the failure's insert does not: a trigger that refuses new counters.
    await t.app.deps.db.execute(sql`create function refuse_counter() returns trigger language plpgsql as
      $$ begin raise exception 'counter store is full'; end $$`);
    await t.app.deps.db.execute(
      sql`create trigger refuse_counter before insert or update on rate_limits for each row execute function refuse_counter()`,
    );
    const log = vi.spyOn(t.app.deps.log, 'error');
    try {
      const res = await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: freshIp(),
        payload: { username: u.username, password: 'Wrong123' },
      });
      expect(res.statusCode).toBe(503);
      expect(errorOf(res).code).toBe(10105);
      expect(log.mock.calls.map((c) => c[1])).toContain(
        'rate limiter failed (sign-in failure): request refused',
      );
    } finally {
      await t.app.deps.db.execute(sql`drop trigger refuse_counter on rate_limits`);
      await t.app.deps.db.execute(sql`drop function refuse_counter()`);
      log.mockRestore();
    }
    // And works again once it can record.
    const again = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: freshIp(),
      payload: { username: u.username, password: USER_PASSWORD },
    });
    expect(again.statusCode).toBe(200);
  });

  it('limits failures per address to 30 in 15 minutes', async () => {
    const ip = freshIp();
    t.clock.toNextDay(3_600_000);
    let last = 0;
    for (let i = 0; i < 31; i++) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: ip,
        payload: { username: `ghost${i}`, password: 'Wrong123' },
      });
      last = res.statusCode;
      if (i < 30) expect(errorOf(res).code).toBe(31001);
    }
    expect(last).toBe(429);
  });

  it('answers 10103 for a disabled account with the right password', async () => {
    const u = await t.createUser();
    const admin = await t.adminToken();
    await t.inject({ method: 'PUT', url: `/api/users/${u.uid}/disable`, token: admin });
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: u.username, password: USER_PASSWORD },
    });
    expect(errorOf(res)).toEqual({ code: 10103, message: 'This account has been disabled' });
  });
});

describe('POST /api/auth/logout', () => {
  it('requires sign-in', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/auth/logout' });
    expect(res.statusCode).toBe(403);
    expect(errorOf(res).code).toBe(10102);
  });

  it('revokes the token at once, keeps other sessions, audits', async () => {
    const u = await t.createUser();
    const other = await t.login(u.username, USER_PASSWORD);
    const res = await t.inject({ method: 'POST', url: '/api/auth/logout', token: u.token });
    expect(res.json()).toEqual({ status: true, data: null });
    const after = await t.inject({ method: 'GET', url: '/api/user/info', token: u.token });
    expect(after.statusCode).toBe(403);
    expect(errorOf(after).code).toBe(10102);
    const still = await t.inject({ method: 'GET', url: '/api/user/info', token: other.token });
    expect(still.statusCode).toBe(200);
    expect(await auditActions(u.uid)).toContain('sign_out');
  });

  it('accepts an empty JSON body', async () => {
    const u = await t.createUser();
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/logout',
      token: u.token,
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(res.statusCode).toBe(200);
  });
});

describe('tokens expire', () => {
  it('refuses a token after TOKEN_TTL_HOURS', async () => {
    const u = await t.createUser();
    t.clock.advance(t.app.deps.config.tokenTtlHours * 3_600_000 + 1000);
    const res = await t.inject({ method: 'GET', url: '/api/user/info', token: u.token });
    expect(res.statusCode).toBe(403);
  });
});

describe('POST /api/auth/register', () => {
  it('creates a user account and audits it', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { username: 'newbie_1', password: 'Newbie123', password2: 'Newbie123' },
    });
    expect(res.statusCode).toBe(200);
    const uid = res.json().data.uid as number;
    expect(uid).toBeGreaterThan(0);
    expect(await auditActions(uid)).toContain('register');
    const info = await t.inject({
      method: 'GET',
      url: '/api/user/info',
      token: (await t.login('newbie_1', 'Newbie123')).token,
    });
    expect(info.json().data).toMatchObject({ role: 'user', username: 'newbie_1' });
  });

  it('answers 11013 when the passwords differ', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { username: 'newbie_2', password: 'Newbie123', password2: 'Newbie124' },
    });
    expect(errorOf(res).code).toBe(11013);
  });

  it('answers 31003 for a taken username, whatever its case', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { username: 'ADMIN', password: 'Newbie123', password2: 'Newbie123' },
    });
    expect(errorOf(res).code).toBe(31003);
  });

  it('answers 10113 naming the field when the password breaks the rules', async () => {
    for (const password of ['short', 'alllowercase1', 'ALLUPPER1', 'NoDigitsHere', 'Has space1A']) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username: 'newbie_3', password, password2: password },
      });
      const err = errorOf(res);
      expect(err.code, password).toBe(10113);
      expect(err.details).toEqual([{ field: 'password', message: 'password_rule' }]);
    }
  });

  it('with a phone: needs a code (20119), checks it (20121), binds the phone', async () => {
    const phone = '13800000001';
    const base = { username: 'phoned_1', password: 'Phoned123', password2: 'Phoned123', phone };
    const noCode = await t.inject({ method: 'POST', url: '/api/auth/register', payload: base });
    expect(errorOf(noCode).code).toBe(20119);
    await t.inject({ method: 'POST', url: '/api/user/smscode', payload: { phone, purpose: 'register' } });
    const code = t.sms.lastCode(phone)!;
    const wrong = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { ...base, captcha: code === '000000' ? '111111' : '000000' },
    });
    expect(errorOf(wrong).code).toBe(20121);
    const ok = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { ...base, captcha: code },
    });
    expect(ok.statusCode).toBe(200);
    const token = (await t.login('phoned_1', 'Phoned123')).token;
    const info = await t.inject({ method: 'GET', url: '/api/user/info', token });
    expect(info.json().data.phone).toBe(phone);
    // The number is now taken: the next registration with it learns so once it proves it holds the phone.
    t.clock.advance(61_000);
    await t.inject({ method: 'POST', url: '/api/user/smscode', payload: { phone, purpose: 'register' } });
    const again = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { ...base, username: 'phoned_2', captcha: t.sms.lastCode(phone) },
    });
    expect(errorOf(again).code).toBe(20129);
  });
});

describe('POST /api/user/smscode and POST /api/auth/login/phone', () => {
  async function userWithPhone(phone: string) {
    const u = await t.createUser();
    await t.inject({
      method: 'POST',
      url: '/api/user/smscode',
      token: u.token,
      payload: { phone, purpose: 'change_phone' },
    });
    const res = await t.inject({
      method: 'PUT',
      url: '/api/user/phone',
      token: u.token,
      payload: { phone, captcha: t.sms.lastCode(phone) },
    });
    expect(res.statusCode).toBe(200);
    t.clock.advance(61_000);
    return u;
  }

  it('needs sign-in for a phone-change code', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/user/smscode',
      payload: { phone: '13800000002', purpose: 'change_phone' },
    });
    expect(res.statusCode).toBe(403);
    expect(errorOf(res).code).toBe(10102);
  });

  it('rejects a malformed phone with 10113', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/user/smscode',
      payload: { phone: '12345', purpose: 'login' },
    });
    expect(errorOf(res)).toMatchObject({ code: 10113, details: [{ field: 'phone', message: 'phone_rule' }] });
  });

  it('does the same work whether a phone has an account or not: one stored code, one SMS, the same answer', async () => {
    const withAccount = '13800000013';
    await userWithPhone(withAccount);
    const none = '13800000003';
    const codeRows = async (phone: string, purpose: string) =>
      (await t.app.deps.db.select().from(smsCodes).where(eq(smsCodes.phone, phone))).filter(
        (r) => r.purpose === purpose,
      ).length;
    for (const purpose of ['login', 'register'] as const) {
      const seen = [];
      for (const phone of [withAccount, none]) {
        const [rowsBefore, sentBefore] = [await codeRows(phone, purpose), t.sms.sent.length];
        const res = await t.inject({ method: 'POST', url: '/api/user/smscode', payload: { phone, purpose } });
        // The work behind the answer: a code stored and handed to the SMS provider, for either number.
        seen.push({
          status: res.statusCode,
          body: res.body,
          rows: (await codeRows(phone, purpose)) - rowsBefore,
          sent: t.sms.sent.slice(sentBefore).map((m) => m.phone === phone && m.templateKey),
        });
      }
      expect(seen[0], purpose).toEqual({
        status: 200,
        body: '{"status":true,"data":null}',
        rows: 1,
        sent: ['verification_code'],
      });
      expect(seen[1], purpose).toEqual(seen[0]);
      t.clock.advance(61_000);
    }
    // The sign-in code sent to a number without an account signs nobody in: 20121, like a wrong code.
    await t.inject({ method: 'POST', url: '/api/user/smscode', payload: { phone: none, purpose: 'login' } });
    const login = await t.inject({
      method: 'POST',
      url: '/api/auth/login/phone',
      payload: { phone: none, captcha: t.sms.lastCode(none) },
    });
    expect(errorOf(login).code).toBe(20121);
    // Registration codes: a taken number is named only to whoever holds its code.
    t.clock.advance(61_000);
    await t.inject({
      method: 'POST',
      url: '/api/user/smscode',
      payload: { phone: withAccount, purpose: 'register' },
    });
    const base = { username: 'taker_1', password: 'Taker123', password2: 'Taker123', phone: withAccount };
    const guess = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { ...base, captcha: t.sms.lastCode(withAccount) === '000001' ? '000002' : '000001' },
    });
    expect(errorOf(guess).code).toBe(20121);
    const holder = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { ...base, captcha: t.sms.lastCode(withAccount) },
    });
    expect(errorOf(holder).code).toBe(20129);
  });

  it('signs in with a code once; the code is stored hashed', async () => {
    const phone = '13800000004';
    const u = await userWithPhone(phone);
    const send = await t.inject({
      method: 'POST',
      url: '/api/user/smscode',
      payload: { phone: `+86${phone}`, purpose: 'login' },
    });
    expect(send.json()).toEqual({ status: true, data: null });
    const code = t.sms.lastCode(phone)!;
    expect(code).toMatch(/^\d{6}$/);
    const rows = await t.app.deps.db.select().from(smsCodes).where(eq(smsCodes.phone, phone));
    expect(rows.every((r) => !r.codeHash.includes(code))).toBe(true);
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/login/phone',
      payload: { phone, captcha: code },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ uid: u.uid, issuper: false });
    const reuse = await t.inject({
      method: 'POST',
      url: '/api/auth/login/phone',
      payload: { phone, captcha: code },
    });
    expect(errorOf(reuse).code).toBe(20121);
  });

  it('allows 5 attempts per code, then refuses even the right one', async () => {
    const phone = '13800000005';
    await userWithPhone(phone);
    await t.inject({ method: 'POST', url: '/api/user/smscode', payload: { phone, purpose: 'login' } });
    const code = t.sms.lastCode(phone)!;
    const wrong = code === '999999' ? '888888' : '999999';
    for (let i = 0; i < 5; i++) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/auth/login/phone',
        payload: { phone, captcha: wrong },
      });
      expect(errorOf(res).code).toBe(20121);
    }
    const right = await t.inject({
      method: 'POST',
      url: '/api/auth/login/phone',
      payload: { phone, captcha: code },
    });
    expect(errorOf(right).code).toBe(20121);
  });

  it('expires codes after 5 minutes', async () => {
    const phone = '13800000006';
    await userWithPhone(phone);
    await t.inject({ method: 'POST', url: '/api/user/smscode', payload: { phone, purpose: 'login' } });
    const code = t.sms.lastCode(phone)!;
    t.clock.advance(5 * 60_000 + 1000);
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/login/phone',
      payload: { phone, captcha: code },
    });
    expect(errorOf(res).code).toBe(20121);
  });

  it('sends one code per phone per minute and 10 per day (429 + Retry-After)', async () => {
    const phone = '13800000007';
    const ip = freshIp();
    t.clock.toNextDay(3_600_000);
    const send = () =>
      t.inject({
        method: 'POST',
        url: '/api/user/smscode',
        remoteAddress: ip,
        payload: { phone, purpose: 'register' },
      });
    expect((await send()).statusCode).toBe(200);
    const soon = await send();
    expect(soon.statusCode).toBe(429);
    expect(errorOf(soon).code).toBe(10104);
    expect(Number(soon.headers['retry-after'])).toBeGreaterThan(0);
    let sent = 1;
    let refused = 0;
    // Step a minute at a time: at most 10 codes fit in one calendar day window.
    for (let i = 0; i < 12; i++) {
      t.clock.advance(61_000);
      const res = await send();
      if (res.statusCode === 200) sent++;
      else refused++;
    }
    expect(sent).toBe(10);
    expect(refused).toBe(3);
  });

  it('limits codes per address to 20 an hour', async () => {
    const ip = freshIp();
    t.clock.toNextDay(3_600_000);
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/user/smscode',
        remoteAddress: ip,
        payload: { phone: `1390000${String(i).padStart(4, '0')}`, purpose: 'register' },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it('answers 10103 for a disabled account after a right code', async () => {
    const phone = '13800000008';
    const u = await userWithPhone(phone);
    await t.inject({ method: 'PUT', url: `/api/users/${u.uid}/disable`, token: await t.adminToken() });
    await t.inject({ method: 'POST', url: '/api/user/smscode', payload: { phone, purpose: 'login' } });
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/login/phone',
      payload: { phone, captcha: t.sms.lastCode(phone) },
    });
    expect(errorOf(res).code).toBe(10103);
  });
});

afterEach(() => {
  // Keep each test's clock moves from leaking windows into the next test's expectations.
  t.clock.advance(24 * 3_600_000);
});
