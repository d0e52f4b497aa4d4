import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { startMailbox } from '../../test/alerts-test-kit';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { createDevices } from '../../test/gateway-test-kit';
import { givePhone, newNonce, signed, verifiedKey } from '../../test/signed-request';
import { auditLogs } from '../audit/audit.table';
import { ACCESS_SCOPES } from '@cellhub/contract/access';
import { accessKeyNonces, accessKeys, accessKeyUses } from './access-keys.table';
import { CLOSED_TO_KEYS, OPEN_ROUTES } from './open-routes';

let t: TestApp;
let admin: string;
let a: { uid: number; token: string; username: string };
let b: { uid: number; token: string; username: string };
let mailbox: Awaited<ReturnType<typeof startMailbox>>;
const PHONE_A = '13800138001';
const PHONE_ADMIN = '13800138009';

beforeAll(async () => {
  t = await buildTestApp({ config: { notify: { ...loadConfig({}).notify, pollMs: 0 } } });
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
  await givePhone(t, a.token, PHONE_A);
  await givePhone(t, admin, PHONE_ADMIN);
  await createDevices(t, a.token, ['AK-DEV-1', 'AK-DEV-2']);
  await createDevices(t, b.token, ['AK-DEV-B']);
  mailbox = await startMailbox();
  const mail = await t.inject({
    method: 'PUT',
    url: '/api/system/settings/email',
    token: admin,
    payload: {
      host: '127.0.0.1',
      port: mailbox.port,
      account: 'keys@cellhub.test',
      nickname: 'Cellhub',
      ssl: false,
      password: 'secret',
    },
  });
  expect(mail.statusCode, mail.body).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, payload?: object) =>
  t.inject({ method, url, token, ...(payload ? { payload } : {}) });
function data<T>(res: { statusCode: number; body: string; json(): unknown }): T {
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { data: T }).data;
}
function expectCode(
  res: { statusCode: number; body: string; json(): unknown },
  code: number,
  status?: number,
) {
  expect(errorOf(res as never).code, res.body).toBe(code);
  if (status) expect(res.statusCode).toBe(status);
}

interface Created {
  access_key: string;
  secret: string;
  verified: boolean;
  scopes: string[];
}

