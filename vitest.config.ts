import { defineConfig } from 'vitest/config';
import serverConfig from './apps/server/vitest.config.js';
import { pgliteInCi } from './apps/server/vitest.pure.js';

// One `vitest run` covers every workspace. Server integration tests run on PGlite, and a second time on real
// PostgreSQL when TEST_DATABASE_URL is set (CI sets it). `npm run test:fast` picks the projects that need neither
// a database nor a broker: contract, console, console-node and server-pure. The reliability suite is not here: it
// runs on its own (`npm run test:reliability`, apps/server/vitest.reliability.config.ts), outside CI's 30 minutes.
const onCi = Boolean(process.env.TEST_DATABASE_URL);
const serverOnPg = onCi
  ? [
      {
        extends: './apps/server/vitest.config.ts',
        test: { name: 'server-postgres', root: './apps/server', env: { TEST_DB: 'postgres' } },
      },
    ]
  : [];

export default defineConfig({
  test: {
    // Vitest leaves one core free by default, which on a 2-core CI machine means one worker; most server tests
    // wait on PostgreSQL, the broker or timers, so two workers keep both cores busy.
    maxWorkers: 2,
    projects: [
      './packages/contract',
      './apps/server/vitest.pure.config.ts',
      onCi && process.env.TEST_PGLITE !== 'all'
        ? {
            // With PostgreSQL available (CI), the embedded PGlite run keeps the tests of the parts whose behaviour
            // depends on the engine (its single connection, LISTEN/NOTIFY, group commits, jobs, the gateway's
            // ingest); every other integration test runs on PostgreSQL only. `TEST_PGLITE=all` runs them all.
            // Not `extends`: Vitest would add this include to the server config's instead of replacing it.
            test: { ...serverConfig.test, name: 'server', root: './apps/server', include: pgliteInCi },
          }
        : './apps/server',
      ...serverOnPg,
      './apps/console/vitest.config.ts',
      './apps/console/vitest.node.config.ts',
      './apps/devsim',
      './packages/client',
    ],
  },
});
