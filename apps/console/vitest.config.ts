import { defineConfig } from 'vitest/config';
import { domUnitTests } from './vitest.dom-tests.js';

// Component tests and the few `.test.ts` files that need a DOM; the pure ones run in node (vitest.node.config.ts).
export default defineConfig({
  test: {
    name: 'console',
    environment: 'jsdom',
    include: ['src/**/*.test.tsx', ...domUnitTests],
    setupFiles: ['./vitest.setup.ts'],
    // A form test renders Arco in jsdom: ~3 s on a quiet machine, more while CI runs every project at once.
    testTimeout: 20_000,
  },
});
