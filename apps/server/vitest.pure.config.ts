import { defineConfig } from 'vitest/config';
import { pureTests } from './vitest.pure.js';

// Server tests without a database or broker (see vitest.pure.ts); `npm run test:fast` runs this project.
export default defineConfig({
  test: {
    name: 'server-pure',
    environment: 'node',
    include: pureTests,
    setupFiles: ['./vitest.pure-guard.ts'],
  },
});