describe('access key management', () => {
  it('creates a key whose secret is shown once and stored sealed', async () => {
    const created = data<Created>(
      await call('POST', '/api/access-keys', a.token, {
        name: 'ci',
        scopes: ['devices:read', 'devices:read'],
      }),
    );
    expect(created.access_key).toMatch(/^AK[A-Z2-7]{20}$/);
    expect(created.secret.length).toBeGreaterThanOrEqual(32);
    expect(created.verified).toBe(false);
    expect(created.scopes).toEqual(['devices:read']);

    const list = await call('GET', '/api/access-keys', a.token);
    expect(list.body).toContain(created.access_key);
    expect(list.body).not.toContain(created.secret);
    expect(list.body).not.toContain('"secret"');
    const detail = await call('GET', `/api/access-keys/${created.access_key}`, a.token);
    expect(data<{ owner: unknown }>(detail).owner).toBeNull();
    expect(detail.body).not.toContain(created.secret);

    const [row] = await t.app.deps.db
      .select()
      .from(accessKeys)
      .where(eq(accessKeys.accessKey, created.access_key));
    expect(row!.secret).not.toContain(created.secret);
    expect(row!.secret.startsWith('v1:')).toBe(true);

    const audit = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(
        and(
          eq(auditLogs.action, 'access_key_create'),
          eq(auditLogs.target, `access_key:${created.access_key}`),
        ),
      );
    expect(audit).toHaveLength(1);
  });

  it('validates input: unknown scope, bad address, past expiry, bad key in the path', async () => {
    expectCode(await call('POST', '/api/access-keys', a.token, { name: 'x', scopes: ['admin'] }), 10113, 400);
    expectCode(
      await call('POST', '/api/access-keys', a.token, {
        name: 'x',
        scopes: ['sim'],
        ip_allow: ['10.0.0.0/33'],
      }),
      10113,
    );
    expectCode(
      await call('POST', '/api/access-keys', a.token, {
        name: 'x',
        scopes: ['sim'],
        expires_at: new Date(t.clock.now().getTime() - 1000).toISOString(),
      }),
      10113,
    );
    expectCode(await call('GET', '/api/access-keys/nope', a.token), 10113);
    expectCode(await call('GET', '/api/access-keys/AKAAAAAAAAAAAAAAAAAAAA', a.token), 10107);
  });

  it("others' keys are invisible; an admin sees them with the owner but cannot rotate or verify them", async () => {
    const k = data<Created>(
      await call('POST', '/api/access-keys', a.token, { name: 'mine', scopes: ['ota'] }),
    );
    expectCode(await call('GET', `/api/access-keys/${k.access_key}`, b.token), 10107);
    expectCode(await call('PUT', `/api/access-keys/${k.access_key}`, b.token, { name: 'x' }), 10107);
    expectCode(await call('DELETE', `/api/access-keys/${k.access_key}`, b.token), 10107);
    expect((await call('GET', '/api/access-keys', b.token)).body).not.toContain(k.access_key);

    const seen = data<{ access_key: string; owner: { uid: number } | null }[]>(
      await call('GET', `/api/access-keys?keyword=${k.access_key}`, admin),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]!.owner?.uid).toBe(a.uid);
    expectCode(await call('POST', `/api/access-keys/${k.access_key}/rotate`, admin), 10107);
    expectCode(
      await call('POST', `/api/access-keys/${k.access_key}/verify-code`, admin, { channel: 'sms' }),
      10107,
    );
  });

  it('update, disable, enable and delete are audited', async () => {
    const k = data<Created>(
      await call('POST', '/api/access-keys', a.token, { name: 'edit', scopes: ['sim'] }),
    );
    const u = data<{ name: string; enabled: boolean; scopes: string[]; ip_allow: string[] }>(
      await call('PUT', `/api/access-keys/${k.access_key}`, a.token, {
        name: 'edited',
        scopes: ['sim', 'alerts'],
        ip_allow: ['10.1.0.0/16', '2001:db8::1'],
        enabled: false,
      }),
    );
    expect(u).toMatchObject({ name: 'edited', enabled: false, scopes: ['sim', 'alerts'] });
    expect(u.ip_allow).toEqual(['10.1.0.0/16', '2001:db8::1']);
    data(await call('PUT', `/api/access-keys/${k.access_key}`, a.token, { enabled: true }));
    data(await call('DELETE', `/api/access-keys/${k.access_key}`, a.token));
    expectCode(await call('GET', `/api/access-keys/${k.access_key}`, a.token), 10107);
    const actions = (
      await t.app.deps.db
        .select()
        .from(auditLogs)
        .where(eq(auditLogs.target, `access_key:${k.access_key}`))
    ).map((r) => r.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'access_key_create',
        'access_key_update',
        'access_key_disable',
        'access_key_enable',
        'access_key_delete',
      ]),
    );
  });

  it('verification by SMS: wrong code 20121, then the right one; no phone 20119', async () => {
    const k = data<Created>(
      await call('POST', '/api/access-keys', a.token, { name: 'sms', scopes: ['sim'] }),
    );
    const sent = data<{ to: string; channel: string }>(
      await call('POST', `/api/access-keys/${k.access_key}/verify-code`, a.token, { channel: 'sms' }),
    );
    expect(sent).toMatchObject({ channel: 'sms', to: '138****8001' });
    const code = t.sms.lastCode(PHONE_A)!;
    expect(code).toMatch(/^\d{6}$/);
    const wrong = code === '000000' ? '111111' : '000000';
    expectCode(
      await call('POST', `/api/access-keys/${k.access_key}/verify`, a.token, { code: wrong }),
      20121,
    );
    // A second code within the minute is refused.
    expectCode(
      await call('POST', `/api/access-keys/${k.access_key}/verify-code`, a.token, { channel: 'sms' }),
      10104,
      429,
    );
    const v = data<{ verified: boolean }>(
      await call('POST', `/api/access-keys/${k.access_key}/verify`, a.token, { code }),
    );
    expect(v.verified).toBe(true);
    // Used once.
    expectCode(await call('POST', `/api/access-keys/${k.access_key}/verify`, a.token, { code }), 20121);

    const kb = data<Created>(
      await call('POST', '/api/access-keys', b.token, { name: 'nophone', scopes: ['sim'] }),
    );
    expectCode(
      await call('POST', `/api/access-keys/${kb.access_key}/verify-code`, b.token, { channel: 'sms' }),
      20119,
    );
    expectCode(
      await call('POST', `/api/access-keys/${kb.access_key}/verify-code`, b.token, { channel: 'email' }),
      20118,
    );
  });

  it('verification by email through a real SMTP server', async () => {
    data(await call('PUT', '/api/user/profile', b.token, { email: 'keys-b@example.com' }));
    const k = data<Created>(
      await call('POST', '/api/access-keys', b.token, { name: 'mail', scopes: ['sim'] }),
    );
    const before = mailbox.received.length;
    const sent = data<{ to: string }>(
      await call('POST', `/api/access-keys/${k.access_key}/verify-code`, b.token, { channel: 'email' }),
    );
    expect(sent.to).toBe('k***@example.com');
    const [mail] = (await mailbox.waitFor(before + 1)).slice(before);
    const code = /(\d{6})/.exec(mail!.mail.subject ?? '')?.[1];
    expect(code).toMatch(/^\d{6}$/);
    expect(mail!.mail.text).toContain(k.access_key);
    expectCode(
      await call('POST', `/api/access-keys/${k.access_key}/verify`, b.token, {
        code: code === '999999' ? '000000' : '999999',
      }),
      20120,
    );
    expect(
      data<{ verified: boolean }>(
        await call('POST', `/api/access-keys/${k.access_key}/verify`, b.token, { code }),
      ).verified,
    ).toBe(true);
    const audit = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(
        and(eq(auditLogs.action, 'access_key_verify'), eq(auditLogs.target, `access_key:${k.access_key}`)),
      );
    expect(audit).toHaveLength(1);
  });
});

