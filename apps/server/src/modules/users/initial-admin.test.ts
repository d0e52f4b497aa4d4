import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../app';
import { PASSWORD_RULE } from '@cellhub/contract/auth';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A server on PGlite in DATA_DIR/pg (the `npm start` default), without CELLHUB_ADMIN_PASSWORD. */
async function start(dataDir: string) {
  const app = await buildApp({
    env: {},
    logger: false,
    config: { dataDir, mqttPort: 0, host: '127.0.0.1', secretKey: 'k'.repeat(40), rateLimitPerMinute: 0 },
  });
  await app.ready();
  return app;
}

describe('first start', () => {
  // Two first starts on PGlite, each running every migration from nothing: slow on a busy machine.
  it(
    'creates admin with a generated password, prints it once and writes it to a 0600 file; never again',
    { timeout: 120_000 },
    async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'cellhub-first-'));
      dirs.push(dataDir);
      const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);

      const first = await start(dataDir);
      const printed = out.mock.calls.map((c) => String(c[0])).join('');
      const file = path.join(dataDir, 'initial-admin-password.txt');
      const password = readFileSync(file, 'utf8').trim();
      expect(PASSWORD_RULE.test(password)).toBe(true);
      expect(printed).toContain(password);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const login = await first.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: 'admin', password },
      });
      expect(login.json().data).toMatchObject({ issuper: true });
      await first.close();

      out.mockClear();
      rmSync(file);
      const second = await start(dataDir);
      expect(out.mock.calls.map((c) => String(c[0])).join('')).not.toContain('created the account');
      expect(() => statSync(file)).toThrow();
      await second.close();
    },
  );
});
