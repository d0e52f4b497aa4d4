#!/usr/bin/env node
// `npm run restore -- --in FILE [--force]`: puts a `npm run backup` archive back (docs/operations.md, "Backups").
// Stop every server of the installation first. Refuses a target that holds data unless --force, a backup of the
// other setup, and a backup newer than this code; an older one is migrated when the server starts.
import { parseArgs } from 'node:util';
import { BackupError, cli, resolveTarget, restore, userPath } from './lib/backup-archive.mjs';

cli(async () => {
  const { values } = parseArgs({
    options: {
      in: { type: 'string' },
      force: { type: 'boolean', default: false },
      'env-file': { type: 'string' },
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
    },
  });
  if (!values.in) throw new BackupError('usage: npm run restore -- --in FILE [--force] [--env-file FILE]');
  const target = resolveTarget(values);
  const { manifest, migrationsToApply, files } = await restore(target, userPath(values.in), {
    force: values.force,
  });
  console.log(
    `cellhub: restored the ${target.setup} setup from ${manifest.createdAt} (${files} files) into ` +
      `${target.setup === 'embedded' ? target.dataDir : 'DATABASE_URL'}` +
      (migrationsToApply ? `; ${migrationsToApply} newer migrations run when the server starts` : ''),
  );
  if (manifest.secretKey === 'environment') {
    console.log(
      'cellhub: the backed-up server took SECRET_KEY from its environment: set the same SECRET_KEY here',
    );
  }
});