describe('signed requests', () => {
  let read: { access_key: string; secret: string };
  beforeAll(async () => {
    read = await verifiedKey(t, a.token, PHONE_A, { name: 'reader', scopes: ['devices:read'] });
  });

  it("good signature: the owner's devices, scoped; last used and a use row recorded", async () => {
    const res = await signed(t, { method: 'GET', url: '/api/devices?per_page=10&current=1', key: read });
    const list = data<{ sn: string }[]>(res);
    expect(list.map((d) => d.sn).sort()).toEqual(['AK-DEV-1', 'AK-DEV-2']);
    const detail = data<{ last_used_at: string | null; last_used_ip: string | null }>(
      await call('GET', `/api/access-keys/${read.access_key}`, a.token),
    );
    expect(detail.last_used_at).not.toBeNull();
    expect(detail.last_used_ip).toBe('127.0.0.1');
    const uses = data<{ route: string; code: number; status: number; method: string }[]>(
      await call('GET', `/api/access-keys/${read.access_key}/uses`, a.token),
    );
    expect(uses[0]).toMatchObject({ method: 'GET', route: '/api/devices', code: 0, status: 200 });
  });

  it('query parameters in another order still verify (the canonical form sorts them)', async () => {
    const res = await signed(t, {
      method: 'GET',
      url: '/api/devices?current=1&per_page=5&keyword=AK-DEV',
      signedUrl: '/api/devices?keyword=AK-DEV&per_page=5&current=1',
      key: read,
    });
    expect(data<unknown[]>(res)).toHaveLength(2);
  });

  it('wrong secret 10221, tampered query 10221, stale and future ts 10222, bad headers 10220', async () => {
    expectCode(
      await signed(t, { method: 'GET', url: '/api/devices', key: { ...read, secret: 'not-the-secret' } }),
      10221,
      403,
    );
    expectCode(
      await signed(t, {
        method: 'GET',
        url: '/api/devices?keyword=AK-DEV-2',
        signedUrl: '/api/devices?keyword=AK-DEV-1',
        key: read,
      }),
      10221,
    );
    // Time stands still for the window checks: a slow machine must not carry `now + 301` back into the window.
    t.clock.freeze();
    try {
      const now = Math.floor(t.clock.now().getTime() / 1000);
      expectCode(
        await signed(t, { method: 'GET', url: '/api/devices', key: read, ts: now - 301 }),
        10222,
        403,
      );
      expectCode(
        await signed(t, { method: 'GET', url: '/api/devices', key: read, ts: now + 301 }),
        10222,
        403,
      );
      for (const ts of [now - 299, now + 300]) {
        expect((await signed(t, { method: 'GET', url: '/api/devices', key: read, ts })).statusCode).toBe(200);
      }
    } finally {
      t.clock.thaw();
    }
    expectCode(
      await signed(t, { method: 'GET', url: '/api/devices', key: read, headers: { 'x-n-nonce': undefined } }),
      10220,
      403,
    );
    expectCode(
      await signed(t, {
        method: 'GET',
        url: '/api/devices',
        key: { access_key: 'AKAAAAAAAAAAAAAAAAAAAA', secret: 'x' },
      }),
      10220,
    );
    expectCode(
      await signed(t, { method: 'GET', url: '/api/devices', key: { access_key: 'nonsense', secret: 'x' } }),
      10220,
    );
  });

  it('a reused nonce is refused with 10223', async () => {
    const nonce = newNonce();
    expect((await signed(t, { method: 'GET', url: '/api/devices', key: read, nonce })).statusCode).toBe(200);
    expectCode(await signed(t, { method: 'GET', url: '/api/devices', key: read, nonce }), 10223, 403);
  });

  it('a key with devices:read lists devices but cannot send a command (10227) nor reach other routes', async () => {
    expectCode(
      await signed(t, {
        method: 'POST',
        url: '/api/devices/AK-DEV-1/commands',
        payload: { type: 'raw', payload: 'x' },
        key: read,
      }),
      10227,
      400,
    );
    // Not on the open-route table: keys never manage keys, products or the account.
    expectCode(await signed(t, { method: 'GET', url: '/api/access-keys', key: read }), 10227);
    expectCode(await signed(t, { method: 'GET', url: '/api/user/info', key: read }), 10227);
    // Another user's device: the owner's rights apply (not found, as for the owner).
    expectCode(await signed(t, { method: 'GET', url: '/api/devices/AK-DEV-B', key: read }), 10117);
  });

  it('a body changed after signing is refused; the signed body is accepted', async () => {
    const ctl = await verifiedKey(t, a.token, PHONE_A, {
      name: 'ctl',
      scopes: ['devices:read', 'devices:write'],
    });
    expectCode(
      await signed(t, {
        method: 'PUT',
        url: '/api/devices/AK-DEV-1',
        payload: { name: 'tampered' },
        signedPayload: { name: 'signed' },
        key: ctl,
      }),
      10221,
    );
    const ok = await signed(t, {
      method: 'PUT',
      url: '/api/devices/AK-DEV-1',
      payload: { name: 'signed', description: 'via key' },
      key: ctl,
    });
    expect(data<{ name: string }>(ok).name).toBe('signed');
  });

  it('IP allow-list: an address outside it gets 10228, inside (v4 CIDR) passes', async () => {
    const k = await verifiedKey(t, a.token, PHONE_A, {
      name: 'ip',
      scopes: ['devices:read'],
      ip_allow: ['10.20.0.0/16', '2001:db8::/32'],
    });
    expectCode(
      await signed(t, { method: 'GET', url: '/api/devices', key: k, remoteAddress: '10.21.0.1' }),
      10228,
      403,
    );
    expect(
      (await signed(t, { method: 'GET', url: '/api/devices', key: k, remoteAddress: '10.20.3.4' }))
        .statusCode,
    ).toBe(200);
    expect(
      (await signed(t, { method: 'GET', url: '/api/devices', key: k, remoteAddress: '2001:db8:1::5' }))
        .statusCode,
    ).toBe(200);
    // An IPv4 client on a dual-stack socket is matched as its IPv4 address.
    expect(
      (await signed(t, { method: 'GET', url: '/api/devices', key: k, remoteAddress: '::ffff:10.20.9.9' }))
        .statusCode,
    ).toBe(200);
    expectCode(
      await signed(t, { method: 'GET', url: '/api/devices', key: k, remoteAddress: '2001:db9::1' }),
      10228,
    );
  });

  it('disabled 10224, expired 10225, unverified 10226', async () => {
    const k = await verifiedKey(t, a.token, PHONE_A, {
      name: 'states',
      scopes: ['devices:read'],
      expires_at: new Date(t.clock.now().getTime() + 3_600_000).toISOString(),
    });
    data(await call('PUT', `/api/access-keys/${k.access_key}`, a.token, { enabled: false }));
    expectCode(await signed(t, { method: 'GET', url: '/api/devices', key: k }), 10224, 403);
    data(await call('PUT', `/api/access-keys/${k.access_key}`, a.token, { enabled: true }));
    expect((await signed(t, { method: 'GET', url: '/api/devices', key: k })).statusCode).toBe(200);
    t.clock.advance(3_600_000);
    expectCode(await signed(t, { method: 'GET', url: '/api/devices', key: k }), 10225, 403);
    const u = data<Created>(
      await call('POST', '/api/access-keys', a.token, { name: 'unverified', scopes: ['devices:read'] }),
    );
    expectCode(await signed(t, { method: 'GET', url: '/api/devices', key: u }), 10226, 403);
  });

  it('a key never reaches an admin route, even when its owner is an admin', async () => {
    const k = await verifiedKey(t, admin, PHONE_ADMIN, {
      name: 'admin key',
      scopes: ['devices:read', 'devices:control', 'devices:write', 'ota', 'sim', 'alerts'],
    });
    expectCode(await signed(t, { method: 'GET', url: '/api/users', key: k }), 10227);
    expectCode(await signed(t, { method: 'GET', url: '/api/firmware', key: k }), 10227);
    expect((await signed(t, { method: 'GET', url: '/api/devices', key: k })).statusCode).toBe(200);
  });

  it('a deleted key is unknown at once (10220)', async () => {
    const k = await verifiedKey(t, a.token, PHONE_A, { name: 'gone', scopes: ['devices:read'] });
    expect((await signed(t, { method: 'GET', url: '/api/devices', key: k })).statusCode).toBe(200);
    data(await call('DELETE', `/api/access-keys/${k.access_key}`, a.token));
    expectCode(await signed(t, { method: 'GET', url: '/api/devices', key: k }), 10220, 403);
  });

  it('rotation: the old secret stops at once, the new one signs', async () => {
    const k = await verifiedKey(t, a.token, PHONE_A, { name: 'rotate', scopes: ['devices:read'] });
    const r = data<{ secret: string }>(
      await call('POST', `/api/access-keys/${k.access_key}/rotate`, a.token),
    );
    expect(r.secret).not.toBe(k.secret);
    expectCode(await signed(t, { method: 'GET', url: '/api/devices', key: k }), 10221);
    expect(
      (await signed(t, { method: 'GET', url: '/api/devices', key: { ...k, secret: r.secret } })).statusCode,
    ).toBe(200);
  });

  it('usage per day counts served and refused requests; the sweep prunes old nonces', async () => {
    const k = await verifiedKey(t, a.token, PHONE_A, { name: 'usage', scopes: ['devices:read'] });
    await signed(t, { method: 'GET', url: '/api/devices', key: k });
    await signed(t, { method: 'GET', url: '/api/devices', key: k });
    await signed(t, { method: 'GET', url: '/api/devices', key: { ...k, secret: 'bad' } });
    const days = data<{ day: string; ok: number; refused: number }[]>(
      await call('GET', `/api/access-keys/${k.access_key}/usage?days=7`, a.token),
    );
    expect(days).toHaveLength(7);
    expect(days[6]).toMatchObject({ day: t.clock.now().toISOString().slice(0, 10), ok: 2, refused: 1 });
    const uses = await t.app.deps.db.select().from(accessKeyUses);
    expect(uses.some((u) => u.code === 10221)).toBe(true);

    const [row] = await t.app.deps.db.select().from(accessKeys).where(eq(accessKeys.accessKey, k.access_key));
    const before = await t.app.deps.db
      .select()
      .from(accessKeyNonces)
      .where(eq(accessKeyNonces.accessKeyId, row!.id));
    expect(before.length).toBe(2);
    t.clock.advance(11 * 60_000);
    await t.app.accessKeyPrune.runNow();
    const after = await t.app.deps.db
      .select()
      .from(accessKeyNonces)
      .where(eq(accessKeyNonces.accessKeyId, row!.id));
    expect(after).toHaveLength(0);
  });
});

