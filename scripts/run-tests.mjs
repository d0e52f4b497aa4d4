#!/usr/bin/env node
// `npm test`: every test of the project, in two runners, and one summary line at the end.
//   1. vitest: contract, server (PGlite, and real PostgreSQL when TEST_DATABASE_URL is set), console units.
//   2. build the console and the server, then Playwright drives Debian's Chromium against the real server.
// The last line is `N passed, N failed[, N skipped]`, counting every test of both runners.
// Pass `--unit` or `--e2e` to run one half only.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'test-results');
mkdirSync(outDir, { recursive: true });
const args = new Set(process.argv.slice(2));
const runUnit = !args.has('--e2e');
const runE2e = !args.has('--unit');

const totals = { passed: 0, failed: 0, skipped: 0 };
// Names of the failed tests, printed again just above the summary so the tail of a CI log says what failed.
const failedNames = [];
let broken = false;

function run(cmd, cmdArgs, extraEnv = {}) {
  console.log(`\n$ ${cmd} ${cmdArgs.join(' ')}`);
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, ...extraEnv } });
  return r.status ?? 1;
}

/** The first lines of a failure's message, indented under its name (a CI log's tail may be all there is). */
function why(message) {
  if (!message) return '';
  const lines = String(message)
    // eslint-disable-next-line no-control-regex -- ANSI colour codes
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '' && !/node_modules|node:internal/.test(l))
    .slice(0, 4)
    .map((l) => `      ${l.slice(0, 200)}`);
  return `\n${lines.join('\n')}`;
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

if (runUnit) {
  const file = join(outDir, 'vitest.json');
  rmSync(file, { force: true });
  const code = run('npx', [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${file}`,
  ]);
  const report = readJson(file);
  if (!report) {
    console.error('vitest wrote no report');
    broken = true;
  } else {
    totals.passed += report.numPassedTests ?? 0;
    totals.failed += report.numFailedTests ?? 0;
    totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    for (const suite of report.testResults ?? []) {
      const file = String(suite.name ?? '').replace(`${root}/`, '');
      const failedHere = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
      for (const t of failedHere)
        failedNames.push(`vitest ${file} › ${t.fullName ?? t.title}${why(t.failureMessages?.[0])}`);
      if (failedHere.length === 0 && suite.status === 'failed')
        failedNames.push(`vitest ${file} (failed to load)`);
    }
    // A file that fails to load counts no test but must not pass silently.
    if (code !== 0 && (report.numFailedTests ?? 0) === 0) {
      console.error(`vitest exited with ${code} (a suite failed to load)`);
      totals.failed += Math.max(1, report.numFailedTestSuites ?? 1);
    }
  }
}

if (runE2e) {
  const built = run('npm', ['run', 'build']);
  if (built !== 0) {
    console.error('build failed: the browser tests cannot run');
    broken = true;
  } else {
    const file = join(outDir, 'playwright.json');
    rmSync(file, { force: true });
    const code = run('npx', ['playwright', 'test', '-c', 'e2e/playwright.config.ts'], {
      PLAYWRIGHT_JSON_OUTPUT_NAME: file,
    });
    const report = existsSync(file) ? readJson(file) : undefined;
    if (!report) {
      console.error('playwright wrote no report');
      broken = true;
    } else {
      const s = report.stats ?? {};
      totals.passed += (s.expected ?? 0) + (s.flaky ?? 0);
      totals.failed += s.unexpected ?? 0;
      totals.skipped += s.skipped ?? 0;
      if (code !== 0 && (s.unexpected ?? 0) === 0) totals.failed += 1;
      const walk = (suite, trail) => {
        for (const spec of suite.specs ?? []) {
          for (const t of spec.tests ?? []) {
            if (t.status === 'unexpected') {
              const error = (t.results ?? []).map((r) => r.error?.message).find(Boolean);
              failedNames.push(`playwright ${[...trail, spec.title].join(' › ')}${why(error)}`);
            }
          }
        }
        for (const child of suite.suites ?? []) walk(child, [...trail, child.title]);
      };
      for (const suite of report.suites ?? []) walk(suite, [suite.title]);
    }
  }
}

if (broken) totals.failed += 1;
if (failedNames.length > 0) {
  console.log(`\nfailed (${failedNames.length}):`);
  for (const name of failedNames) console.log(`  ${name}`);
}
const line =
  `${totals.passed} passed, ${totals.failed} failed` + (totals.skipped ? `, ${totals.skipped} skipped` : '');
console.log(`\n${line}`);
process.exit(totals.failed > 0 ? 1 : 0);
