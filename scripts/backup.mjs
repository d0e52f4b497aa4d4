#!/usr/bin/env node
// `npm run backup -- --out FILE`: one archive of the database and DATA_DIR's files (docs/operations.md, "Backups").
// Reads DATA_DIR and DATABASE_URL like the server (environment; --env-file FILE, --data-dir, --database-url win).
// Embedded setup: stop the server first (PGlite serves one process). PostgreSQL: the servers may run.
import { parseArgs } from 'node:util';
import { backup, BackupError, cli, describeSize, resolveTarget, userPath } from './lib/backup-archive.mjs';

cli(async () => {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      'env-file': { type: 'string' },
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
    },
  });
  if (!values.out) throw new BackupError('usage: npm run backup -- --out FILE [--env-file FILE]');
  const target = resolveTarget(values);
  const out = userPath(values.out);
  const manifest = await backup(target, out);
  console.log(
    `cellhub: backed up the ${target.setup} setup (${manifest.migrations.applied} migrations applied, last ` +
      `${manifest.migrations.last?.tag ?? 'none'}) to ${out} (${describeSize(out)})`,
  );
  if (manifest.secretKey === 'environment') {
    console.log(
      'cellhub: SECRET_KEY comes from the environment and is not in the archive: keep it with the backup',
    );
  }
});
