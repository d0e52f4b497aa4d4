import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No module of the server imports itself back through others. A circle (devices -> products -> platforms ->
 * device-log -> devices was one) makes load order matter and every part of it move together; the authorisation
 * layer (lib/authz.ts, modules/devices/device-access.ts) exists so none is needed. Type-only imports count too:
 * the compiler erases them, but a circle of types still ties its files together for the reader, and it becomes a
 * load-order circle the day one of its imports brings a value (shared types belong in a leaf module, as
 * modules/notify/delivery.ts is for the notification adapters). Tests and src/test/ are left out.
 */
const root = path.resolve(__dirname);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return p === path.join(root, 'test') ? [] : sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

function resolve(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** The imports (and re-exports) of each file to files of this tree, type-only ones included. */
export function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    const deps: string[] = [];
    for (const st of sf.statements) {
      if (!(ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) || !st.moduleSpecifier) continue;
      if (!ts.isStringLiteral(st.moduleSpecifier)) continue;
      const spec = st.moduleSpecifier.text;
      if (!spec.startsWith('.')) continue;
      const target = resolve(file, spec);
      if (target) deps.push(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan), or a file importing itself. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('server imports', () => {
  it('finds a circle when there is one (the check itself)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(g).map((c) => c.sort())).toEqual([['a', 'b', 'c']]);
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('counts type-only imports and re-exports as edges', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cellhub-cycles-'));
    try {
      const file = (name: string, text: string) => {
        writeFileSync(path.join(dir, name), text);
        return path.join(dir, name);
      };
      const a = file('a.ts', "import type { B } from './b';\nexport interface A { b?: B }\n");
      const b = file('b.ts', "import { type C } from './c';\nexport interface B { c?: C }\n");
      const c = file('c.ts', "export type { A } from './a';\nexport interface C { n: number }\n");
      const graph = importGraph([a, b, c]);
      expect(graph.get(a)).toEqual([b]);
      expect(graph.get(b)).toEqual([c]);
      expect(graph.get(c)).toEqual([a]);
      expect(cycles(graph).map((x) => x.sort())).toEqual([[a, b, c].sort()]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('form no circle', () => {
    const graph = importGraph(sources(root));
    expect(graph.size).toBeGreaterThan(100);
    const rel = cycles(graph).map((c) => c.map((f) => path.relative(root, f)).sort());
    expect(rel).toEqual([]);
    // Parsing every source file takes a few seconds on a busy machine.
  }, 60_000);
});
