import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cachedRoot: string | undefined;

/**
 * The apps/server folder, found from this file rather than the working directory: the same code runs as
 * src/lib/paths.ts (tsx, vitest) and bundled into dist/main.js, from the repo root or from apps/server.
 */
export function serverRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg)) {
      const name = (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name;
      if (name === '@cellhub/server') return (cachedRoot = dir);
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the @cellhub/server package folder');
    dir = parent;
  }
}

export const migrationsFolder = (): string => path.join(serverRoot(), 'drizzle');
