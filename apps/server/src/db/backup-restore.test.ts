// `npm run backup` / `npm run restore` (scripts/backup.mjs, scripts/restore.mjs) on the setup the project runs on:
// embedded PGlite, or PostgreSQL when TEST_DB=postgres. The scripts run as the operator runs them, in a child.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsFolder } from '../lib/paths';
import { getSetting, setSetting } from '../modules/system-settings/system-settings.service';
import { ADMIN_PASSWORD, buildTestApp } from '../test/app';
import { otaFixture } from '../test/ota-test-kit';
import { onPostgres, sharedStore, type SharedStore } from '../test/shared-store';
import { type Db, openDatabase } from './client';

const run = promisify(execFile);

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const rowsOf = <T>(res: unknown): T[] => (res as { rows: T[] }).rows;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function script(name: 'backup' | 'restore', store: SharedStore, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'scripts', `${name}.mjs`), ...args],
      {
        cwd: root,
        // Only what the scripts read: the store's DATA_DIR and DATABASE_URL, never the developer's own.
        env: {
          PATH: process.env.PATH,
          DATA_DIR: store.dataDir,
          DATABASE_URL: store.databaseUrl ?? '',
        },
      },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Every row of every table (the schema's and drizzle's migration log), keyed by table. */
async function rowsOfEveryTable(db: Db): Promise<Record<string, unknown[]>> {
  const tables = rowsOf<{ s: string; t: string }>(
    await db.execute(sql`select table_schema as s, table_name as t from information_schema.tables
      where table_schema in ('public', 'drizzle') and table_type = 'BASE TABLE' order by 1, 2`),
  );
  const out: Record<string, unknown[]> = {};
  for (const { s, t } of tables) {
    const rows = rowsOf<{ r: unknown[] }>(
      await db.execute(
        sql.raw(`select coalesce(jsonb_agg(to_jsonb(x) order by to_jsonb(x)::text), '[]'::jsonb) as r
          from "${s}"."${t}" x`),
      ),
    );
    out[`${s}.${t}`] = rows[0]!.r;
  }
  return out;
}

/** rowsOfEveryTable of a store no server has open. */
async function snapshot(store: SharedStore): Promise<Record<string, unknown[]>> {
  const database = await openDatabase(store.databaseUrl, store.dataDir);
  try {
    return await rowsOfEveryTable(database.db);
  } finally {
    await database.close();
  }
}

/** sha256 of every file under DATA_DIR/files, by relative path. */
function fileSums(dataDir: string): Record<string, string> {
  const dir = path.join(dataDir, 'files');
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath, e.name);
    out[path.relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
  }
  return out;
}

