import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { menuNamesForRole } from '@cellhub/contract/routes';
import { userInfo } from '@cellhub/contract/auth';
import { buildTestApp, errorOf, USER_PASSWORD, type TestApp } from '../../test/app';
import { auditLogs } from '../audit/audit.table';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

async function auditActions(uid: number): Promise<string[]> {
  const rows = await t.app.deps.db.select().from(auditLogs).where(eq(auditLogs.uid, uid));
  return rows.map((r) => r.action);
}

describe('GET /api/user/info', () => {
  it('answers the seed fields with role admin for the super user', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/user/info', token: await t.adminToken() });
    expect(res.statusCode).toBe(200);
    const data = userInfo.parse(res.json().data);
    expect(data).toMatchObject({
      username: 'admin',
      role: 'admin',
      certification: 'pass',
      wechat_bound: false,
    });
  });

  it('answers role user for a registered account', async () => {
    const u = await t.createUser();
    const res = await t.inject({ method: 'GET', url: '/api/user/info', token: u.token });
    expect(res.json().data).toMatchObject({
      uid: u.uid,
      role: 'user',
      accountId: String(u.uid),
      name: u.username,
    });
  });
});

describe('POST /api/user/menu', () => {
  it("answers the menu of the caller's role", async () => {
    const admin = await t.inject({ method: 'POST', url: '/api/user/menu', token: await t.adminToken() });
    expect(admin.json().data).toEqual(menuNamesForRole('admin'));
    const u = await t.createUser();
    const user = await t.inject({ method: 'POST', url: '/api/user/menu', token: u.token });
    expect(user.json().data).toEqual(menuNamesForRole('user'));
    expect(user.json().data).not.toContain('SystemUsers');
    expect(admin.json().data).toContain('SystemUsers');
  });
});

