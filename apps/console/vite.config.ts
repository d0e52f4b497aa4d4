import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { compression } from 'vite-plugin-compression2';

const require = createRequire(import.meta.url);
const arcoEs = path.join(path.dirname(require.resolve('@arco-design/web-react/package.json')), 'es');
const ARCO_IMPORT = /import\s+(type\s+)?\{([^}]*)\}\s+from\s+['"]@arco-design\/web-react(\/icon)?['"];?/g;

/** `A`, `B as C`, `type D` of an import's braces. */
function specifiers(list: string): { name: string; local: string; type: boolean }[] {
  return list
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((spec) => {
      const type = spec.startsWith('type ');
      const [name = '', local] = spec
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .map((x) => x.trim());
      return { name, local: local ?? name, type };
    });
}

/**
 * Two rewrites of `import { ... } from '@arco-design/web-react'` (and `/icon`), on our own sources only:
 * - each component is imported from its own module (`es/Button/index.js`, `icon/react-icon/IconPlus/index.js`),
 *   so the module graph says which page uses which component: through the barrels every page "imports" all
 *   of Arco, and the chunk grouping (createChunkGrouper) could not tell them apart;
 * - the stylesheet of every component used is added, so a route only ships the CSS of the components it uses
 *   (the full arco.css costs ~36 KB gzipped more).
 * Type-only specifiers stay on the barrel (erased later). The rewritten lines keep their line count.
 */
export function arcoStylePerComponent(): Plugin {
  // The dev server pre-bundles the barrel once; deep imports there would only add pre-bundling work.
  let build = true;
  return {
    name: 'cellhub:arco-style-per-component',
    enforce: 'pre',
    configResolved(config) {
      build = config.command === 'build';
    },
    transform(code, id) {
      if (id.includes('/node_modules/') || !/\.[cm]?[jt]sx?$/.test(id.split('?')[0] ?? '')) return null;
      if (!code.includes('@arco-design/web-react')) return null;
      const names = new Set<string>();
      const rewritten = code.replace(
        ARCO_IMPORT,
        (whole, typeOnly: string | undefined, list: string, icon) => {
          if (typeOnly) return whole;
          const specs = specifiers(list);
          const types = specs.filter((x) => x.type);
          const values = specs.filter((x) => !x.type);
          if (!icon) values.forEach((x) => names.add(x.name));
          if (!build) return whole;
          const barrel = icon ? '@arco-design/web-react/icon' : '@arco-design/web-react';
          const lines = values.map((x) => {
            const file = icon
              ? `@arco-design/web-react/icon/react-icon/${x.name}/index.js`
              : `@arco-design/web-react/es/${x.name}/index.js`;
            return `import ${x.local} from '${file}';`;
          });
          if (types.length)
            lines.push(
              `import type { ${types.map((x) => (x.local === x.name ? x.name : `${x.name} as ${x.local}`)).join(', ')} } from '${barrel}';`,
            );
          const newlines = whole.split('\n').length - 1;
          return lines.join(' ') + '\n'.repeat(newlines);
        },
      );
      const styles = [...names]
        .filter((n) => existsSync(path.join(arcoEs, n, 'style', 'css.js')))
        .map((n) => `import '@arco-design/web-react/es/${n}/style/css.js';`);
      if (styles.length === 0 && rewritten === code) return null;
      return { code: `${rewritten}\n${styles.join('\n')}\n`, map: null };
    },
  };
}

type ModuleGraph = {
  getModuleInfo(id: string): {
    isEntry: boolean;
    importers: readonly string[];
    dynamicImporters: readonly string[];
    importedIds: readonly string[];
    dynamicallyImportedIds: readonly string[];
  } | null;
};

/** Libraries big enough to be a chunk of their own, loaded only by the screens that draw with them. */
const OWN_CHUNK = /[\\/]node_modules[\\/](echarts|zrender|leaflet|exceljs|papaparse|qrcode)[\\/]/;

/**
 * Groups modules into a few chunks per screen instead of one chunk per combination of lazy pages that share a
 * module (Rolldown's default gave the device list 113 JS and 35 CSS files). A module goes to:
 * - Rolldown's own splitting when the entry or the sign-in page imports it (the /login budget of issue 2); the
 *   other public pages (register) are not budgeted: what they share with signed-in screens goes to `shell` or
 *   `common` (the register page then loads those chunks) instead of a dozen small chunks every signed-in page
 *   waited for (Workplace 25 -> 21 requests before content, /login unchanged at 115.7 KB gz);
 * - its library's chunk for the heavy chart, map, QR code and export libraries;
 * - the shell's own chunk when only the signed-in layout uses it, `common` when the layout and pages use it;
 * - `common` when at least a `commonShare` of the lazy modules (pages, lazy parts) use it (tables, forms, shared
 *   components). A share rather than a count: each new area adds pages, and a fixed count let modules that only
 *   forms use slip into the chunk the device list and detail wait for (issue 13's 300 KB budget: 25 pages of 86
 *   kept the detail at 295 KB br; the same 25 of 94 grew it to 303 KB; a third keeps it at 295 KB);
 * - otherwise Rolldown's own splitting: the page that uses it, or a chunk shared by the few that do.
 * Arco's per-component CSS follows its JavaScript, so CSS is grouped the same way.
 */
export function createChunkGrouper(commonShare = 1 / 3) {
  let reach: Map<string, Set<string>> | undefined;
  /** How many lazy modules must use a module for it to go to `common`: set once the graph is known. */
  let commonPages = Infinity;
  const SHELL = /[\\/]src[\\/]app[\\/]layout[\\/]protected-shell\.tsx$/;
  const PUBLIC = /[\\/]src[\\/]features[\\/]auth[\\/]pages[\\/]login-page\.tsx$/;

  /** For every module, the roots (the entry, every dynamically imported module) that import it statically. */
  function build(anyId: string, ctx: ModuleGraph): Map<string, Set<string>> {
    const info = (id: string) => ctx.getModuleInfo(id);
    // Walk up to the entry, then down through every import to find all modules and the lazy roots.
    let entry = anyId;
    const up = new Set<string>([anyId]);
    const queue = [anyId];
    while (queue.length) {
      const id = queue.shift()!;
      const m = info(id);
      if (!m) continue;
      if (m.isEntry) {
        entry = id;
        break;
      }
      for (const p of [...m.importers, ...m.dynamicImporters])
        if (!up.has(p) && (up.add(p), true)) queue.push(p);
    }
    const roots = new Set<string>([entry]);
    const all = new Set<string>([entry]);
    const down = [entry];
    while (down.length) {
      const m = info(down.pop()!);
      if (!m) continue;
      for (const d of m.dynamicallyImportedIds) roots.add(d);
      for (const d of [...m.importedIds, ...m.dynamicallyImportedIds])
        if (!all.has(d) && (all.add(d), true)) down.push(d);
    }
    const out = new Map<string, Set<string>>();
    for (const root of roots) {
      const tag = root === entry ? '#entry' : root;
      const seen = new Set<string>([root]);
      const stack = [root];
      while (stack.length) {
        const id = stack.pop()!;
        let set = out.get(id);
        if (!set) out.set(id, (set = new Set()));
        set.add(tag);
        for (const d of info(id)?.importedIds ?? []) if (!seen.has(d) && (seen.add(d), true)) stack.push(d);
      }
    }
    return out;
  }

  /** The group of a module: a library name, `common`, or null for Rolldown's own splitting. */
  function classify(id: string): string | null {
    const from = reach?.get(id);
    if (!from) return null;
    if (from.has('#entry')) return null;
    const lib = OWN_CHUNK.exec(id);
    if (lib) return lib[1] === 'zrender' ? 'echarts' : lib[1]!;
    const roots = [...from];
    const open = roots.filter((r) => PUBLIC.test(r)).length;
    // The sign-in page keeps Rolldown's own splitting (the /login budget of issue 2): a group holding what they
    // share with the signed-in screens grew /login from 118 to 192 KB gzipped, because a static import is not
    // always a used one.
    if (open > 0) return null;
    // What only the shell uses stays in the shell's own chunk (its dynamic import's chunk); what it shares with
    // pages goes to `common`, which every signed-in page loads anyway. A `shell` group holding the layout made
    // Rolldown add a 169-byte facade chunk for the dynamic import: one more request on every signed-in page.
    if (roots.some((r) => SHELL.test(r))) return roots.length === 1 ? null : 'common';
    if (roots.length >= commonPages) return 'common';
    return null;
  }

  // The first group's name function sees the module graph and computes the reach of every module. No group takes
  // the modules its modules import along (Rolldown's default): that would drag sign-in or entry modules into them.
  const library = (id: string, ctx: ModuleGraph) => {
    if (!reach) {
      reach = build(id, ctx);
      const lazyRoots = new Set([...reach.values()].flatMap((from) => [...from])).size - 1;
      commonPages = Math.max(2, Math.ceil(commonShare * lazyRoots));
    }
    const c = classify(id);
    return c && c !== 'common' ? c : null;
  };
  const is = (name: string) => (id: string) => classify(id) === name;
  return [
    { name: library, priority: 3, includeDependenciesRecursively: false },
    { name: 'common', test: is('common'), priority: 1, includeDependenciesRecursively: false },
  ];
}

const chunkGroups = createChunkGrouper();

const backend = process.env.CELLHUB_BACKEND ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [
    arcoStylePerComponent(),
    react(),
    // Brotli and gzip copies beside every text asset over 1 KB; the server sends the one the browser accepts
    // (apps/server/src/plugins/console.ts). Source maps are not compressed: they are not served by default.
    compression({
      algorithms: ['brotliCompress', 'gzip'],
      threshold: 1024,
      include: /\.(js|mjs|css|html|svg|json|txt|ico)$/,
      exclude: /\.map$/,
      skipIfLargerOrEqual: true,
    }),
  ],
  resolve: {
    alias: [
      {
        find: /^resize-observer-polyfill$/,
        replacement: fileURLToPath(new URL('./src/lib/resize-observer-native.ts', import.meta.url)),
      },
    ],
  },
  server: {
    port: 5173,
    proxy: {
      '/api/ws': { target: backend, ws: true, changeOrigin: true },
      '/api': { target: backend, changeOrigin: true },
      '/mqtt': { target: backend, ws: true, changeOrigin: true },
    },
  },
  preview: {
    proxy: {
      '/api/ws': { target: backend, ws: true, changeOrigin: true },
      '/api': { target: backend, changeOrigin: true },
      '/mqtt': { target: backend, ws: true, changeOrigin: true },
    },
  },
  build: {
    outDir: 'dist',
    target: 'es2022',
    sourcemap: true,
    manifest: true,
    chunkSizeWarningLimit: 900,
    rolldownOptions: {
      // Required by the inlining below; the entry's exports are used by nobody.
      preserveEntrySignatures: false,
      output: {
        codeSplitting: {
          groups: chunkGroups,
          // What the groups leave to Rolldown (modules the sign-in pages share with others, modules of a few
          // pages) became dozens of chunks of a few hundred bytes (icons, hooks): chunks under 64 KB (source size)
          // are copied into the chunks that use them instead. /login: 39 -> 6 JS files, device list: 74 -> 13,
          // for about the same bytes (`npm run bench:console`, bench/RESULTS.md). Rolldown then runs modules in
          // strict source order (`strictExecutionOrder`), which the copies need.
          experimentalInlineCommonChunks: { maxSize: 64 * 1024 },
        },
      },
    },
  },
});
