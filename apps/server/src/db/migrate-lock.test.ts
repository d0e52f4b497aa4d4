// Rolling upgrades: several instances start at once on one PostgreSQL and each runs the migrator. The advisory
// lock in openDatabase().migrate() makes them take turns, so every migration runs once (docs/operations.md).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../test/gateway-test-kit';
import { onPostgres, sharedStore, type SharedStore } from '../test/shared-store';
import { MIGRATION_LOCK, openDatabase } from './client';

const journal = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../drizzle/meta/_journal.json', import.meta.url)), 'utf8'),
) as { entries: { when: number }[] };

// PGlite serves one process, so there is nothing to race there.
describe.skipIf(!onPostgres)('migrations when two instances start together on one PostgreSQL', () => {
  let store: SharedStore;
  beforeAll(async () => {
    store = await sharedStore('migrate_lock');
  });
  afterAll(() => store?.drop());

  it('wait for each other on the advisory lock and apply every migration once', async () => {
    const url = store.databaseUrl!;
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    const a = await openDatabase(url, path.join(store.dataDir, 'a'));
    const b = await openDatabase(url, path.join(store.dataDir, 'b'));
    try {
      // Hold the lock, so both migrators are seen waiting on it before either starts.
      await holder.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
      const both = Promise.all([a.migrate(), b.migrate()]);
      const waitingOnLock = async () => {
        const r = await holder.query<{ n: number }>(
          `select count(*)::int as n from pg_locks
            where locktype = 'advisory' and objid = $1 and not granted and database = (
              select oid from pg_database where datname = current_database())`,
          [MIGRATION_LOCK],
        );
        return r.rows[0]!.n === 2 ? true : undefined;
      };
      await eventually(waitingOnLock, 15_000);
      const early = await holder.query(`select to_regclass('drizzle.__drizzle_migrations') as t`);
      expect(early.rows[0].t).toBeNull();

      await holder.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      await both;

      const applied = await holder.query<{ n: number; distinct_n: number }>(
        `select count(*)::int as n, count(distinct created_at)::int as distinct_n from drizzle.__drizzle_migrations`,
      );
      expect(applied.rows[0]).toEqual({ n: journal.entries.length, distinct_n: journal.entries.length });
      // And the lock is free again for the next start.
      const free = await holder.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [
        MIGRATION_LOCK,
      ]);
      expect(free.rows[0]!.ok).toBe(true);
    } finally {
      await holder.end();
      await a.close();
      await b.close();
    }
  });
});
