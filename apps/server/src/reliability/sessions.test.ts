import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, buildTestApp, errorOf, type TestApp, USER_PASSWORD } from '../test/app';
import { figure, sized } from './figures';

/**
 * Issue 20, sessions and secrets: sign-in throttling that cannot lock the owner out, argon2id parameters of the
 * stored hashes, and revocation of a token on every instance within a second.
 *
 * The sign-in limiter (modules/rate-limit) counts failures per account and address (429 / 10104 after 5), per
 * address (30) and per account (never refused: it only slows each attempt, at most 4 s). So an attacker's address
 * is throttled while the owner, from an address of their own, still signs in.
 */

const rowsOf = <T>(res: unknown): T[] =>
  (Array.isArray(res) ? res : (res as { rows: unknown[] }).rows) as T[];

const ATTACKER = '203.0.113.66';
const OWNER = '198.51.100.10';

// One app (PGlite) for the throttling and the hashes; the revocation test builds two on PostgreSQL.
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

describe('sign-in throttling', () => {
  const signIn = (password: string, remoteAddress: string, username = 'admin') =>
    t.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { username, password } });

  it(
    "throttles the attacker's address and never locks the owner out",
    async () => {
      const attempts = sized(40, 500);
      const answers = new Map<string, number>();
      for (let i = 0; i < attempts; i++) {
        const res = await signIn(`wrong-${i}`, ATTACKER);
        const key = `${res.statusCode}/${errorOf(res).code}`;
        answers.set(key, (answers.get(key) ?? 0) + 1);
      }
      // Five wrong passwords are answered as such; every later attempt is refused before the password is checked.
      expect(Object.fromEntries(answers)).toEqual({ '400/31001': 5, '429/10104': attempts - 5 });
      // Even the right password from the attacker's address waits out the window.
      const fromAttacker = await signIn(ADMIN_PASSWORD, ATTACKER);
      expect(fromAttacker.statusCode).toBe(429);
      expect(errorOf(fromAttacker).code).toBe(10104);

      let ownerLockedOut = 0;
      const started = Date.now();
      const owner = await signIn(ADMIN_PASSWORD, OWNER);
      const ownerMs = Date.now() - started;
      if (owner.statusCode !== 200) ownerLockedOut++;
      expect(owner.statusCode, owner.body).toBe(200);

      // The owner's sign-in does not free the attacker.
      const after = await signIn('wrong-again', ATTACKER);
      expect(errorOf(after).code).toBe(10104);

      // Full size: the same account guessed from many addresses (5 each) slows every attempt on it, the owner's
      // included, to at most 4 s, and still lets the owner in.
      const spread = sized(0, 12);
      let spreadRefused = 0;
      for (let a = 0; a < spread; a++) {
        for (let i = 0; i < 6; i++) {
          const res = await signIn(`spread-${a}-${i}`, `192.0.2.${a + 1}`);
          if (res.statusCode === 429) spreadRefused++;
          else expect(errorOf(res).code).toBe(31001);
        }
      }
      let spreadOwnerMs = 0;
      if (spread > 0) {
        const s = Date.now();
        const again = await signIn(ADMIN_PASSWORD, '198.51.100.11');
        spreadOwnerMs = Date.now() - s;
        if (again.statusCode !== 200) ownerLockedOut++;
        expect(again.statusCode, again.body).toBe(200);
        expect(spreadOwnerMs).toBeLessThan(4000 + 2000);
      }

      figure({
        name: 'sessions.attacker_attempts_refused',
        value: (answers.get('429/10104') ?? 0) + spreadRefused,
        unit: 'attempts',
        detail:
          `${attempts} wrong passwords for admin from one address: 5 answered 31001, the rest 429 / 10104` +
          (spread ? `; then ${spread} addresses x 6 (${spreadRefused} refused 429)` : ''),
      });
      figure({
        name: 'sessions.owner_locked_out',
        value: ownerLockedOut,
        unit: 'sign-ins',
        target: '0',
        detail:
          `owner signed in from another address in ${ownerMs} ms` +
          (spread ? `, after the spread attack in ${spreadOwnerMs} ms` : ''),
      });
    },
    sized(120_000, 900_000),
  );
});

