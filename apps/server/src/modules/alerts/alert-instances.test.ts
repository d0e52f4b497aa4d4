import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { eventually } from '../../test/gateway-test-kit';
import { buildTestApp, type TestApp, USER_PASSWORD } from '../../test/app';
import { alertDevices, createTrigger, historyOf, report } from '../../test/alerts-test-kit';
import { onPostgres, type SharedStore, sharedStore } from '../../test/shared-store';

// Two instances exist only on PostgreSQL (PGlite lives in one process); the restart on PGlite is in
// alert-engine.test.ts.
describe.skipIf(!onPostgres)('two instances on one PostgreSQL', () => {
  let db: SharedStore;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    db = await sharedStore('alerts');
    const config = {
      databaseUrl: db.databaseUrl,
      dataDir: db.dataDir,
      notify: { ...loadConfig({}).notify, pollMs: 0 },
    };
    a = await buildTestApp({ config });
    b = await buildTestApp({ config });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('learn of each other’s triggers and states: raised on one, recovered on the other, never twice', async () => {
    const user = await a.createUser('twoinstances');
    const tokenB = (await b.login('twoinstances', USER_PASSWORD)).token;
    const [devA] = await alertDevices(a, user.token, ['AL-TWO-1']);
    const tr = await createTrigger(a, user.token, {
      name: 'two',
      sn: 'AL-TWO-1',
      key: 'temp',
      type: 4,
      b: 30,
    });
    // B hears of the new trigger through LISTEN/NOTIFY.
    await eventually(async () => (b.app.alerts.size >= 1 ? true : undefined));
    // The same device's values may reach either instance (shared subscriptions on an external broker).
    await Promise.all([report(a, devA!, { temp: 31 }), report(b, devA!, { temp: 32 })]);
    await report(b, devA!, { temp: 33 });
    let rows = await historyOf(b, tokenB, tr.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('active');
    // A learns of the raise from B's NOTIFY, so its next normal value recovers the alert.
    const recovered = await eventually(async () => {
      await report(a, devA!, { temp: 20 });
      const [row] = await historyOf(a, user.token, tr.id);
      return row?.status === 'recovered' ? row : undefined;
    });
    expect(recovered.recovered_value).toBe(20);
    await report(b, devA!, { temp: 21 });
    rows = await historyOf(b, tokenB, tr.id);
    expect(rows.map((r) => r.status)).toEqual(['recovered']);
  });
});
