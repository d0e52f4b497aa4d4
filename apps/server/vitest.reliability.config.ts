import { defineConfig } from 'vitest/config';

// The reliability and security suite (src/reliability, docs/reliability.md): faults, hostile input, rights, crash
// and outage, each test printing the figure it measured. `npm test` runs it once at CI size (it picks its own
// database and broker per test, so it is not run again on PostgreSQL); `npm run test:reliability` runs it alone at
// full size and prints the figures (scripts/run-reliability.mjs).
export default defineConfig({
  test: {
    name: 'reliability',
    environment: 'node',
    include: ['src/reliability/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
