// Test support (not shipped): one database that outlives the apps using it, for restart and two-instance tests.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const onPostgres = process.env.TEST_DB === 'postgres';

export interface SharedStore {
  /** A data folder of its own: with PGlite the database lives in it (file-backed, so a second app reopens it). */
  dataDir: string;
  /** A PostgreSQL database of its own (TEST_DB=postgres), else undefined (PGlite in `dataDir`). */
  databaseUrl: string | undefined;
  /** Drops the database and removes the folder. */
  drop(): Promise<void>;
}

/**
 * A store for apps of one test that must share a database (instances of one deployment, or one app started
 * again): pass `{ dataDir, databaseUrl }` as each app's config. `name` tags the folder and database.
 */
export async function sharedStore(name: string): Promise<SharedStore> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `cellhub-${name}-shared-`));
  if (!onPostgres) {
    return {
      dataDir,
      databaseUrl: undefined,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL');
  const db = `cellhub_${name.replace(/[^a-z0-9_]/g, '_')}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${db}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${db}`;
  return {
    dataDir,
    databaseUrl: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      } finally {
        await c.end();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
