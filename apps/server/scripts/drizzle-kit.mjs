// Runs drizzle-kit with `drizzle-orm` resolved from this package. npm installs drizzle-orm under
// apps/server/node_modules but hoists drizzle-kit to the root, where its own `import('drizzle-orm/...')` fails.
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const serverRoot = path.resolve(here, '..');
process.env.NODE_PATH = [path.join(serverRoot, 'node_modules'), process.env.NODE_PATH]
  .filter(Boolean)
  .join(path.delimiter);
createRequire(import.meta.url)('node:module').Module._initPaths();
register('./drizzle-kit-hooks.mjs', import.meta.url, {
  data: { parent: pathToFileURL(path.join(serverRoot, 'package.json')).href },
});

const kitMain = createRequire(path.join(serverRoot, 'package.json')).resolve('drizzle-kit');
const bin = path.join(path.dirname(kitMain), 'bin.cjs');
process.argv = [process.argv[0], bin, ...process.argv.slice(2)];
await import(pathToFileURL(bin).href);
