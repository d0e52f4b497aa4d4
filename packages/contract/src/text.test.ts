/// <reference types="vite/client" />
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { BAD_TEXT_MESSAGE, findBadText, isBadText, text } from './text';

// Every module of the contract that declares schemas; a new one is added here (the last test names what it finds).
const modules = import.meta.glob<Record<string, unknown>>(['./*.ts', '!./*.test.ts'], { eager: true });

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  left?: z.ZodType;
  right?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  getter?: () => z.ZodType;
}
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Every string schema reachable from `schema`, with the path it was found at. */
function strings(schema: z.ZodType, path: string, seen: Set<unknown>, out: [string, z.ZodType][]): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const def = defOf(schema);
  if (def.type === 'string') out.push([path, schema]);
  const children: [string, z.ZodType | null | undefined][] = [
    ...Object.entries(def.shape ?? {}).map(([k, v]) => [`${path}.${k}`, v] as [string, z.ZodType]),
    [`${path}[]`, def.element],
    [path, def.innerType],
    ...(def.options ?? []).map((o, i) => [`${path}|${i}`, o] as [string, z.ZodType]),
    [`${path}{key}`, def.keyType],
    [`${path}{}`, def.valueType],
    [path, def.in],
    [path, def.out],
    [path, def.left],
    [path, def.right],
    ...(def.items ?? []).map((o, i) => [`${path}[${i}]`, o] as [string, z.ZodType]),
    [`${path}[...]`, def.rest],
    [path, def.getter?.()],
  ];
  for (const [p, child] of children) if (child) strings(child, p, seen, out);
}

const isSchema = (v: unknown): v is z.ZodType => typeof v === 'object' && v !== null && '_zod' in v;

describe('the text type', () => {
  it('refuses NUL and unpaired surrogates, keeps everything else', () => {
    for (const bad of ['\u0000', 'a\u0000', '\ud800', 'x\udfff', '\udc00\ud800'])
      expect(isBadText(bad)).toBe(true);
    for (const good of ['', 'plain', '泵 🚰', '\u0001\t\n', '\ud83d\ude80'])
      expect(isBadText(good)).toBe(false);
    const r = text().min(1).safeParse('a\u0000');
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message)).toContain(BAD_TEXT_MESSAGE);
  });

  it('finds the path of a bad string or key in a JSON value', () => {
    expect(findBadText({ a: [1, { b: 'x\u0000' }] })).toBe('a.1.b');
    expect(findBadText({ a: { '\ud800': 1 } })).toBe('a.(key)');
    expect(findBadText('\u0000', 'query')).toBe('query');
    expect(findBadText({ a: ['fine', 2, null] })).toBeUndefined();
  });

  it('is the type of every string field of every contract schema', () => {
    const found: [string, z.ZodType][] = [];
    const seen = new Set<unknown>();
    for (const [file, exports] of Object.entries(modules)) {
      for (const [name, value] of Object.entries(exports)) {
        if (isSchema(value)) strings(value, `${file}:${name}`, seen, found);
      }
    }
    expect(found.length).toBeGreaterThan(300);
    // Formats (email, ISO date, URL) are anchored patterns of printable characters: they refuse both by themselves.
    const refusesBoth = (schema: z.ZodType) =>
      ['a\u0000', 'a\ud800'].every((bad) => {
        const r = schema.safeParse(bad);
        return (
          !r.success &&
          ('format' in defOf(schema) || r.error.issues.some((i) => i.message === BAD_TEXT_MESSAGE))
        );
      });
    const plain = found.filter(([, schema]) => !refusesBoth(schema)).map(([path]) => path);
    expect(plain).toEqual([]);
  });
});
