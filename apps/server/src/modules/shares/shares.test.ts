import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type {
  IncomingShareItem,
  OutgoingShareItem,
  ShareLinkCreated,
  ShareLinkItem,
  ShareLinkPreview,
} from '@cellhub/contract/shares';
import type { InboxItem } from '@cellhub/contract/inbox';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { alertDevices, createTrigger, historyOf, report } from '../../test/alerts-test-kit';
import { createDevices } from '../../test/gateway-test-kit';
import { onPostgres } from '../../test/shared-store';
import { listenUrl, openSocket, type TestSocket } from '../../test/ws-test-client';
import { maskPhone } from './shares.service';
import { devices } from '../devices/devices.table';

const rowsOf = <T>(res: unknown): T[] => (res as { rows: T[] }).rows;

let t: TestApp;
type U = { uid: number; token: string; username: string };
let owner: U;
let bob: U;
let carol: U;
let wsUrl: string;

const data = <T>(res: { statusCode: number; body: string; json(): unknown }): T => {
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  return (res.json() as { data: T }).data;
};
const code = (res: Parameters<typeof errorOf>[0]) => (res.statusCode === 200 ? 0 : errorOf(res).code);

const share = (token: string, payload: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: '/api/shares', token, payload });
const outgoing = (token: string, q = '') =>
  t.inject({ method: 'GET', url: `/api/shares/outgoing${q}`, token });
const incoming = (token: string, q = '') =>
  t.inject({ method: 'GET', url: `/api/shares/incoming${q}`, token });
const detail = (token: string, sn: string) => t.inject({ method: 'GET', url: `/api/devices/${sn}`, token });

async function shareIdOf(sn: string, toUid: number): Promise<number> {
  const rows = data<OutgoingShareItem[]>(await outgoing(owner.token, `?sn=${sn}&per_page=100`));
  const row = rows.find((r) => r.to_uid === toUid);
  if (!row) throw new Error(`no share of ${sn} to ${toUid}`);
  return row.id;
}

beforeAll(async () => {
  t = await buildTestApp();
  owner = await t.createUser();
  bob = await t.createUser();
  carol = await t.createUser();
  await createDevices(t, owner.token, ['SHR001', 'SHR002', 'SHR003', 'SHR004', 'SHR005']);
  await createDevices(t, bob.token, ['SHRBOB1']);
  wsUrl = await listenUrl(t.app);
});
afterAll(async () => {
  await t.close();
});