describe('PUT /api/user/password', () => {
  it('answers 31004 for a wrong old password', async () => {
    const u = await t.createUser();
    const res = await t.inject({
      method: 'PUT',
      url: '/api/user/password',
      token: u.token,
      payload: { old_password: 'Wrong123', new_password: 'Better123', confirm_password: 'Better123' },
    });
    expect(errorOf(res)).toEqual({ code: 31004, message: 'Old password is wrong' });
  });

  it('answers 11013 "Inconsistent entry of two new passwords"', async () => {
    const u = await t.createUser();
    const res = await t.inject({
      method: 'PUT',
      url: '/api/user/password',
      token: u.token,
      payload: { old_password: USER_PASSWORD, new_password: 'Better123', confirm_password: 'Better124' },
    });
    expect(errorOf(res)).toEqual({ code: 11013, message: 'Inconsistent entry of two new passwords' });
  });

  it('checks the new password against the rules (10113 on new_password)', async () => {
    const u = await t.createUser();
    const res = await t.inject({
      method: 'PUT',
      url: '/api/user/password',
      token: u.token,
      payload: { old_password: USER_PASSWORD, new_password: 'weak', confirm_password: 'weak' },
    });
    expect(errorOf(res)).toMatchObject({ code: 10113, details: [{ field: 'new_password' }] });
  });

  it('changes it, signs out every session of the user, audits', async () => {
    const u = await t.createUser();
    const second = await t.login(u.username, USER_PASSWORD);
    const res = await t.inject({
      method: 'PUT',
      url: '/api/user/password',
      token: u.token,
      payload: { old_password: USER_PASSWORD, new_password: 'Better123', confirm_password: 'Better123' },
    });
    expect(res.json()).toEqual({ status: true, data: null });
    for (const token of [u.token, second.token]) {
      const info = await t.inject({ method: 'GET', url: '/api/user/info', token });
      expect(info.statusCode).toBe(403);
    }
    await expect(t.login(u.username, USER_PASSWORD)).rejects.toThrow();
    await t.login(u.username, 'Better123');
    expect(await auditActions(u.uid)).toContain('password_change');
  });

  it('counts wrong old passwords like failed sign-ins (429 after 5)', async () => {
    const u = await t.createUser();
    t.clock.toNextDay(3_600_000);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await t.inject({
        method: 'PUT',
        url: '/api/user/password',
        token: u.token,
        payload: { old_password: 'Wrong123', new_password: 'Better123', confirm_password: 'Better123' },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
  });
});

describe('PUT /api/user/phone', () => {
  it('changes the phone with a code sent to the new number, audits', async () => {
    const u = await t.createUser();
    const phone = '13700000001';
    const send = await t.inject({
      method: 'POST',
      url: '/api/user/smscode',
      token: u.token,
      payload: { phone },
    });
    expect(send.statusCode).toBe(200);
    const res = await t.inject({
      method: 'PUT',
      url: '/api/user/phone',
      token: u.token,
      payload: { phone, captcha: t.sms.lastCode(phone) },
    });
    expect(res.json()).toEqual({ status: true, data: null });
    const info = await t.inject({ method: 'GET', url: '/api/user/info', token: u.token });
    expect(info.json().data.phone).toBe(phone);
    expect(await auditActions(u.uid)).toContain('phone_change');

    // Same number again: 20125, both when asking for a code and when changing.
    t.clock.advance(61_000);
    const same = await t.inject({
      method: 'POST',
      url: '/api/user/smscode',
      token: u.token,
      payload: { phone },
    });
    expect(errorOf(same).code).toBe(20125);
    const sameChange = await t.inject({
      method: 'PUT',
      url: '/api/user/phone',
      token: u.token,
      payload: { phone: `+86${phone}`, captcha: '123456' },
    });
    expect(errorOf(sameChange).code).toBe(20125);

    // Another account cannot take it, and is not told that someone holds it.
    const other = await t.createUser();
    t.clock.advance(61_000);
    const free = '13700000009';
    const asks = [];
    for (const number of [phone, free]) {
      const before = t.sms.sent.length;
      const res = await t.inject({
        method: 'POST',
        url: '/api/user/smscode',
        token: other.token,
        payload: { phone: number },
      });
      // The same answer and the same work (a code sent) for a taken and a free number.
      asks.push({
        status: res.statusCode,
        body: res.body,
        sent: t.sms.sent.slice(before).map((m) => m.phone),
      });
    }
    expect(asks).toEqual([
      { status: 200, body: '{"status":true,"data":null}', sent: [phone] },
      { status: 200, body: '{"status":true,"data":null}', sent: [free] },
    ]);
    // Without the code: a wrong code, as for any number.
    const code = t.sms.lastCode(phone)!;
    const guessed = await t.inject({
      method: 'PUT',
      url: '/api/user/phone',
      token: other.token,
      payload: { phone, captcha: code === '123456' ? '654321' : '123456' },
    });
    expect(errorOf(guessed).code).toBe(20121);
    // With it (only whoever holds the phone): refused with 20129; the number stays where it was.
    const takenChange = await t.inject({
      method: 'PUT',
      url: '/api/user/phone',
      token: other.token,
      payload: { phone, captcha: code },
    });
    expect(takenChange.statusCode).toBe(400);
    expect(errorOf(takenChange).code).toBe(20129);
    const owner = await t.inject({ method: 'GET', url: '/api/user/info', token: u.token });
    expect(owner.json().data.phone).toBe(phone);
    const mine = await t.inject({ method: 'GET', url: '/api/user/info', token: other.token });
    expect(mine.json().data.phone).not.toBe(phone);
    // The free number goes through with its code.
    const freeChange = await t.inject({
      method: 'PUT',
      url: '/api/user/phone',
      token: other.token,
      payload: { phone: free, captcha: t.sms.lastCode(free) },
    });
    expect(freeChange.json()).toEqual({ status: true, data: null });
  });

  it('answers 20121 for a wrong code and for a code sent for another purpose', async () => {
    const u = await t.createUser();
    const phone = '13700000002';
    await t.inject({ method: 'POST', url: '/api/user/smscode', payload: { phone, purpose: 'register' } });
    const registerCode = t.sms.lastCode(phone)!;
    const res = await t.inject({
      method: 'PUT',
      url: '/api/user/phone',
      token: u.token,
      payload: { phone, captcha: registerCode },
    });
    expect(errorOf(res).code).toBe(20121);
  });

  it('rejects bad input with 10113', async () => {
    const u = await t.createUser();
    const res = await t.inject({
      method: 'PUT',
      url: '/api/user/phone',
      token: u.token,
      payload: { phone: 'abc', captcha: '12' },
    });
    const fields = (errorOf(res).details as { field: string }[]).map((d) => d.field).sort();
    expect(fields).toEqual(['captcha', 'phone']);
  });
});

describe('PUT /api/user/profile', () => {
  it('updates the settings fields and answers the new info', async () => {
    const u = await t.createUser();
    const res = await t.inject({
      method: 'PUT',
      url: '/api/user/profile',
      token: u.token,
      payload: {
        nickname: 'Ada',
        email: 'ada@example.com',
        gender: 'female',
        birthday: '1990-12-10',
        country: 'China',
        area: 'Shanghai',
        address: 'No. 1 Road',
        profile: 'x'.repeat(200),
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      nickname: 'Ada',
      name: 'Ada',
      email: 'ada@example.com',
      gender: 'female',
      birthday: '1990-12-10',
      country: 'China',
      area: 'Shanghai',
      address: 'No. 1 Road',
    });
    const cleared = await t.inject({
      method: 'PUT',
      url: '/api/user/profile',
      token: u.token,
      payload: { birthday: null, email: '' },
    });
    expect(cleared.json().data).toMatchObject({ birthday: null, email: '', nickname: 'Ada' });
  });

  it('refuses a profile over 200 characters and a bad email with 10113', async () => {
    const u = await t.createUser();
    const res = await t.inject({
      method: 'PUT',
      url: '/api/user/profile',
      token: u.token,
      payload: { profile: 'x'.repeat(201), email: 'not-an-email', gender: 'robot' },
    });
    const fields = (errorOf(res).details as { field: string }[]).map((d) => d.field).sort();
    expect(fields).toEqual(['email', 'gender', 'profile']);
  });
});
