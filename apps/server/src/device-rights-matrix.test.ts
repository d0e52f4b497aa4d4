import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './test/app';
import {
  bearer,
  codeOf,
  DEVICE_ROUTES,
  expected,
  isRefusal,
  MATRIX_RANK,
  MORE_CALLERS,
  type MatrixCaller,
  type MatrixContext,
  namesADevice,
  NOT_DEVICE_RIGHTS,
  type OpenApiOperation,
} from './test/device-rights';
import { accessKeyCallers } from './test/device-rights-keys';
import { createDevices } from './test/gateway-test-kit';
import { otaFixture } from './test/ota-test-kit';

/**
 * The rights matrix of issue 14: every device-touching route (test/device-rights.ts) against the owner, a view
 * share, a control share, an expired share, a revoked share, an accepted share link (view), a stranger, an
 * admin, and access keys with and without each scope (test/device-rights-keys.ts). Each route row gets devices of its own, so a route that deletes or unbinds cannot disturb another.
 */
let t: TestApp;
let callers: MatrixCaller[];
const ROWS = Object.entries(DEVICE_ROUTES);
/**
 * Row i acts on `MX<i>A` (everyone but the admin of a destructive row), `MX<i>B` (that admin) and `MX<i>C` (an
 * access key of the owner that may delete or unbind).
 */
const snOf = (i: number, which: 'A' | 'B' | 'C') => `MX${String(i).padStart(3, '0')}${which}`;
let productKey = '';
let versionId = 0;
let otherUsername = '';

const rowsOf = <T>(res: unknown): T[] => (res as { rows: T[] }).rows;

async function ok(res: Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
  const r = await res;
  if (r.statusCode !== 200) throw new Error(`fixture: ${r.statusCode} ${r.body}`);
  return r;
}

