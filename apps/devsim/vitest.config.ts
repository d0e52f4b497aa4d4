import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'devsim', environment: 'node', include: ['src/**/*.test.ts'] } });
