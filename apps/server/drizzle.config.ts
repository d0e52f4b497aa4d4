import { defineConfig } from 'drizzle-kit';

// Tables live beside their modules (the job layer's in src/jobs); drizzle-kit reads them all to generate one schema's migrations.
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/modules/**/*.table.ts', './src/jobs/*.table.ts'],
  out: './drizzle',
});
