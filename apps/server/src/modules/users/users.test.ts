import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, USER_PASSWORD, type TestApp } from '../../test/app';
import { auditLogs } from '../audit/audit.table';

let t: TestApp;
let admin: string;
let adminUid: number;
beforeAll(async () => {
  t = await buildTestApp();
  const a = await t.login('admin', 'Admin123');
  admin = a.token;
  adminUid = a.uid;
});
afterAll(() => t.close());

describe('GET /api/users', () => {
  it('lists accounts with total and pagination', async () => {
    for (let i = 0; i < 3; i++) await t.createUser(`listme_${i}`);
    const res = await t.inject({
      method: 'GET',
      url: '/api/users',
      token: admin,
      query: { per_page: '2', current: '1' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe(true);
    expect(body.data).toHaveLength(2);
    expect(body.total).toBeGreaterThanOrEqual(4);
    const page2 = await t.inject({
      method: 'GET',
      url: '/api/users',
      token: admin,
      query: { per_page: '2', current: '2' },
    });
    expect(page2.json().data[0].uid).not.toBe(body.data[0].uid);
  });

  it('filters by keyword (escaping LIKE wildcards) and by disabled', async () => {
    const u = await t.createUser('findme_42');
    const res = await t.inject({
      method: 'GET',
      url: '/api/users',
      token: admin,
      query: { keyword: 'FINDME' },
    });
    expect(res.json().data.map((x: { uid: number }) => x.uid)).toEqual([u.uid]);
    const wildcard = await t.inject({
      method: 'GET',
      url: '/api/users',
      token: admin,
      query: { keyword: '%' },
    });
    expect(wildcard.json().total).toBe(0);
    await t.inject({ method: 'PUT', url: `/api/users/${u.uid}/disable`, token: admin });
    const disabled = await t.inject({
      method: 'GET',
      url: '/api/users',
      token: admin,
      query: { disabled: '1' },
    });
    expect(disabled.json().data.map((x: { uid: number }) => x.uid)).toContain(u.uid);
    const enabled = await t.inject({
      method: 'GET',
      url: '/api/users',
      token: admin,
      query: { disabled: '0' },
    });
    expect(enabled.json().data.map((x: { uid: number }) => x.uid)).not.toContain(u.uid);
  });

  it('rejects bad paging with 10113', async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/api/users',
      token: admin,
      query: { per_page: '1000', disabled: 'x' },
    });
    const fields = (errorOf(res).details as { field: string }[]).map((d) => d.field).sort();
    expect(fields).toEqual(['disabled', 'per_page']);
  });
});

describe('disable, enable, reset password', () => {
  it('disabling signs the user out at once; enabling lets them sign in again; both audited', async () => {
    const u = await t.createUser();
    const res = await t.inject({ method: 'PUT', url: `/api/users/${u.uid}/disable`, token: admin });
    expect(res.json()).toEqual({ status: true, data: null });
    const info = await t.inject({ method: 'GET', url: '/api/user/info', token: u.token });
    expect(info.statusCode).toBe(403);
    expect(errorOf(info).code).toBe(10102);
    await expect(t.login(u.username, USER_PASSWORD)).rejects.toThrow(/10103/);
    await t.inject({ method: 'PUT', url: `/api/users/${u.uid}/enable`, token: admin });
    await t.login(u.username, USER_PASSWORD);
    const rows = await t.app.deps.db.select().from(auditLogs).where(eq(auditLogs.uid, adminUid));
    expect(rows.map((r) => r.action)).toEqual(expect.arrayContaining(['user_disable', 'user_enable']));
  });

  it('refuses to disable yourself (10108)', async () => {
    const res = await t.inject({ method: 'PUT', url: `/api/users/${adminUid}/disable`, token: admin });
    expect(errorOf(res).code).toBe(10108);
  });

  it('answers 10107 for an unknown account', async () => {
    const res = await t.inject({ method: 'PUT', url: '/api/users/999999/enable', token: admin });
    expect(errorOf(res).code).toBe(10107);
  });

  it('resets a password: old sessions stop, the new password works, audited', async () => {
    const u = await t.createUser();
    const res = await t.inject({
      method: 'PUT',
      url: `/api/users/${u.uid}/password`,
      token: admin,
      payload: { new_password: 'Reset1234' },
    });
    expect(res.statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/user/info', token: u.token })).statusCode).toBe(403);
    await t.login(u.username, 'Reset1234');
    const rows = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.target, `user:${u.uid}`));
    expect(rows.map((r) => r.action)).toContain('user_password_reset');
  });

  it('checks the reset password against the rules and the id (10113)', async () => {
    const weak = await t.inject({
      method: 'PUT',
      url: '/api/users/2/password',
      token: admin,
      payload: { new_password: 'weak' },
    });
    expect(errorOf(weak)).toMatchObject({ code: 10113, details: [{ field: 'new_password' }] });
    const badId = await t.inject({ method: 'PUT', url: '/api/users/abc/disable', token: admin });
    expect(errorOf(badId)).toMatchObject({ code: 10113, details: [{ field: 'id' }] });
  });
});

