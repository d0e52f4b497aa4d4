// Backup and restore of a Cellhub installation (`npm run backup`, `npm run restore`; docs/operations.md).
//
// One archive (tar + gzip, made and read by the system's `tar`) holds:
//   manifest.json          format, setup (embedded | postgres), time, the migrations the database had applied
//   pg/                    embedded setup: DATA_DIR/pg as PGlite left it on a clean close (the server is stopped)
//   database/cellhub.dump  PostgreSQL setup: `pg_dump --format=custom`, loaded back with pg_restore
//   files/                 DATA_DIR/files (firmware images, pictures, uploads)
//   secret.key             DATA_DIR/secret.key when the master key lives there (not when SECRET_KEY is set)
//
// The embedded database is copied as files, not with PGlite's dumpDataDir/loadDataDir: those hold the whole
// database in memory at once, and a copy of a cleanly closed data directory is just as consistent. PGlite is
// opened once first, which checks that it is a working database and reads its migration level.
//
// The archive holds the master key and every secret it seals: keep it as safe as the server itself.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const journalFile = path.join(root, 'apps/server/drizzle/meta/_journal.json');

export const FORMAT = 'cellhub-backup';
export const FORMAT_VERSION = 1;

/** A refusal the operator can act on: printed as one line, no stack trace. */
export class BackupError extends Error {}

/** The migrations this code knows, oldest first: `when` is what drizzle records as `created_at`. */
export function codeMigrations() {
  const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
  return journal.entries.map((e) => ({ when: Number(e.when), tag: e.tag }));
}

/**
 * DATA_DIR and DATABASE_URL as the server reads them (environment, optionally an env file; flags win). A relative
 * DATA_DIR from the environment is resolved like the server does (against the working directory, the repository
 * root under npm); paths given as flags against the directory npm was started from.
 */
export function resolveTarget(flags) {
  if (flags['env-file']) process.loadEnvFile(userPath(flags['env-file']));
  const dataDir = flags['data-dir']
    ? userPath(flags['data-dir'])
    : path.resolve(process.env.DATA_DIR?.trim() || './data');
  const url = flags['database-url'] ?? process.env.DATABASE_URL?.trim();
  const databaseUrl = url && /^postgres(ql)?:\/\//.test(url) ? url : undefined;
  if (url && !databaseUrl)
    throw new BackupError(`DATABASE_URL must be postgres://...; got ${url.split(':')[0]}:`);
  return { dataDir, databaseUrl, setup: databaseUrl ? 'postgres' : 'embedded' };
}

/** A path the operator typed: relative to where they ran npm, not to the repository root npm switches to. */
export function userPath(p) {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), p);
}

function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], ...opts });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', (err) =>
      reject(
        err.code === 'ENOENT'
          ? new BackupError(`${cmd} is not installed (it is needed for this setup; docs/operations.md)`)
          : err,
      ),
    );
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new BackupError(`${cmd} failed (exit ${code}): ${stderr.trim()}`)),
    );
  });
}

const rowsToMigrations = (rows) =>
  rows.map((r) => ({ hash: r.hash, when: Number(r.created_at) })).sort((a, b) => a.when - b.when);

const MIGRATIONS_SQL = `select hash, created_at::text as created_at from drizzle.__drizzle_migrations`;
const HAS_MIGRATIONS_SQL = `select to_regclass('drizzle.__drizzle_migrations') is not null as present`;

async function openPglite(dir) {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const db = new PGlite(dir, { extensions: { pg_trgm } });
  await db.waitReady;
  return db;
}

async function withPg(url, fn) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function appliedMigrations(query) {
  const present = (await query(HAS_MIGRATIONS_SQL))[0]?.present;
  return present ? rowsToMigrations(await query(MIGRATIONS_SQL)) : [];
}

/** PGlite leaves postmaster.pid in its directory while a process has it open and removes it on a clean close. */
function assertPgliteClosed(pgDir) {
  if (existsSync(path.join(pgDir, 'postmaster.pid'))) {
    throw new BackupError(
      `${pgDir} is in use: stop the Cellhub server first (the embedded database serves one process). If the ` +
        'server crashed, start it once and stop it cleanly.',
    );
  }
}

