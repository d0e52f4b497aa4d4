import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { migrationsFolder } from '../lib/paths';

/** The database handle every service takes, whichever driver is behind it. */
export type Db = PgDatabase<PgQueryResultHKT>;
/** A transaction; services accept `Db | Tx` where a write may join a caller's transaction. */
export type Tx = PgTransaction<PgQueryResultHKT>;
export type DbOrTx = Db | Tx;

export interface Database {
  db: Db;
  driver: 'pglite' | 'postgres';
  migrate(): Promise<void>;
  ping(): Promise<void>;
  /** PGlite only: the whole data directory as a tarball (tests start later databases from a migrated one). */
  dumpDataDir?(): Promise<Blob>;
  close(): Promise<void>;
}

/** How long opening a PostgreSQL connection may take. */
export const DB_CONNECT_TIMEOUT_MS = 10_000;

// Arbitrary constant: serialises migrations when several instances start against one PostgreSQL.
export const MIGRATION_LOCK = 727_001;

/**
 * `databaseUrl` postgres://... → node-postgres; `memory://` → throwaway PGlite; undefined → PGlite in DATA_DIR/pg.
 */
export async function openDatabase(
  databaseUrl: string | undefined,
  dataDir: string,
  options: { pgliteLoadDataDir?: Blob; connectTimeoutMs?: number } = {},
): Promise<Database> {
  if (databaseUrl && /^postgres(ql)?:\/\//.test(databaseUrl)) {
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 10,
      // A database host that vanished (a failover, a partition) takes minutes to refuse a connection: requests
      // would wait that long. Past the bound a connect fails, and the API answers 503 / 10105 until it is back.
      connectionTimeoutMillis: options.connectTimeoutMs ?? DB_CONNECT_TIMEOUT_MS,
      // Dead connections of a vanished host are found by TCP keep-alive instead of the next query's long wait.
      keepAlive: true,
    });
    // An idle client dropped by the server must not crash the process; the pool replaces it.
    pool.on('error', () => undefined);
    const db: Db = drizzleNodePg({ client: pool });
    return {
      db,
      driver: 'postgres',
      async migrate() {
        const client = await pool.connect();
        try {
          await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
          await migrateNodePg(drizzleNodePg({ client }), { migrationsFolder: migrationsFolder() });
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
          client.release();
        }
      },
      async ping() {
        await db.execute(sql`select 1`);
      },
      async close() {
        if (pool.ended || pool.ending) return;
        await pool.end();
      },
    };
  }
  let dir: string | undefined;
  if (!databaseUrl) {
    dir = path.join(dataDir, 'pg');
    mkdirSync(dir, { recursive: true });
  }
  // pg_trgm backs the device list's substring search (a migration creates the extension); PostgreSQL has it in
  // its contrib package, PGlite ships it as a loadable bundle.
  const extensions = { pg_trgm };
  const client = dir
    ? new PGlite(dir, { extensions })
    : new PGlite({ extensions, loadDataDir: options.pgliteLoadDataDir });
  await client.waitReady;
  const pgliteDb = drizzlePglite({ client });
  const db: Db = pgliteDb;
  return {
    db,
    driver: 'pglite',
    async migrate() {
      await migratePglite(pgliteDb, { migrationsFolder: migrationsFolder() });
    },
    async ping() {
      if (client.closed) throw new Error('database closed');
      await client.query('select 1');
    },
    async close() {
      if (!client.closed) await client.close();
    },
    async dumpDataDir() {
      return client.dumpDataDir('none');
    },
  };
}
