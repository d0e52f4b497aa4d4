import { defineConfig } from 'drizzle-kit';

// Tables live beside their modules; drizzle-kit reads them all to generate one schema's migrations.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/modules/**/*.table.ts',
  out: './drizzle',
});