interface OpenApiOperation {
  parameters?: { name: string }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

/** A `{sn}` in the path, under /api/devices, or `sn` / `sns` / `targets` in the query or JSON body. */
function touchesDevices(path: string, op: OpenApiOperation): boolean {
  if (path.includes('{sn}') || path === '/api/devices' || path.startsWith('/api/devices/')) return true;
  const names = new Set((op.parameters ?? []).map((p) => p.name));
  for (const k of Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {}))
    names.add(k);
  return ['sn', 'sns', 'targets'].some((n) => names.has(n));
}

describe('the open-route table', () => {
  const SAMPLE: Record<string, string> = { sn: 'AK-DEV-1', id: '999999', iccid: '89860000000000000000' };
  const entries = Object.entries(OPEN_ROUTES).map(([k, scope]) => {
    const [method, route] = k.split(' ') as ['GET' | 'POST' | 'PUT' | 'DELETE', string];
    return { method, route, scope, url: route.replace(/:(\w+)/g, (_m, n: string) => SAMPLE[n] ?? '1') };
  });

  it('names real signed-in routes, never an admin one, and the OpenAPI document marks each with its scope', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<
        string,
        Record<string, { security?: Record<string, unknown>[]; 'x-cellhub-scope'?: string }>
      >;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.components.securitySchemes.accessKey).toMatchObject({ type: 'apiKey', name: 'x-n-accesskey' });
    for (const e of entries) {
      expect(t.app.routeAccess.get(`${e.method} ${e.route}`), `${e.method} ${e.route}`).toBe('user');
      const op = doc.paths[e.route.replace(/:(\w+)/g, '{$1}')]?.[e.method.toLowerCase()];
      expect(op?.['x-cellhub-scope'], `${e.method} ${e.route}`).toBe(e.scope);
      expect(op?.security).toEqual([{ bearer: [] }, { accessKey: [] }]);
    }
    let marked = 0;
    for (const ops of Object.values(doc.paths))
      for (const op of Object.values(ops)) if (op['x-cellhub-scope']) marked++;
    expect(marked).toBe(entries.length);
  });

  it('every signed-in route that touches devices is decided: open with a scope, or closed with a reason', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, OpenApiOperation>>;
    };
    const undecided: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
        const access = t.app.routeAccess.get(key);
        if (access !== 'user' && access !== 'optional') continue;
        if (!touchesDevices(path, op)) continue;
        if (!(key in OPEN_ROUTES) && !(key in CLOSED_TO_KEYS)) undecided.push(key);
      }
    }
    expect(undecided).toEqual([]);
    for (const key of Object.keys(CLOSED_TO_KEYS)) expect(OPEN_ROUTES[key], key).toBeUndefined();
  });

  it('each route: a key without its scope gets 10227, a key with only that scope passes the key check', async () => {
    const keys = new Map<string, { access_key: string; secret: string }>();
    for (const scope of ACCESS_SCOPES) {
      keys.set(scope, await verifiedKey(t, a.token, PHONE_A, { name: `only ${scope}`, scopes: [scope] }));
    }
    const problems: string[] = [];
    for (const e of entries) {
      const other = ACCESS_SCOPES.find((s) => s !== e.scope)!;
      const payload = e.method === 'GET' || e.method === 'DELETE' ? undefined : {};
      const without = await signed(t, { method: e.method, url: e.url, payload, key: keys.get(other)! });
      const withScope = await signed(t, { method: e.method, url: e.url, payload, key: keys.get(e.scope)! });
      const codeOf = (r: typeof without) => (r.statusCode >= 400 ? errorOf(r).code : 0);
      if (codeOf(without) !== 10227)
        problems.push(`${e.method} ${e.route} without ${e.scope}: ${without.body}`);
      const c = codeOf(withScope);
      if (c >= 10220 && c <= 10228)
        problems.push(`${e.method} ${e.route} with ${e.scope}: ${withScope.body}`);
    }
    expect(problems).toEqual([]);
  });
});