describe('password hashes', () => {
  it('are argon2id with at least the OWASP baseline (m=19456 KiB, t=2, p=1), for every way a password is set', async () => {
    const user = await t.createUser(`hash_${randomBytes(3).toString('hex')}`);
    const changed = await t.inject({
      method: 'PUT',
      url: '/api/user/password',
      token: user.token,
      payload: { old_password: USER_PASSWORD, new_password: 'Changed123', confirm_password: 'Changed123' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const rows = rowsOf<{ username: string; password_hash: string }>(
      await t.app.deps.db.execute(
        sql`select username, password_hash from users where username in ('admin', ${user.username})`,
      ),
    );
    expect(rows).toHaveLength(2);
    const params = new Set<string>();
    for (const r of rows) {
      // PHC string: $argon2id$v=19$<params>$<salt>$<hash>, the parameters in any order (node-argon2 writes m,p,t).
      const m = /^\$argon2id\$v=19\$([a-z]=\d+(?:,[a-z]=\d+)*)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.exec(
        r.password_hash,
      );
      expect(m, `${r.username}: ${r.password_hash.slice(0, 40)}`).not.toBeNull();
      const p = Object.fromEntries(m![1]!.split(',').map((kv) => [kv[0]!, Number(kv.slice(2))]));
      const [memory, time, lanes] = [p.m ?? 0, p.t ?? 0, p.p ?? 0];
      // OWASP Password Storage Cheat Sheet: m=19456 (19 MiB), t=2, p=1 is its second of five equivalent settings.
      expect(memory).toBeGreaterThanOrEqual(19_456);
      expect(time).toBeGreaterThanOrEqual(2);
      expect(lanes).toBeGreaterThanOrEqual(1);
      params.add(`m=${memory},t=${time},p=${lanes}`);
    }
    // Each hash has its own salt: the same password never gives the same hash.
    expect(new Set(rows.map((r) => r.password_hash)).size).toBe(rows.length);
    figure({
      name: 'sessions.argon2id_params',
      value: [...params].join(' '),
      target: 'OWASP m=19456,t=2,p=1 or stronger',
      detail: 'admin (first start) and a registered user after a password change',
    });
  });
});

const pgBase = process.env.TEST_DATABASE_URL;

// Two instances share a database only on PostgreSQL: PGlite lives inside one process.
describe.skipIf(!pgBase)('token revocation on every instance (two instances, one PostgreSQL)', () => {
  let a: TestApp;
  let b: TestApp;
  let dbName: string;
  beforeAll(async () => {
    dbName = `cellhub_sessions_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: pgBase });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${dbName}`);
    } finally {
      await admin.end();
    }
    const url = new URL(pgBase!);
    url.pathname = `/${dbName}`;
    // The default session cache (5 s) on both: B trusts a token it checked until A's announcement reaches it.
    a = await buildTestApp({ config: { databaseUrl: url.toString() } });
    b = await buildTestApp({ config: { databaseUrl: url.toString() } });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    if (dbName) {
      const admin = new pg.Client({ connectionString: pgBase });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    }
  });

  /** Polls B with the token until it is refused (403 / 10102); the time from the revoking answer on A. */
  async function refusedOnB(token: string, revokedAt: number): Promise<number> {
    const deadline = revokedAt + 10_000;
    for (;;) {
      const res = await b.inject({ method: 'GET', url: '/api/user/info', token });
      if (res.statusCode === 403) {
        expect(errorOf(res).code).toBe(10102);
        return Date.now() - revokedAt;
      }
      expect(res.statusCode, res.body).toBe(200);
      if (Date.now() > deadline) throw new Error('B still accepts the revoked token after 10 s');
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  it('a token revoked on A (sign-out, password change, disabled account) is refused on B within 1 s', async () => {
    const adminToken = await a.adminToken();
    const trials = sized(3, 15);
    const times: { how: string; ms: number }[] = [];
    for (let i = 0; i < trials; i++) {
      const how = ['sign-out', 'password change', 'disabled'][i % 3]!;
      const user = await a.createUser(`rev${i}_${randomBytes(3).toString('hex')}`);
      // B checks the token against the database once and then trusts its cache.
      for (let k = 0; k < 3; k++) {
        const seen = await b.inject({ method: 'GET', url: '/api/user/info', token: user.token });
        expect(seen.statusCode, seen.body).toBe(200);
      }
      let res;
      if (how === 'sign-out') {
        res = await a.inject({ method: 'POST', url: '/api/auth/logout', token: user.token });
      } else if (how === 'password change') {
        res = await a.inject({
          method: 'PUT',
          url: '/api/user/password',
          token: user.token,
          payload: {
            old_password: USER_PASSWORD,
            new_password: 'Changed123',
            confirm_password: 'Changed123',
          },
        });
      } else {
        res = await a.inject({ method: 'PUT', url: `/api/users/${user.uid}/disable`, token: adminToken });
      }
      expect(res.statusCode, res.body).toBe(200);
      const revokedAt = Date.now();
      // A refuses at once.
      expect((await a.inject({ method: 'GET', url: '/api/user/info', token: user.token })).statusCode).toBe(
        403,
      );
      times.push({ how, ms: await refusedOnB(user.token, revokedAt) });
    }
    const max = Math.max(...times.map((x) => x.ms));
    figure({
      name: 'sessions.revocation_ms',
      value: max,
      unit: 'ms',
      target: '<= 1000',
      detail: `max of ${trials} trials on two instances (${times.map((x) => `${x.how} ${x.ms}`).join(', ')})`,
    });
    expect(max).toBeLessThanOrEqual(1000);
  });
});
