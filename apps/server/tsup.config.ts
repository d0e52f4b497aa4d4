import { defineConfig } from 'tsup';

// One ESM file for `node dist/main.js`. The contract package ships TypeScript sources, so it is bundled in;
// every other dependency stays in node_modules. Migrations are read from ../drizzle at run time (lib/paths.ts).
export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  splitting: false,
  noExternal: [/^@cellhub\//],
});
