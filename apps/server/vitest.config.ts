import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'server',
    environment: 'node',
    include: ['src/**/*.test.ts'],
    // Each file builds its own app on its own database; argon2 hashing makes some tests slow-ish.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