beforeAll(async () => {
  t = await buildTestApp();
  const admin = await t.adminToken();
  const owner = await t.createUser();
  const names = ['view', 'control', 'expired', 'revoked', 'link', 'stranger', 'other'] as const;
  const users = Object.fromEntries(
    await Promise.all(names.map(async (n) => [n, await t.createUser()] as const)),
  ) as Record<(typeof names)[number], { uid: number; token: string; username: string }>;
  otherUsername = users.other.username;

  const sns = ROWS.flatMap((_r, i) => [snOf(i, 'A'), snOf(i, 'B'), snOf(i, 'C')]);
  const fx = await otaFixture(t, owner.token, admin, sns);
  productKey = fx.productKey;
  versionId = fx.versionId;

  const share = (to: string, right: 'view' | 'control', expires_at?: string) =>
    ok(
      t.inject({
        method: 'POST',
        url: '/api/shares',
        token: owner.token,
        payload: { sns, to, right, expires_at },
      }),
    );
  await share(users.view.username, 'view');
  await share(users.control.username, 'control');
  await share(users.expired.username, 'control', new Date(Date.now() + 3_600_000).toISOString());
  await t.app.deps.db.execute(
    sql`update device_shares set expires_at = now() - interval '1 second' where grantee_uid = ${users.expired.uid}`,
  );
  await share(users.revoked.username, 'control');
  const revoked = rowsOf<{ id: number }>(
    await t.app.deps.db.execute(sql`select id from device_shares where grantee_uid = ${users.revoked.uid}`),
  );
  for (const r of revoked)
    await ok(t.inject({ method: 'DELETE', url: `/api/shares/${r.id}`, token: owner.token }));
  const link = (
    await ok(
      t.inject({
        method: 'POST',
        url: '/api/share-links',
        token: owner.token,
        payload: { sns, right: 'view' },
      }),
    )
  ).json() as { data: { token: string } };
  await ok(
    t.inject({ method: 'POST', url: `/api/share-links/${link.data.token}/accept`, token: users.link.token }),
  );

  // Each caller's own device, for setups that start from one (an alert trigger to edit).
  const own = async (token: string, sn: string) => {
    await createDevices(t, token, [sn]);
    return sn;
  };
  const person = async (
    name: string,
    right: MatrixCaller['right'],
    token: string,
  ): Promise<MatrixCaller> => ({
    name,
    right,
    authorize: bearer(token),
    ownSn: right === 'admin' ? snOf(0, 'B') : await own(token, `OWN${name.toUpperCase()}`),
  });
  // The stranger goes first: `owner-only` and `no-gain` rows compare the others with the stranger's answer.
  callers = [
    await person('stranger', 'none', users.stranger.token),
    await person('expired', 'none', users.expired.token),
    await person('revoked', 'none', users.revoked.token),
    await person('view', 'view', users.view.token),
    await person('link', 'view', users.link.token),
    await person('control', 'control', users.control.token),
  ];
  // Before the owner, whose destructive rows delete or unbind the shared device the callers below it act on.
  for (const more of [accessKeyCallers, ...MORE_CALLERS])
    callers.push(...(await more(t, { owner, view: users.view, control: users.control })));
  callers.push(await person('owner', 'owner', owner.token), await person('admin', 'admin', admin));
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('the device rights matrix', () => {
  it('has a row for every signed-in route that names a device', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, OpenApiOperation>>;
    };
    const fastifyKey = (method: string, path: string) =>
      `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const key = fastifyKey(method, path);
        const access = t.app.routeAccess.get(key);
        if (access !== 'user') continue;
        if (!namesADevice(path, op)) continue;
        if (!DEVICE_ROUTES[key] && !NOT_DEVICE_RIGHTS[key]) missing.push(key);
      }
    }
    expect(missing).toEqual([]);
    // And no row for a route that does not exist.
    const stale = ROWS.map(([k]) => k).filter((k) => !t.app.routeAccess.has(k));
    expect(stale).toEqual([]);
  });

  it.each(ROWS.map(([key], i) => [key, i] as const))('%s', async (key, i) => {
    const row = DEVICE_ROUTES[key]!;
    const method = key.split(' ')[0] as InjectOptions['method'];
    const problems: string[] = [];
    let strangerAnswer: string | undefined;
    for (const caller of callers) {
      const call = (req: InjectOptions) => t.inject(caller.authorize(req));
      const setupCall = (req: InjectOptions) => t.inject((caller.setupAuthorize ?? caller.authorize)(req));
      const right = caller.rightOn?.(key) ?? caller.right;
      // A destructive row gives the admin, and a key that may do it, devices of their own (the owner's goes first).
      const sn = !row.destructive
        ? snOf(i, 'A')
        : right === 'admin'
          ? snOf(i, 'B')
          : caller.refusal && MATRIX_RANK[right] >= MATRIX_RANK.owner
            ? snOf(i, 'C')
            : snOf(i, 'A');
      const ctx: MatrixContext = { sn, productKey, versionId, ownId: 0, ownSn: caller.ownSn, otherUsername };
      if (row.setup) ctx.ownId = await row.setup(setupCall, ctx);
      const res = await call({ method, ...row.request(ctx) });
      const code = codeOf(res);
      const answer = `${res.statusCode}/${code}`;
      const rank = MATRIX_RANK[right];
      const say = (what: string) =>
        problems.push(`${caller.name} (${right}): ${what}; got ${answer} ${res.body.slice(0, 160)}`);
      if (caller.name === 'stranger') strangerAnswer = answer;
      if (res.statusCode >= 500 || code === 10113) {
        say('no server error or input error expected (fix the request in the table)');
        continue;
      }
      const refusal = caller.refusal?.(key);
      if (refusal !== undefined) {
        if (code !== refusal) say(`want ${refusal} whatever the right`);
        continue;
      }
      const want = expected(row.rule, right);
      if (row.rule.kind === 'list') {
        if (code !== 0) say('the list should answer');
        else if (row.rule.contains(res, sn) !== rank >= MATRIX_RANK.view)
          say(`the device should ${rank >= MATRIX_RANK.view ? '' : 'not '}be listed`);
        continue;
      }
      if (row.rule.kind === 'bulk') {
        if (code !== 0) {
          say('the run should answer');
          continue;
        }
        const deviceCode = row.rule.deviceCode(res, sn);
        const need = MATRIX_RANK[row.rule.need];
        if (rank < MATRIX_RANK.view && deviceCode !== 10117) say(`device result ${deviceCode}, want 10117`);
        else if (rank < need && !isRefusal(deviceCode)) say(`device result ${deviceCode}, want a refusal`);
        else if (rank >= need && isRefusal(deviceCode)) say(`device result ${deviceCode}, want it to pass`);
        continue;
      }
      if (want === 'any') continue;
      if (want === 'stranger') {
        if (answer !== strangerAnswer) say(`want the stranger's answer ${strangerAnswer}`);
        continue;
      }
      if (want === 'pass') {
        if (isRefusal(code)) say('want it to pass');
        else
          try {
            row.check?.(res, right);
          } catch (err) {
            say((err as Error).message);
          }
        continue;
      }
      if (code !== want) say(`want ${want}`);
    }
    expect(problems).toEqual([]);
  });
});
