// Reliability suite support (not shipped): reads a V8 heap snapshot (the JSON Chromium's DevTools protocol and
// Node write) into totals by node type and by type and name, and compares two of them. The soak uses it to tell the
// page's own objects from V8's compiled code; run as a script it prints what grew between two snapshot files:
//
//   node --import tsx apps/server/src/reliability/heap-snapshot.ts before.heapsnapshot after.heapsnapshot

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface SnapshotJson {
  snapshot: { meta: { node_fields: string[]; node_types: unknown[] }; node_count: number };
  nodes: number[];
  strings: string[];
}

export interface HeapGroup {
  count: number;
  size: number;
}

export interface HeapSummary {
  /** Self sizes of every node, bytes. */
  total: number;
  /** By node type (`object`, `closure`, `code`, `string`, `hidden`, `native`, ...). */
  byType: Map<string, HeapGroup>;
  /** By `type:name` (names of code and hidden nodes cut to 80 characters). */
  byName: Map<string, HeapGroup>;
}

/** V8's compiled code and what belongs to it (bytecode, feedback, function infos): node type `code`. */
export const CODE_TYPE = 'code';

function add(map: Map<string, HeapGroup>, key: string, size: number): void {
  const g = map.get(key);
  if (g) {
    g.count += 1;
    g.size += size;
  } else map.set(key, { count: 1, size });
}

/** Totals of a snapshot (its JSON text). */
export function summarise(text: string): HeapSummary {
  const json = JSON.parse(text) as SnapshotJson;
  const fields = json.snapshot.meta.node_fields;
  const types = json.snapshot.meta.node_types[0] as string[];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  if (typeAt < 0 || nameAt < 0 || sizeAt < 0) throw new Error('not a V8 heap snapshot: node fields missing');
  const summary: HeapSummary = { total: 0, byType: new Map(), byName: new Map() };
  const { nodes, strings } = json;
  for (let i = 0; i + width <= nodes.length; i += width) {
    const type = types[nodes[i + typeAt]!] ?? 'unknown';
    const size = nodes[i + sizeAt]!;
    summary.total += size;
    add(summary.byType, type, size);
    const name =
      type === 'string' || type === 'concatenated string' ? '(text)' : String(strings[nodes[i + nameAt]!]);
    add(summary.byName, `${type}:${name.slice(0, 80)}`, size);
  }
  return summary;
}

/** Bytes outside V8's compiled code. */
export const withoutCode = (s: HeapSummary): number => s.total - (s.byType.get(CODE_TYPE)?.size ?? 0);

/** Groups whose size changed the most from `a` to `b`, largest growth first. */
export function grown(
  a: Map<string, HeapGroup>,
  b: Map<string, HeapGroup>,
  n = 25,
): { key: string; count: number; size: number }[] {
  const keys = new Set([...a.keys(), ...b.keys()]);
  const out = [...keys].map((key) => ({
    key,
    count: (b.get(key)?.count ?? 0) - (a.get(key)?.count ?? 0),
    size: (b.get(key)?.size ?? 0) - (a.get(key)?.size ?? 0),
  }));
  return out.sort((x, y) => y.size - x.size).slice(0, n);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [fa, fb] = process.argv.slice(2);
  if (!fa || !fb) {
    console.error('usage: heap-snapshot.ts before.heapsnapshot after.heapsnapshot');
    process.exit(2);
  }
  const a = summarise(readFileSync(fa, 'utf8'));
  const b = summarise(readFileSync(fb, 'utf8'));
  const mb = (x: number) => (x / 1024 / 1024).toFixed(2);
  console.log(
    `total ${mb(a.total)} -> ${mb(b.total)} MB; without code ${mb(withoutCode(a))} -> ${mb(withoutCode(b))} MB`,
  );
  console.log('\nby type:');
  for (const g of grown(a.byType, b.byType, 20))
    console.log(`  ${g.key.padEnd(24)} ${g.count} nodes ${mb(g.size)} MB`);
  console.log('\nby type and name:');
  for (const g of grown(a.byName, b.byName, 40))
    console.log(`  ${g.key.padEnd(70)} ${g.count} ${(g.size / 1024).toFixed(1)} KB`);
}
