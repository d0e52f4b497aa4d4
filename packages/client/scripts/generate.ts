// `npm run generate -w packages/client`: rewrites src/openapi.d.ts from the server's OpenAPI document.
import { readFileSync, writeFileSync } from 'node:fs';
import { GENERATED_FILE, generateTypes } from './openapi-types';

async function main(): Promise<void> {
  const fresh = await generateTypes();
  let before = '';
  try {
    before = readFileSync(GENERATED_FILE, 'utf8');
  } catch {
    // First generation.
  }
  if (before === fresh) {
    console.log(`${GENERATED_FILE}: up to date`);
    return;
  }
  writeFileSync(GENERATED_FILE, fresh);
  console.log(`${GENERATED_FILE}: rewritten`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
