import { defineConfig } from 'vitest/config';

// The client's tests: signing vectors (pure) and the client against a real server built in-process on PGlite (or a
// PostgreSQL database when TEST_DB=postgres), the way the server's own integration tests build theirs.
export default defineConfig({
  test: {
    name: 'client',
    environment: 'node',
    include: ['src/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
  },
});
