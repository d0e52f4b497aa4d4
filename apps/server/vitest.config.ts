import { defineConfig } from 'vitest/config';
import { pureTests } from './vitest.pure.js';

// Integration tests: each file builds its own app on its own database (and broker). The pure tests run in their
// own project (vitest.pure.config.ts) and are not run again on PostgreSQL; so does the reliability suite
// (vitest.reliability.config.ts, run by `npm run test:reliability`), which picks its database and broker per test.
export default defineConfig({
  test: {
    name: 'server',
    environment: 'node',
    include: ['src/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'src/reliability/**', ...pureTests],
    // Each file builds its own app on its own database; argon2 hashing makes some tests slow-ish.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
