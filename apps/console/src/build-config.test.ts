/** The console build's own plugins (vite.config.ts): Arco imports per component, and the chunk groups. */
import { describe, expect, it } from 'vitest';
import { arcoStylePerComponent, createChunkGrouper } from '../vite.config';

type Transform = (code: string, id: string) => { code: string } | null;
const transform = arcoStylePerComponent().transform as unknown as Transform;

describe('arcoStylePerComponent', () => {
  it('imports each component and icon from its own module, with its stylesheet', () => {
    const code = [
      "import {\n  Button,\n  Input as In,\n  type TableProps,\n} from '@arco-design/web-react';",
      "import { IconPlus } from '@arco-design/web-react/icon';",
      "import type { FormInstance } from '@arco-design/web-react';",
      'export const x = [Button, In, IconPlus];',
    ].join('\n');
    const out = transform(code, '/app/src/page.tsx')!.code;
    expect(out).toContain("import Button from '@arco-design/web-react/es/Button/index.js';");
    expect(out).toContain("import In from '@arco-design/web-react/es/Input/index.js';");
    expect(out).toContain("import type { TableProps } from '@arco-design/web-react';");
    expect(out).toContain("import IconPlus from '@arco-design/web-react/icon/react-icon/IconPlus/index.js';");
    expect(out).toContain("import type { FormInstance } from '@arco-design/web-react';");
    expect(out).toContain("import '@arco-design/web-react/es/Button/style/css.js';");
    expect(out).toContain("import '@arco-design/web-react/es/Input/style/css.js';");
    expect(out).not.toMatch(/import \{[^}]*Button[^}]*\} from '@arco-design\/web-react'/);
    // Lines keep their numbers: the export is still on line 8 (5 lines of the first import, then 2).
    expect(out.split('\n')[7]).toBe('export const x = [Button, In, IconPlus];');
  });

  it('only adds the stylesheets on the dev server, which pre-bundles the barrel', () => {
    const plugin = arcoStylePerComponent();
    (plugin.configResolved as unknown as (c: { command: string }) => void)({ command: 'serve' });
    const devTransform = plugin.transform as unknown as Transform;
    const code = "import { Button } from '@arco-design/web-react';\nexport const x = Button;";
    const out = devTransform(code, '/app/src/page.tsx')!.code;
    expect(out.startsWith(code)).toBe(true);
    expect(out).toContain("import '@arco-design/web-react/es/Button/style/css.js';");
  });

  it('leaves node_modules and files without Arco alone', () => {
    expect(
      transform("import { Button } from '@arco-design/web-react';", '/x/node_modules/y/a.js'),
    ).toBeNull();
    expect(transform("import { useState } from 'react';", '/app/src/a.tsx')).toBeNull();
  });
});

describe('createChunkGrouper', () => {
  // main -> (lazy) login, shell, pages p1..p3; echarts; shared modules.
  const graph: Record<string, { imports?: string[]; lazy?: string[] }> = {
    '/src/main.tsx': {
      imports: ['/src/core.ts'],
      lazy: [
        '/src/features/auth/pages/login-page.tsx',
        '/src/app/layout/protected-shell.tsx',
        '/src/p1.tsx',
        '/src/p2.tsx',
        '/src/p3.tsx',
      ],
    },
    '/src/core.ts': {},
    '/src/features/auth/pages/login-page.tsx': { imports: ['/src/button.ts'] },
    '/src/app/layout/protected-shell.tsx': { imports: ['/src/menu.ts', '/src/button.ts', '/src/link.ts'] },
    '/src/p1.tsx': {
      imports: ['/src/table.ts', '/src/only-p1.ts', '/src/link.ts', '/node_modules/echarts/index.js'],
    },
    '/src/p2.tsx': { imports: ['/src/table.ts', '/src/two.ts'] },
    '/src/p3.tsx': { imports: ['/src/table.ts', '/src/two.ts'] },
  };
  const info = (id: string) => {
    const m = graph[id] ?? {};
    const importers = Object.keys(graph).filter((k) => graph[k]!.imports?.includes(id));
    const dynamicImporters = Object.keys(graph).filter((k) => graph[k]!.lazy?.includes(id));
    return {
      isEntry: id === '/src/main.tsx',
      importers,
      dynamicImporters,
      importedIds: m.imports ?? [],
      dynamicallyImportedIds: m.lazy ?? [],
    };
  };
  const ctx = { getModuleInfo: info };
  const all = [
    '/src/core.ts',
    '/src/menu.ts',
    '/src/link.ts',
    '/src/button.ts',
    '/src/table.ts',
    '/src/only-p1.ts',
    '/src/two.ts',
    '/node_modules/echarts/index.js',
  ];

  it('puts widely shared modules and what the shell shares in `common`, heavy libraries apart, and leaves the rest', () => {
    // Five lazy modules (sign-in, shell, three pages): a half of them is three.
    const [library, common, extra] = createChunkGrouper(0.5);
    // No `shell` group: its facade chunk for the shell's dynamic import was one more request on every page.
    expect(extra).toBeUndefined();
    const name = library!.name as (id: string, c: typeof ctx) => string | null;
    const group = (id: string) => name(id, ctx) ?? (common!.test!(id) ? 'common' : null);
    expect(Object.fromEntries(all.map((id) => [id, group(id)]))).toEqual({
      '/src/core.ts': null, // the entry's
      '/src/menu.ts': null, // the shell's only: its own chunk
      '/src/link.ts': 'common', // the shell's and a page's
      '/src/button.ts': null, // the sign-in page's too: Rolldown's own splitting
      '/src/table.ts': 'common', // three pages
      '/src/only-p1.ts': null,
      '/src/two.ts': null, // two pages: below the threshold
      '/node_modules/echarts/index.js': 'echarts',
    });
  });
});