const isEmptyDir = (dir) => !existsSync(dir) || readdirSync(dir).length === 0;

function describeMigrations(applied) {
  const known = new Map(codeMigrations().map((m) => [m.when, m.tag]));
  const last = applied.at(-1);
  return {
    applied: applied.length,
    last: last ? { when: last.when, tag: known.get(last.when) ?? null } : null,
    list: applied,
  };
}

/** Writes the archive `out` of the installation `target` (resolveTarget). Returns the manifest. */
export async function backup(target, out) {
  const { dataDir, databaseUrl, setup } = target;
  const staging = path.join(path.dirname(out), `.cellhub-backup-${randomBytes(4).toString('hex')}`);
  mkdirSync(path.join(staging, 'database'), { recursive: true });
  try {
    let applied;
    const fromData = [];
    if (setup === 'embedded') {
      const pgDir = path.join(dataDir, 'pg');
      if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
        throw new BackupError(`no embedded database in ${pgDir}: is DATA_DIR (or DATABASE_URL) right?`);
      }
      assertPgliteClosed(pgDir);
      const db = await openPglite(pgDir);
      try {
        applied = await appliedMigrations(async (q) => (await db.query(q)).rows);
      } finally {
        await db.close();
      }
      assertPgliteClosed(pgDir);
      fromData.push('pg');
    } else {
      // pg_dump reads one snapshot, so the database part is consistent while the servers run.
      applied = await withPg(databaseUrl, (c) => appliedMigrations(async (q) => (await c.query(q)).rows));
      await run('pg_dump', [
        '--format=custom',
        '--file',
        path.join(staging, 'database/cellhub.dump'),
        '--dbname',
        databaseUrl,
      ]);
    }
    const hasFiles = existsSync(path.join(dataDir, 'files'));
    const hasKey = existsSync(path.join(dataDir, 'secret.key'));
    const manifest = {
      format: FORMAT,
      version: FORMAT_VERSION,
      createdAt: new Date().toISOString(),
      setup,
      migrations: describeMigrations(applied),
      files: hasFiles,
      secretKey: hasKey ? 'file' : process.env.SECRET_KEY ? 'environment' : 'none',
    };
    writeFileSync(path.join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const partial = `${out}.partial`;
    if (hasFiles) fromData.push('files');
    if (hasKey) fromData.push('secret.key');
    await run('tar', [
      '-czf',
      partial,
      '-C',
      staging,
      'manifest.json',
      ...(setup === 'postgres' ? ['database'] : []),
      ...(fromData.length ? ['-C', dataDir, ...fromData] : []),
    ]);
    chmodSync(partial, 0o600);
    renameSync(partial, out);
    return manifest;
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(`${out}.partial`, { force: true });
  }
}

/** Refuses a backup whose database is ahead of this code: its schema has migrations the code does not know. */
export function checkMigrationLevel(manifest) {
  const code = codeMigrations();
  const codeLast = code.at(-1)?.when ?? 0;
  const last = manifest.migrations?.last;
  if (last && last.when > codeLast) {
    throw new BackupError(
      `the backup is from a newer Cellhub (its database has migration ${last.tag ?? `of ${new Date(last.when).toISOString()}`}, ` +
        `this code ends at ${code.at(-1)?.tag}): upgrade this installation first, then restore`,
    );
  }
  return { behind: code.filter((m) => m.when > (last?.when ?? 0)).length };
}

/**
 * Restores the archive `input` into the installation `target`. Refuses a target that holds data unless `force`
 * (then that data is replaced), a backup of the other setup, and a backup newer than this code.
 */
