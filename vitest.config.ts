import { defineConfig } from 'vitest/config';

// One `vitest run` covers every workspace. Server integration tests run on PGlite, and a second time on real
// PostgreSQL when TEST_DATABASE_URL is set (CI sets it).
const serverOnPg = process.env.TEST_DATABASE_URL
  ? [
      {
        extends: './apps/server/vitest.config.ts',
        test: { name: 'server-postgres', root: './apps/server', env: { TEST_DB: 'postgres' } },
      },
    ]
  : [];

export default defineConfig({
  test: {
    projects: ['./packages/contract', './apps/server', ...serverOnPg, './apps/console', './apps/devsim'],
  },
});
