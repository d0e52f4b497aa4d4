// A database remembers which master key sealed its secrets: an instance started with another key refuses to start
// (it could open no device secret and would drop every device's messages), the right key starts as before.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../test/app';
import { onPostgres, sharedStore, type SharedStore } from '../../test/shared-store';
import { KEY_CHECK } from './secret-key-check';
import { systemSettings } from './system-settings.table';

describe(`master key check (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let store: SharedStore;
  beforeAll(async () => {
    store = await sharedStore('keycheck');
  });
  afterAll(() => store.drop());

  it('refuses another SECRET_KEY on a database sealed with one, and starts with the right one', async () => {
    const config = { dataDir: store.dataDir, databaseUrl: store.databaseUrl };
    const first = await buildTestApp({ config });
    const [proof] = await first.app.deps.db
      .select()
      .from(systemSettings)
      .where(eq(systemSettings.key, KEY_CHECK));
    // Sealed, never the plain proof.
    expect(proof?.secret).toBe(true);
    expect(proof?.value).not.toContain('cellhub');
    const owner = await first.createUser();
    await first.close();

    await expect(
      buildTestApp({ config: { ...config, secretKey: 'another-secret-key-0123456789abcdef-012345' } }),
    ).rejects.toThrow(/SECRET_KEY is not the key this database was sealed with/);

    const again = await buildTestApp({ config });
    try {
      const me = await again.inject({ method: 'GET', url: '/api/user/info', token: owner.token });
      expect(me.statusCode).toBe(200);
    } finally {
      await again.close();
    }
  });
});
