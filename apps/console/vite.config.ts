import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const require = createRequire(import.meta.url);
const arcoEs = path.join(path.dirname(require.resolve('@arco-design/web-react/package.json')), 'es');
const ARCO_IMPORT = /import\s+(type\s+)?\{([^}]*)\}\s+from\s+['"]@arco-design\/web-react['"]/g;

/**
 * Adds the stylesheet of every Arco component a module imports by name, so a route only ships the CSS of the
 * components it uses (the full arco.css costs ~36 KB gzipped more). Lines are appended, not prepended: imports
 * are hoisted anyway and the source map of the original lines stays valid.
 */
export function arcoStylePerComponent(): Plugin {
  return {
    name: 'cellhub:arco-style-per-component',
    enforce: 'pre',
    transform(code, id) {
      if (id.includes('/node_modules/') || !/\.[cm]?[jt]sx?$/.test(id.split('?')[0] ?? '')) return null;
      if (!code.includes('@arco-design/web-react')) return null;
      const names = new Set<string>();
      for (const m of code.matchAll(ARCO_IMPORT)) {
        if (m[1]) continue;
        for (const part of (m[2] ?? '').split(',')) {
          const spec = part.trim();
          if (!spec || spec.startsWith('type ')) continue;
          const name = spec.split(/\s+as\s+/)[0]?.trim();
          if (name) names.add(name);
        }
      }
      const styles = [...names]
        .filter((n) => existsSync(path.join(arcoEs, n, 'style', 'css.js')))
        .map((n) => `import '@arco-design/web-react/es/${n}/style/css.js';`);
      if (styles.length === 0) return null;
      return { code: `${code}\n${styles.join('\n')}\n`, map: null };
    },
  };
}

const backend = process.env.CELLHUB_BACKEND ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [arcoStylePerComponent(), react()],
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
  },
});
