import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import mqtt from 'mqtt';
import { Aedes } from 'aedes';
import { describe, expect, it } from 'vitest';
import { pureTests } from '../vitest.pure';

// What a test imports to reach a database or a broker: the test app (and the kits built on it), the drivers, the
// broker, an MQTT client.
const OPENS =
  /from '(?:[./]+\/(?:test\/(?:app|gateway-test-kit|ota-test-kit|alerts-test-kit|notify-test-kit|sim-test-support)|app|db\/client|plugins\/broker)|pg|@electric-sql\/pglite|aedes|mqtt)'/;

const serverRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(serverRoot, path)] : [];
  });
}

describe('pure server tests (npm run test:fast)', () => {
  // The reliability suite is its own project (vitest.reliability.config.ts), whatever its files import.
  const files = testFiles(join(serverRoot, 'src')).filter((file) => !file.startsWith('src/reliability/'));

  it('lists every test that reaches neither the test app, a database nor a broker', () => {
    const unlisted = files.filter(
      (file) => !pureTests.includes(file) && !OPENS.test(readFileSync(join(serverRoot, file), 'utf8')),
    );
    // A test named here looks pure: add it to apps/server/vitest.pure.ts so the fast loop runs it.
    expect(unlisted).toEqual([]);
  });

  it('lists only tests that exist and import none of them', () => {
    // This file imports the drivers itself, to prove the guard is on.
    const self = relative(serverRoot, fileURLToPath(import.meta.url));
    const listedButOpening = pureTests.filter(
      (file) =>
        !files.includes(file) || (file !== self && OPENS.test(readFileSync(join(serverRoot, file), 'utf8'))),
    );
    expect(listedButOpening).toEqual([]);
  });

  it('runs under a guard that refuses databases and brokers', () => {
    expect(() => new PGlite()).toThrow(/pure test/);
    expect(() => new pg.Pool()).toThrow(/pure test/);
    expect(() => new Aedes()).toThrow(/pure test/);
    expect(() => mqtt.connect('mqtt://127.0.0.1:1')).toThrow(/pure test/);
  });
});
