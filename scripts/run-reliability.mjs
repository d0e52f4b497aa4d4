#!/usr/bin/env node
// `npm run test:reliability`: the reliability and security suite (apps/server/src/reliability) alone, at full size,
// then every figure it measured, one per line, and the summary line `N passed, N failed[, N skipped]`.
//   npm run test:reliability                 full size (the issue's numbers; tens of minutes with the soak)
//   npm run test:reliability -- --ci         CI size, as `npm test` runs it
//   npm run test:reliability -- mqtt-faults  only the files whose path matches (vitest's filter)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'test-results');
mkdirSync(outDir, { recursive: true });
const argv = process.argv.slice(2);
const ci = argv.includes('--ci');
const filters = argv.filter((a) => a !== '--ci');
const figuresFile = join(outDir, 'reliability-figures.jsonl');
const reportFile = join(outDir, 'reliability.json');
rmSync(figuresFile, { force: true });
rmSync(reportFile, { force: true });

const r = spawnSync(
  'npx',
  [
    'vitest',
    'run',
    '--config',
    'vitest.reliability.config.ts',
    '--root',
    'apps/server',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${reportFile}`,
    ...filters,
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      RELIABILITY_SCALE: ci ? 'ci' : 'full',
      RELIABILITY_FIGURES_FILE: figuresFile,
    },
  },
);

const figures = existsSync(figuresFile)
  ? readFileSync(figuresFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  : [];
console.log(`\nreliability figures (${ci ? 'CI' : 'full'} size, ${figures.length}):`);
for (const f of figures) {
  console.log(
    `${f.name}: ${f.value}${f.unit ? ` ${f.unit}` : ''}` +
      (f.target ? ` (target ${f.target})` : '') +
      (f.detail ? ` - ${f.detail}` : ''),
  );
}

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  if (r.status !== 0 && failed === 0) failed = 1;
} catch {
  failed = 1;
}
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