describe('direct shares', () => {
  it('shares by username, lists both ways, marks the device and tells the receiver', async () => {
    const res = await share(owner.token, { sns: ['SHR001', 'SHR002'], to: bob.username, right: 'view' });
    expect(data(res)).toEqual({ created: 2, updated: 0 });

    const out = data<OutgoingShareItem[]>(await outgoing(owner.token, '?sn=SHR001'));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ sn: 'SHR001', to_uid: bob.uid, to_username: bob.username, right: 'view' });
    expect(out[0]!.expired).toBe(false);
    // Both lists name the device's product key, which its detail page's address starts with.
    const [device] = await t.app.deps.db.select().from(devices).where(eq(devices.sn, 'SHR001'));
    expect(out[0]!.product_key).toBe(device!.productKey);

    const inc = data<IncomingShareItem[]>(await incoming(bob.token, '?keyword=SHR00'));
    expect(inc.map((r) => r.sn).sort()).toEqual(['SHR001', 'SHR002']);
    expect(inc[0]!.owner_username).toBe(owner.username);
    expect(inc.every((r) => r.product_key === device!.productKey)).toBe(true);

    // The receiver sees the device, without its secret, marked with the share.
    const d = data<Record<string, unknown>>(await detail(bob.token, 'SHR001'));
    expect(d.sn).toBe('SHR001');
    expect(d.secret === undefined || d.secret === '').toBe(true);
    expect(d.share).toEqual({ right: 'view', owner: owner.username, expires_at: null });
    const list = data<{ sn: string; share?: unknown }[]>(
      await t.inject({ method: 'GET', url: '/api/devices?per_page=100', token: bob.token }),
    );
    expect(list.map((r) => r.sn).sort()).toEqual(['SHR001', 'SHR002', 'SHRBOB1']);
    expect(list.find((r) => r.sn === 'SHRBOB1')!.share ?? null).toBeNull();
    expect(list.find((r) => r.sn === 'SHR002')!.share).toMatchObject({
      right: 'view',
      owner: owner.username,
    });

    const inbox = data<InboxItem[]>(await t.inject({ method: 'GET', url: '/api/inbox', token: bob.token }));
    expect(inbox[0]).toMatchObject({ kind: 'share_received', category: 'alert' });
    expect(inbox[0]!.params).toMatchObject({ from: owner.username, count: 2, right: 'view' });
  });

  it('counts shared devices on the dashboard like the list does', async () => {
    const overview = data<{ device_total: number }>(
      await t.inject({ method: 'GET', url: '/api/dashboard/overview', token: bob.token }),
    );
    const list = await t.inject({ method: 'GET', url: '/api/devices?per_page=100', token: bob.token });
    expect(overview.device_total).toBe((list.json() as { total: number }).total);
    expect(overview.device_total).toBe(3);
  });

  it('re-sharing updates right and expiry instead of adding a row', async () => {
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    const res = await share(owner.token, {
      sns: ['SHR001', 'SHR003'],
      to: bob.username,
      right: 'control',
      expires_at: expires,
    });
    expect(data(res)).toEqual({ created: 1, updated: 1 });
    const out = data<OutgoingShareItem[]>(await outgoing(owner.token, '?sn=SHR001'));
    expect(out).toHaveLength(1);
    expect(out[0]!.right).toBe('control');
    expect(out[0]!.expires_at).toBe(expires);
  });

  it('finds the receiver by phone, and masks the phone in the list', async () => {
    await t.app.deps.db.execute(sql`update users set phone = '13912345678' where id = ${carol.uid}`);
    expect(
      data(await share(owner.token, { sns: ['SHR004'], to: '+86 139 1234 5678', right: 'view' })),
    ).toEqual({
      created: 1,
      updated: 0,
    });
    const out = data<OutgoingShareItem[]>(await outgoing(owner.token, '?sn=SHR004'));
    expect(out[0]).toMatchObject({ to_uid: carol.uid, to_phone: '139****5678' });
    expect(maskPhone('+4915112345678')).toBe('+49*******5678');
  });

  it('refuses yourself (10212), unknown or disabled accounts and devices not yours (10210), all or nothing', async () => {
    expect(code(await share(owner.token, { sns: ['SHR005'], to: owner.username, right: 'view' }))).toBe(
      10212,
    );
    expect(code(await share(owner.token, { sns: ['SHR005'], to: 'nobody-here', right: 'view' }))).toBe(10210);
    const dave = await t.createUser();
    await t.app.deps.db.execute(sql`update users set disabled = true where id = ${dave.uid}`);
    expect(code(await share(owner.token, { sns: ['SHR005'], to: dave.username, right: 'view' }))).toBe(10210);
    // One device of someone else: nothing is shared.
    expect(
      code(await share(owner.token, { sns: ['SHR005', 'SHRBOB1'], to: carol.username, right: 'view' })),
    ).toBe(10210);
    expect(data<OutgoingShareItem[]>(await outgoing(owner.token, '?sn=SHR005'))).toEqual([]);
    // A share holder never re-shares, even with control right.
    expect(code(await share(bob.token, { sns: ['SHR001'], to: carol.username, right: 'view' }))).toBe(10210);
    // Missing devices, bad input.
    expect(code(await share(owner.token, { sns: ['NOPE404'], to: bob.username, right: 'view' }))).toBe(10210);
    expect(code(await share(owner.token, { sns: [], to: bob.username, right: 'view' }))).toBe(10113);
    expect(code(await share(owner.token, { sns: ['SHR005'], to: bob.username, right: 'admin' }))).toBe(10113);
    expect(
      code(
        await share(owner.token, { sns: ['SHR005'], to: bob.username, right: 'view', expires_at: 'soon' }),
      ),
    ).toBe(10113);
    expect(
      code(
        await share(owner.token, {
          sns: ['SHR005'],
          to: bob.username,
          right: 'view',
          expires_at: '2001-01-01T00:00:00Z',
        }),
      ),
    ).toBe(10113);
    expect(code(await share(owner.token, { sns: ['SHR005'], to: 'a\u0000b', right: 'view' }))).toBe(10113);
  });

  it('lets an admin share for the owner; the share is the owner\u2019s', async () => {
    const admin = await t.adminToken();
    expect(data(await share(admin, { sns: ['SHR005'], to: carol.username, right: 'view' }))).toEqual({
      created: 1,
      updated: 0,
    });
    const out = data<OutgoingShareItem[]>(await outgoing(owner.token, '?sn=SHR005'));
    expect(out.map((r) => r.to_uid)).toEqual([carol.uid]);
    expect(code(await share(admin, { sns: ['SHR005'], to: owner.username, right: 'view' }))).toBe(10212);
  });

  it('changes and revokes by the owner, leaves by the receiver, 10107 for anyone else', async () => {
    const id = await shareIdOf('SHR002', bob.uid);
    const put = (token: string, body: Record<string, unknown>) =>
      t.inject({ method: 'PUT', url: `/api/shares/${id}`, token, payload: body });
    expect(code(await put(bob.token, { right: 'control' }))).toBe(10107);
    expect(code(await put(carol.token, { right: 'control' }))).toBe(10107);
    expect(code(await put(owner.token, { right: 'control', expires_at: null }))).toBe(0);
    expect(data<Record<string, unknown>>(await detail(bob.token, 'SHR002')).share).toMatchObject({
      right: 'control',
    });
    const del = (token: string, sid: number) =>
      t.inject({ method: 'DELETE', url: `/api/shares/${sid}`, token });
    expect(code(await del(carol.token, id))).toBe(10107);
    // The receiver leaves.
    expect(code(await del(bob.token, id))).toBe(0);
    expect(code(await detail(bob.token, 'SHR002'))).toBe(10117);
    expect(code(await del(bob.token, id))).toBe(10107);
    // The owner revokes.
    const id4 = await shareIdOf('SHR004', carol.uid);
    expect(code(await del(owner.token, id4))).toBe(0);
    expect(code(await detail(carol.token, 'SHR004'))).toBe(10117);
    const actions = await t.app.deps.db.execute(
      sql`select action from audit_logs where action like 'share%' order by id`,
    );
    const names = rowsOf<{ action: string }>(actions).map((r) => r.action);
    expect(names).toEqual(
      expect.arrayContaining(['share_create', 'share_update', 'share_leave', 'share_revoke']),
    );
  });

  it('an expired share shows nothing, is listed as expired to the owner and not to the receiver', async () => {
    await share(owner.token, { sns: ['SHR003'], to: carol.username, right: 'view' });
    const id = await shareIdOf('SHR003', carol.uid);
    await t.app.deps.db.execute(
      sql`update device_shares set expires_at = now() - interval '1 second' where id = ${id}`,
    );
    expect(code(await detail(carol.token, 'SHR003'))).toBe(10117);
    const out = data<OutgoingShareItem[]>(await outgoing(owner.token, '?sn=SHR003'));
    expect(out.find((r) => r.id === id)!.expired).toBe(true);
    const inc = data<IncomingShareItem[]>(await incoming(carol.token, '?sn=SHR003'));
    expect(inc).toEqual([]);
  });
});

