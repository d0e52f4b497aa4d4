import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp, USER_PASSWORD } from '../../test/app';
import { createDevices } from '../../test/gateway-test-kit';
import { givePhone, newNonce, signed, verifiedKey } from '../../test/signed-request';
import { onPostgres, type SharedStore, sharedStore } from '../../test/shared-store';

// Two instances exist only on PostgreSQL (PGlite lives in one process); one instance's reuse is in
// access-keys.test.ts.
describe.skipIf(!onPostgres)('signed requests on two instances of one PostgreSQL', () => {
  let db: SharedStore;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    db = await sharedStore('access_keys');
    const config = { databaseUrl: db.databaseUrl, dataDir: db.dataDir };
    a = await buildTestApp({ config });
    b = await buildTestApp({ config });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('a nonce used on one instance is refused on the other (10223); a key made on one signs on both', async () => {
    const user = await a.createUser('keystwo');
    await givePhone(a, user.token, '13800138077');
    await createDevices(a, user.token, ['AK-TWO-1']);
    const key = await verifiedKey(a, user.token, '13800138077', { name: 'two', scopes: ['devices:read'] });
    expect((await b.login('keystwo', USER_PASSWORD)).uid).toBe(user.uid);

    const nonce = newNonce();
    const first = await signed(a, { method: 'GET', url: '/api/devices', key, nonce });
    expect(first.statusCode, first.body).toBe(200);
    const again = await signed(b, { method: 'GET', url: '/api/devices', key, nonce });
    expect(errorOf(again).code).toBe(10223);
    // At the same moment on both: exactly one is served.
    const both = newNonce();
    const answers = await Promise.all([
      signed(a, { method: 'GET', url: '/api/devices', key, nonce: both }),
      signed(b, { method: 'GET', url: '/api/devices', key, nonce: both }),
    ]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 403]);
    const fresh = await signed(b, { method: 'GET', url: '/api/devices', key });
    expect(fresh.statusCode, fresh.body).toBe(200);
  });
});