describe(`backup and restore (${onPostgres ? 'PostgreSQL' : 'embedded PGlite'})`, () => {
  let source: SharedStore;
  let target: SharedStore;
  let archive: string;
  let before: Record<string, unknown[]>;
  let sums: Record<string, string>;
  // The master key comes from DATA_DIR/secret.key, as on a real installation, so the restore must carry it.
  const config = (s: SharedStore) => ({
    dataDir: s.dataDir,
    databaseUrl: s.databaseUrl,
    secretKey: undefined,
  });

  beforeAll(async () => {
    source = await sharedStore('backup_src');
    target = await sharedStore('backup_dst');
    archive = path.join(source.dataDir, '..', `${path.basename(source.dataDir)}.tar.gz`);
    const t = await buildTestApp({ config: config(source) });
    try {
      const admin = await t.adminToken();
      const owner = await t.createUser();
      await t.createUser();
      // A product with devices and a firmware version whose image lands in DATA_DIR/files.
      await otaFixture(t, owner.token, admin, ['BK-0001', 'BK-0002', 'BK-0003'], { size: 20_000 });
      await setSetting(t.app.deps.db, t.app.deps.box, 'smtp.password', 'sealed-by-the-key', { secret: true });
    } finally {
      await t.close();
    }
    // After close: a stopping server writes too (its instance row's stop time).
    before = await snapshot(source);
    sums = fileSums(source.dataDir);
  });
  afterAll(async () => {
    await source?.drop();
    await target?.drop();
    rmSync(archive, { force: true });
  });

  it('restores every row of every table and every file into an empty installation', async () => {
    expect(Object.keys(sums).length).toBeGreaterThan(0);
    expect(before['public.devices']).toHaveLength(3);
    expect(before['public.users']?.length).toBe(3);

    const b = await script('backup', source, ['--out', archive]);
    expect(b.stderr).toBe('');
    expect(b.code).toBe(0);
    // The archive records how far the database was migrated: here, as far as this code goes.
    const journal = JSON.parse(
      readFileSync(path.join(root, 'apps/server/drizzle/meta/_journal.json'), 'utf8'),
    ) as { entries: { tag: string }[] };
    expect(b.stdout).toContain(
      `backed up the ${onPostgres ? 'postgres' : 'embedded'} setup (${journal.entries.length} migrations applied, ` +
        `last ${journal.entries.at(-1)!.tag})`,
    );

    const r = await script('restore', target, ['--in', archive]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);

    expect(await snapshot(target)).toEqual(before);
    expect(fileSums(target.dataDir)).toEqual(sums);
    expect(readFileSync(path.join(target.dataDir, 'secret.key'))).toEqual(
      readFileSync(path.join(source.dataDir, 'secret.key')),
    );
  });

  it('starts on the restored data: the users sign in and sealed secrets open with the restored key', async () => {
    const t = await buildTestApp({ config: config(target) });
    try {
      await t.login('admin', ADMIN_PASSWORD);
      expect(await getSetting(t.app.deps.db, t.app.deps.box, 'smtp.password')).toBe('sealed-by-the-key');
      const res = await t.inject({ method: 'GET', url: '/api/devices', token: await t.adminToken() });
      expect((res.json() as { total: number }).total).toBe(3);
    } finally {
      await t.close();
    }
  });

  it('refuses to overwrite an installation that holds data, unless --force', async () => {
    const r = await script('restore', target, ['--in', archive]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the target is not empty .*--force/);

    const forced = await script('restore', target, ['--in', archive, '--force']);
    expect(forced.stderr).toBe('');
    expect(forced.code).toBe(0);
    // The rows written by the start above (sessions, audit) are gone again: the backup replaced everything.
    expect(await snapshot(target)).toEqual(before);
    expect(fileSums(target.dataDir)).toEqual(sums);
  });

  it('refuses a backup taken from a newer version than this code, and leaves the target as it was', async () => {
    // The archive as a newer Cellhub writes it: its database has a migration this code does not know.
    const work = mkdtempSync(path.join(tmpdir(), 'cellhub-newer-'));
    const newer = path.join(work, 'newer.tar.gz');
    const empty = await sharedStore('backup_new');
    try {
      await run('tar', ['-xzf', archive, '-C', work, 'manifest.json']);
      const manifestFile = path.join(work, 'manifest.json');
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
        migrations: { last: { when: number; tag: string | null } };
      };
      manifest.migrations.last = { when: Date.now() + 86_400_000 * 365, tag: '9999_from_the_future' };
      writeFileSync(manifestFile, JSON.stringify(manifest));
      // The manifest is all the restore reads before it refuses.
      await run('tar', ['-czf', newer, '-C', work, 'manifest.json']);

      const r = await script('restore', empty, ['--in', newer, '--force']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /the backup is from a newer Cellhub \(its database has migration 9999_from_the_future.*upgrade this installation first/,
      );
      expect(readdirSync(empty.dataDir)).toEqual([]);
      if (onPostgres) expect(Object.keys(await snapshot(empty))).toEqual([]);
    } finally {
      await empty.drop();
      rmSync(work, { recursive: true, force: true });
    }
  });
});

// A backup of an older release: its database lacks the newest migration. The restore takes it and the server's
// start applies what is missing. On PostgreSQL only, to keep the embedded run short: the restore path is the one
// tested above, and the migrator that catches up is the same for both drivers.
describe.skipIf(!onPostgres)('restoring a backup of an older release', () => {
  it('restores it, and the start applies the migrations it lacks', async () => {
    const older = await sharedStore('backup_old');
    const target = await sharedStore('backup_old_dst');
    const work = mkdtempSync(path.join(tmpdir(), 'cellhub-older-'));
    try {
      // The migrations of the previous release: this code's, without the newest.
      const folder = path.join(work, 'drizzle');
      cpSync(migrationsFolder(), folder, { recursive: true });
      const journalFile = path.join(folder, 'meta/_journal.json');
      const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
      journal.entries.pop();
      writeFileSync(journalFile, JSON.stringify(journal));
      const db = await openDatabase(older.databaseUrl, older.dataDir);
      try {
        await migrateNodePg(db.db as NodePgDatabase, { migrationsFolder: folder });
      } finally {
        await db.close();
      }
      const archive = path.join(work, 'older.tar.gz');
      expect((await script('backup', older, ['--out', archive])).code).toBe(0);

      const r = await script('restore', target, ['--in', archive]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('; 1 newer migrations run when the server starts');

      const restored = await openDatabase(target.databaseUrl, target.dataDir);
      try {
        await restored.migrate();
        const applied = rowsOf<{ n: number }>(
          await restored.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`),
        );
        expect(applied[0]!.n).toBe(journal.entries.length + 1);
      } finally {
        await restored.close();
      }
    } finally {
      await older.drop();
      await target.drop();
      rmSync(work, { recursive: true, force: true });
    }
  });
});
