import { defineConfig } from 'vitest/config';
import { domUnitTests } from './vitest.dom-tests.js';

// Pure console logic (formatters, request bodies, route and menu tables): no jsdom to start, so they run in a
// fraction of the time. A `.test.ts` that needs a DOM belongs in vitest.dom-tests.ts.
export default defineConfig({
  test: {
    name: 'console-node',
    environment: 'node',
    include: ['src/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...domUnitTests],
  },
});
