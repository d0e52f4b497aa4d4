import { defineConfig } from 'vitest/config';
import { domUnitTests } from './vitest.dom-tests.js';

// Component tests and the few `.test.ts` files that need a DOM; the pure ones run in node (vitest.node.config.ts).
export default defineConfig({
  test: {
    name: 'console',
    environment: 'jsdom',
    include: ['src/**/*.test.tsx', ...domUnitTests],
    setupFiles: ['./vitest.setup.ts'],
  },
});