describe('share links', () => {
  const link = async (payload: Record<string, unknown>) =>
    data<ShareLinkCreated>(
      await t.inject({ method: 'POST', url: '/api/share-links', token: owner.token, payload }),
    );
  const preview = (token: string, tk: string) =>
    t.inject({ method: 'GET', url: `/api/share-links/${tk}`, token });
  const accept = (token: string, tk: string) =>
    t.inject({ method: 'POST', url: `/api/share-links/${tk}/accept`, token });

  it('creates a 32-character token, stores only its hash, previews and accepts', async () => {
    const created = await link({ sns: ['SHR004', 'SHR005'], right: 'view', max_uses: 5 });
    expect(created.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(created.url_path).toBe(`/share?token=${created.token}`);
    const stored = await t.app.deps.db.execute(
      sql`select token_hash from share_links where id = ${created.id}`,
    );
    expect(JSON.stringify(rowsOf(stored))).not.toContain(created.token);

    const dave = await t.createUser();
    const p = data<ShareLinkPreview>(await preview(dave.token, created.token));
    expect(p).toMatchObject({ owner_username: owner.username, right: 'view', expires_at: null });
    expect(p.devices.map((d) => d.sn)).toEqual(['SHR004', 'SHR005']);
    expect(data(await accept(dave.token, created.token))).toEqual({ created: 2, updated: 0 });
    expect(data<Record<string, unknown>>(await detail(dave.token, 'SHR004')).share).toMatchObject({
      right: 'view',
    });
    expect(code(await preview(owner.token, created.token))).toBe(10212);
    expect(code(await accept(owner.token, created.token))).toBe(10212);

    const mine = data<ShareLinkItem[]>(
      await t.inject({ method: 'GET', url: '/api/share-links', token: owner.token }),
    );
    expect(mine.find((l) => l.id === created.id)).toMatchObject({
      devices: 2,
      uses: 1,
      max_uses: 5,
      spent: false,
    });
  });

  it('answers 10211 alike for unknown, malformed, revoked, expired and used-up tokens', async () => {
    const dave = await t.createUser();
    expect(code(await preview(dave.token, 'x'.repeat(32)))).toBe(10211);
    expect(code(await accept(dave.token, 'short'))).toBe(10211);

    const revoked = await link({ sns: ['SHR001'], right: 'view' });
    expect(
      code(await t.inject({ method: 'DELETE', url: `/api/share-links/${revoked.id}`, token: bob.token })),
    ).toBe(10107);
    expect(
      code(await t.inject({ method: 'DELETE', url: `/api/share-links/${revoked.id}`, token: owner.token })),
    ).toBe(0);
    expect(code(await accept(dave.token, revoked.token))).toBe(10211);

    const expiring = await link({
      sns: ['SHR001'],
      right: 'view',
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(code(await preview(dave.token, expiring.token))).toBe(0);
    await t.app.deps.db.execute(
      sql`update share_links set expires_at = now() - interval '1 second' where id = ${expiring.id}`,
    );
    expect(code(await preview(dave.token, expiring.token))).toBe(10211);
    expect(code(await accept(dave.token, expiring.token))).toBe(10211);

    const once = await link({ sns: ['SHR001'], right: 'view', max_uses: 1 });
    expect(code(await accept(dave.token, once.token))).toBe(0);
    expect(code(await accept(carol.token, once.token))).toBe(10211);
  });

  it('counts uses atomically: of receivers racing for the last use, one wins', async () => {
    const last = await link({ sns: ['SHR005'], right: 'control', max_uses: 1 });
    const racers = await Promise.all([t.createUser(), t.createUser(), t.createUser(), t.createUser()]);
    const results = await Promise.all(racers.map((r) => accept(r.token, last.token)));
    const codes = results.map(code).sort();
    expect(codes).toEqual([0, 10211, 10211, 10211]);
    const [row] = rowsOf<{ uses: number }>(
      await t.app.deps.db.execute(sql`select uses from share_links where id = ${last.id}`),
    );
    expect(Number(row!.uses)).toBe(1);
  });
});

describe('shares end with the device and reach open WebSockets', () => {
  const publish = (sn: string, ownerUid: number, value: number) => {
    t.app.deps.events.publish(
      {
        type: 'device.online',
        sn,
        product_key: 'pk',
        online: value % 2 === 1 ? 1 : 0,
        at: new Date().toISOString(),
      },
      { uid: ownerUid },
    );
  };
  const until = async (check: () => boolean, ms = 3000) => {
    const end = Date.now() + ms;
    while (!check()) {
      if (Date.now() > end) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  async function signedIn(token: string): Promise<TestSocket> {
    const s = await openSocket(wsUrl);
    s.send({ type: 'auth', token });
    await s.next('ready');
    return s;
  }

  it('delivers to a share holder and stops at once on revoke', async () => {
    const erin = await t.createUser();
    await createDevices(t, erin.token, ['SHRERIN']);
    await share(owner.token, { sns: ['SHR001'], to: erin.username, right: 'view' });
    await until(() => t.app.deps.caches.shares.grantsOf('SHR001').some((g) => g.uid === erin.uid));
    const s = await signedIn(erin.token);
    try {
      publish('SHR001', owner.uid, 1);
      await s.next('event', (m) => m.event.sn === 'SHR001');

      const id = await shareIdOf('SHR001', erin.uid);
      expect(code(await t.inject({ method: 'DELETE', url: `/api/shares/${id}`, token: owner.token }))).toBe(
        0,
      );
      // Right after the answer, before any re-read could finish: nothing more of SHR001. The erin device event
      // published after it is the sentinel that the stream is still flowing.
      publish('SHR001', owner.uid, 2);
      publish('SHRERIN', erin.uid, 3);
      await s.next('event', (m) => m.event.sn === 'SHRERIN');
      const shared = s.messages.filter((m) => m.type === 'event' && m.event.sn === 'SHR001');
      expect(shared).toHaveLength(1);
    } finally {
      s.close();
    }
  });

  it('tells a socket watching a device that its access changed, and no socket that did not ask', async () => {
    const gina = await t.createUser();
    await share(owner.token, { sns: ['SHR002'], to: gina.username, right: 'view' });
    await until(() => t.app.deps.caches.shares.grantsOf('SHR002').some((g) => g.uid === gina.uid));
    const watching = await signedIn(gina.token);
    const everything = await signedIn(gina.token);
    try {
      watching.send({ type: 'subscribe', sns: ['SHR002', 'SHRNONE'] });
      await watching.next('subscribed');
      const id = await shareIdOf('SHR002', gina.uid);
      expect(code(await t.inject({ method: 'DELETE', url: `/api/shares/${id}`, token: owner.token }))).toBe(
        0,
      );
      const told = await watching.next('access', (m) => m.sns.includes('SHR002'));
      expect(told.sns).toEqual(['SHR002']);
      // The socket without a filter hears nothing of it (the ping's pong is the sentinel that it would have).
      everything.send({ type: 'ping', id: 7 });
      await everything.next('pong');
      expect(everything.messages.filter((m) => m.type === 'access')).toEqual([]);
    } finally {
      watching.close();
      everything.close();
    }
  });

  it('stops delivering once the share expires, without any event', async () => {
    const fred = await t.createUser();
    await createDevices(t, fred.token, ['SHRFRED']);
    await share(owner.token, {
      sns: ['SHR003'],
      to: fred.username,
      right: 'view',
      expires_at: new Date(t.clock.now().getTime() + 60_000).toISOString(),
    });
    await until(() => t.app.deps.caches.shares.grantsOf('SHR003').some((g) => g.uid === fred.uid));
    const s = await signedIn(fred.token);
    try {
      publish('SHR003', owner.uid, 1);
      await s.next('event', (m) => m.event.sn === 'SHR003');
      t.clock.advance(61_000);
      publish('SHR003', owner.uid, 2);
      publish('SHRFRED', fred.uid, 3);
      await s.next('event', (m) => m.event.sn === 'SHRFRED');
      expect(s.messages.filter((m) => m.type === 'event' && m.event.sn === 'SHR003')).toHaveLength(1);
    } finally {
      t.clock.advance(-61_000);
      s.close();
    }
  });

  it('unbinding a device ends its shares and its place in links; deleting it too', async () => {
    const [dev] = await createDevices(t, owner.token, ['SHRUNB1', 'SHRDEL1']);
    await share(owner.token, { sns: ['SHRUNB1', 'SHRDEL1'], to: carol.username, right: 'control' });
    const l = await link({ sns: ['SHRUNB1'], right: 'view' });
    expect(code(await detail(carol.token, 'SHRUNB1'))).toBe(0);
    const unbind = await t.inject({ method: 'POST', url: '/api/devices/SHRUNB1/unbind', token: owner.token });
    expect(unbind.statusCode, unbind.body).toBe(200);
    expect(code(await detail(carol.token, 'SHRUNB1'))).toBe(10117);
    const left = await t.app.deps.db.execute(
      sql`select count(*)::int as n from device_shares s join devices d on d.id = s.device_id where d.sn = 'SHRUNB1'`,
    );
    expect(rowsOf<{ n: number }>(left)[0]!.n).toBe(0);
    const dave = await t.createUser();
    expect(code(await accept(dave.token, l.token))).toBe(10211);

    expect(code(await t.inject({ method: 'DELETE', url: '/api/devices/SHRDEL1', token: owner.token }))).toBe(
      0,
    );
    const gone = await t.app.deps.db.execute(
      sql`select count(*)::int as n from device_shares where owner_uid = ${owner.uid} and grantee_uid = ${carol.uid} and "right" = 'control'`,
    );
    expect(rowsOf<{ n: number }>(gone)[0]!.n).toBe(0);
    expect(dev!.sn).toBe('SHRUNB1');
  });

  it('a device given to another user (admin transfer) leaves every share behind', async () => {
    await createDevices(t, owner.token, ['SHRMOVE']);
    await share(owner.token, { sns: ['SHRMOVE'], to: carol.username, right: 'view' });
    expect(code(await detail(carol.token, 'SHRMOVE'))).toBe(0);
    const admin = await t.adminToken();
    const moved = await t.inject({
      method: 'PUT',
      url: '/api/devices/SHRMOVE',
      token: admin,
      payload: { uid: bob.uid },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(code(await detail(carol.token, 'SHRMOVE'))).toBe(10117);
    expect(data<OutgoingShareItem[]>(await outgoing(owner.token, '?sn=SHRMOVE'))).toEqual([]);
    // The new owner's view is their own, unshared.
    expect(data<Record<string, unknown>>(await detail(bob.token, 'SHRMOVE')).share).toBeNull();
  });

  async function link(payload: Record<string, unknown>) {
    return data<ShareLinkCreated>(
      await t.inject({ method: 'POST', url: '/api/share-links', token: owner.token, payload }),
    );
  }
  const accept = (token: string, tk: string) =>
    t.inject({ method: 'POST', url: `/api/share-links/${tk}/accept`, token });
});

describe('alert rules of a share holder', () => {
  it('watch the shared device while the share lives', async () => {
    const [dev] = await alertDevices(t, owner.token, ['SHRALERT']);
    const hana = await t.createUser();
    const grant = () => t.app.deps.caches.shares.grantsOf('SHRALERT').some((g) => g.uid === hana.uid);
    await share(owner.token, { sns: ['SHRALERT'], to: hana.username, right: 'view' });
    await waitFor(grant);
    // A view share may watch the device (docs/sharing.md).
    const trigger = await createTrigger(t, hana.token, {
      name: 'hot',
      sn: 'SHRALERT',
      key: 'temp',
      type: 4,
      b: 30,
    });

    const id = await shareIdOf('SHRALERT', hana.uid);
    expect(code(await t.inject({ method: 'DELETE', url: `/api/shares/${id}`, token: owner.token }))).toBe(0);
    await waitFor(() => !grant());
    await report(t, dev!, { temp: 35 });
    expect(await historyOf(t, hana.token, trigger.id)).toHaveLength(0);

    await share(owner.token, { sns: ['SHRALERT'], to: hana.username, right: 'view' });
    await waitFor(grant);
    await report(t, dev!, { temp: 36 });
    const rows = await historyOf(t, hana.token, trigger.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ sn: 'SHRALERT', status: 'active' });
  });
});

describe.skipIf(!onPostgres)('two instances on one PostgreSQL database', () => {
  it('a share made or revoked on one instance reaches the sockets of the other', async () => {
    const b = await buildTestApp({ config: { databaseUrl: t.app.deps.config.databaseUrl } });
    try {
      const gina = await t.createUser();
      await createDevices(t, gina.token, ['SHRGINA']);
      const bUrl = await listenUrl(b.app);
      const s = await openSocket(bUrl);
      s.send({ type: 'auth', token: gina.token });
      await s.next('ready');
      const publish = (sn: string, uid: number) =>
        t.app.deps.events.publish(
          { type: 'device.online', sn, product_key: 'pk', online: 1, at: new Date().toISOString() },
          { uid },
        );
      try {
        await share(owner.token, { sns: ['SHR004'], to: gina.username, right: 'view' });
        // Instance B learns of it over the channel, not from its own bus.
        await waitFor(() => b.app.deps.caches.shares.grantsOf('SHR004').some((g) => g.uid === gina.uid));
        publish('SHR004', owner.uid);
        await s.next('event', (m) => m.event.sn === 'SHR004', 5000);

        const id = await shareIdOf('SHR004', gina.uid);
        expect(code(await t.inject({ method: 'DELETE', url: `/api/shares/${id}`, token: owner.token }))).toBe(
          0,
        );
        await waitFor(() => !b.app.deps.caches.shares.grantsOf('SHR004').some((g) => g.uid === gina.uid));
        publish('SHR004', owner.uid);
        publish('SHRGINA', gina.uid);
        await s.next('event', (m) => m.event.sn === 'SHRGINA', 5000);
        expect(s.messages.filter((m) => m.type === 'event' && m.event.sn === 'SHR004')).toHaveLength(1);
      } finally {
        s.close();
      }
    } finally {
      await b.app.close();
    }
  });
});

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