describe('POST /api/users', () => {
  it('opens an account that can sign in, audited as the admin', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/users',
      token: admin,
      payload: { username: 'opened1', password: 'Opened123', nickname: 'Opened', phone: '13900001111' },
    });
    expect(res.statusCode).toBe(200);
    const { uid } = (res.json() as { data: { uid: number } }).data;
    const u = await t.login('opened1', 'Opened123');
    expect(u.uid).toBe(uid);
    const info = (await t.inject({ method: 'GET', url: '/api/user/info', token: u.token })).json() as {
      data: { role: string; nickname: string; phone: string };
    };
    expect(info.data).toMatchObject({ role: 'user', nickname: 'Opened', phone: '13900001111' });
    const rows = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.target, `user:${uid}`));
    expect(rows.map((r) => [r.action, r.uid])).toContainEqual(['user_create', adminUid]);
  });

  it('refuses a taken name (31003), a taken phone (20129) and weak passwords (10113)', async () => {
    const taken = await t.inject({
      method: 'POST',
      url: '/api/users',
      token: admin,
      payload: { username: 'ADMIN', password: 'Opened123' },
    });
    expect(errorOf(taken).code).toBe(31003);
    const phone = await t.inject({
      method: 'POST',
      url: '/api/users',
      token: admin,
      payload: { username: 'opened2', password: 'Opened123', phone: '+8613900001111' },
    });
    expect(errorOf(phone).code).toBe(20129);
    const weak = await t.inject({
      method: 'POST',
      url: '/api/users',
      token: admin,
      payload: { username: 'opened3', password: 'weak' },
    });
    expect(errorOf(weak).code).toBe(10113);
  });

  it('is not limited like public registration', async () => {
    for (let i = 0; i < 25; i++) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/users',
        token: admin,
        payload: { username: `bulk${i}`, password: 'Opened123' },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
  });
});

describe('PUT /api/users/:id', () => {
  it('changes role and contact fields, audited, and the new role counts on the next call', async () => {
    const u = await t.createUser('editme_1');
    const put = await t.inject({
      method: 'PUT',
      url: `/api/users/${u.uid}`,
      token: admin,
      payload: { role: 'admin', nickname: 'Ed', phone: '13900002222', email: 'ed@example.com' },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data).toMatchObject({
      uid: u.uid,
      role: 'admin',
      nickname: 'Ed',
      phone: '13900002222',
      email: 'ed@example.com',
    });
    // The user's existing token now opens admin routes.
    const asAdmin = await t.inject({ method: 'GET', url: '/api/users', token: u.token });
    expect(asAdmin.statusCode).toBe(200);
    const back = await t.inject({
      method: 'PUT',
      url: `/api/users/${u.uid}`,
      token: admin,
      payload: { role: 'user', phone: '', email: '' },
    });
    expect(back.json().data).toMatchObject({ role: 'user', phone: '', email: '' });
    expect(errorOf(await t.inject({ method: 'GET', url: '/api/users', token: u.token })).code).toBe(10108);
    const rows = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.target, `user:${u.uid}`));
    const updates = rows.filter((r) => r.action === 'user_update');
    expect(updates).toHaveLength(2);
    expect(updates[0]?.uid).toBe(adminUid);
    expect(updates[0]?.detail).toMatchObject({ changed: { role: { from: 'user', to: 'admin' } } });
  });

  it('refuses a taken phone (20129), bad fields and an empty body (10113), an unknown id (10107)', async () => {
    const a = await t.createUser('editme_2');
    const b = await t.createUser('editme_3');
    await t.inject({
      method: 'PUT',
      url: `/api/users/${a.uid}`,
      token: admin,
      payload: { phone: '13900003333' },
    });
    const taken = await t.inject({
      method: 'PUT',
      url: `/api/users/${b.uid}`,
      token: admin,
      payload: { phone: '+8613900003333' },
    });
    expect(errorOf(taken).code).toBe(20129);
    // Keeping one's own number is not a clash.
    const same = await t.inject({
      method: 'PUT',
      url: `/api/users/${a.uid}`,
      token: admin,
      payload: { phone: '13900003333', nickname: 'A' },
    });
    expect(same.statusCode, same.body).toBe(200);
    for (const payload of [{}, { email: 'not-an-email' }, { role: 'root' }, { phone: '123' }]) {
      const bad = await t.inject({ method: 'PUT', url: `/api/users/${b.uid}`, token: admin, payload });
      expect(errorOf(bad).code, JSON.stringify(payload)).toBe(10113);
    }
    const missing = await t.inject({
      method: 'PUT',
      url: '/api/users/999999',
      token: admin,
      payload: { nickname: 'x' },
    });
    expect(errorOf(missing).code).toBe(10107);
    expect(
      errorOf(
        await t.inject({
          method: 'PUT',
          url: `/api/users/${b.uid}`,
          token: a.token,
          payload: { role: 'admin' },
        }),
      ).code,
    ).toBe(10108);
  });

  it('never leaves the system without an enabled admin (31007)', async () => {
    // admin is the only enabled admin here: demoting itself is refused.
    const self = await t.inject({
      method: 'PUT',
      url: `/api/users/${adminUid}`,
      token: admin,
      payload: { role: 'user' },
    });
    expect(errorOf(self).code).toBe(31007);
    // A disabled admin does not count as one left.
    const off = await t.createUser('editme_off');
    await t.inject({ method: 'PUT', url: `/api/users/${off.uid}`, token: admin, payload: { role: 'admin' } });
    await t.inject({ method: 'PUT', url: `/api/users/${off.uid}/disable`, token: admin });
    expect(
      errorOf(
        await t.inject({
          method: 'PUT',
          url: `/api/users/${adminUid}`,
          token: admin,
          payload: { role: 'user' },
        }),
      ).code,
    ).toBe(31007);
    // With a second enabled admin, an admin may step down; the admin keeps the role here.
    const second = await t.createUser('editme_admin');
    await t.inject({
      method: 'PUT',
      url: `/api/users/${second.uid}`,
      token: admin,
      payload: { role: 'admin' },
    });
    const stepDown = await t.inject({
      method: 'PUT',
      url: `/api/users/${second.uid}`,
      token: second.token,
      payload: { role: 'user' },
    });
    expect(stepDown.statusCode, stepDown.body).toBe(200);
    expect(stepDown.json().data.role).toBe('user');
  });
});