export async function restore(target, input, { force = false } = {}) {
  const { dataDir, databaseUrl, setup } = target;
  if (!existsSync(input)) throw new BackupError(`no such file: ${input}`);
  mkdirSync(dataDir, { recursive: true });
  // Beside DATA_DIR, so the files move in by rename instead of a second copy.
  const staging = path.join(
    path.dirname(dataDir),
    `.${path.basename(dataDir)}-restore-${randomBytes(4).toString('hex')}`,
  );
  mkdirSync(staging);
  try {
    // The manifest alone first: refusing another setup or a newer version costs no unpacking.
    await run('tar', ['-xzf', input, '-C', staging, 'manifest.json']).catch(() => undefined);
    let manifest;
    try {
      manifest = JSON.parse(readFileSync(path.join(staging, 'manifest.json'), 'utf8'));
    } catch {
      throw new BackupError(`${input} is not a Cellhub backup (no manifest.json)`);
    }
    if (manifest.format !== FORMAT || manifest.version > FORMAT_VERSION) {
      throw new BackupError(`${input} is not a Cellhub backup this version can read`);
    }
    if (manifest.setup !== setup) {
      throw new BackupError(
        `the backup is of the ${manifest.setup} setup and the target is ${setup} ` +
          `(${setup === 'postgres' ? 'DATABASE_URL is set' : 'DATABASE_URL is not set'}); restore into the same setup`,
      );
    }
    const { behind } = checkMigrationLevel(manifest);
    await run('tar', ['-xzf', input, '-C', staging]);

    const keyFile = path.join(dataDir, 'secret.key');
    const stagedKey = path.join(staging, 'secret.key');
    const keyDiffers =
      existsSync(keyFile) &&
      (!existsSync(stagedKey) || !readFileSync(keyFile).equals(readFileSync(stagedKey)));
    const pgDir = path.join(dataDir, 'pg');
    const filesDir = path.join(dataDir, 'files');
    const held = [];
    if (!isEmptyDir(filesDir)) held.push(filesDir);
    if (keyDiffers) held.push(keyFile);
    if (setup === 'embedded') {
      assertPgliteClosed(pgDir);
      if (!isEmptyDir(pgDir)) held.push(pgDir);
    } else {
      const tables = await withPg(databaseUrl, async (c) => {
        const r = await c.query(
          `select count(*)::int as n from pg_tables where schemaname in ('public', 'drizzle')`,
        );
        return r.rows[0].n;
      });
      if (tables > 0) held.push(`the database (${tables} tables)`);
    }
    if (held.length && !force) {
      throw new BackupError(
        `the target is not empty (${held.join(', ')}): restore with --force to replace it`,
      );
    }

    rmSync(filesDir, { recursive: true, force: true });
    if (setup === 'embedded') {
      if (!existsSync(path.join(staging, 'pg/PG_VERSION')))
        throw new BackupError(`${input} holds no database`);
      rmSync(pgDir, { recursive: true, force: true });
      renameSync(path.join(staging, 'pg'), pgDir);
    } else {
      if (held.length) {
        await withPg(databaseUrl, (c) =>
          c.query(
            'DROP SCHEMA IF EXISTS drizzle CASCADE; DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public',
          ),
        );
      }
      // Owners and grants name roles of the source cluster; the restoring role owns everything instead.
      await run('pg_restore', [
        '--no-owner',
        '--no-privileges',
        '--exit-on-error',
        '--single-transaction',
        '--dbname',
        databaseUrl,
        path.join(staging, 'database/cellhub.dump'),
      ]);
    }
    if (existsSync(path.join(staging, 'files'))) renameSync(path.join(staging, 'files'), filesDir);
    if (existsSync(stagedKey)) {
      copyFileSync(stagedKey, keyFile);
      chmodSync(keyFile, 0o600);
    }
    return { manifest, migrationsToApply: behind, files: countFiles(filesDir) };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function countFiles(dir) {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n++;
  return n;
}

/** Runs a CLI body: a BackupError becomes one line on stderr and exit code 1. */
export function cli(main) {
  main().then(
    () => process.exit(0),
    (err) => {
      if (err instanceof BackupError) console.error(`cellhub: ${err.message}`);
      else console.error(err);
      process.exit(1);
    },
  );
}

export const describeSize = (file) => `${(statSync(file).size / 1024 / 1024).toFixed(1)} MB`;
