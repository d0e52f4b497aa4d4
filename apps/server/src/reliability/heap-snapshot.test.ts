import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CODE_TYPE, grown, summarise, withoutCode } from './heap-snapshot';

const dir = mkdtempSync(path.join(tmpdir(), 'heap-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A real snapshot (V8's own format) of a small Node process that keeps `n` instances of `Kept` alive. */
function snapshotOf(n: number): string {
  const file = path.join(dir, `kept-${n}.heapsnapshot`);
  const script = `
    class Kept { constructor(i) { this.i = i; this.label = 'k' + i; } }
    globalThis.kept = Array.from({ length: ${n} }, (_, i) => new Kept(i));
    require('v8').writeHeapSnapshot(${JSON.stringify(file)});`;
  execFileSync(process.execPath, ['-e', script]);
  return readFileSync(file, 'utf8');
}

describe('heap snapshot summary', () => {
  it('counts nodes by type and name, and finds what grew between two snapshots', () => {
    const a = summarise(snapshotOf(10));
    const b = summarise(snapshotOf(20_010));
    // Every node is in one type; code is one of them (V8 always has compiled code).
    const byType = [...b.byType.values()].reduce((s, g) => s + g.size, 0);
    expect(byType).toBe(b.total);
    expect(b.byType.get(CODE_TYPE)?.size ?? 0).toBeGreaterThan(0);
    expect(withoutCode(b)).toBe(b.total - b.byType.get(CODE_TYPE)!.size);
    expect(a.byName.get('object:Kept')?.count).toBe(10);
    expect(b.byName.get('object:Kept')?.count).toBe(20_010);
    // The 20,000 more objects are the top growth by name; their strings are counted as text.
    const top = grown(a.byName, b.byName, 3);
    expect(top.map((g) => g.key)).toContain('object:Kept');
    expect(top.find((g) => g.key === 'object:Kept')!.count).toBe(20_000);
    expect(b.byName.get('string:(text)')!.count).toBeGreaterThan(
      a.byName.get('string:(text)')!.count + 19_000,
    );
  });

  it('refuses JSON that is not a heap snapshot', () => {
    expect(() =>
      summarise(
        JSON.stringify({
          snapshot: { meta: { node_fields: ['id'], node_types: [[]] } },
          nodes: [],
          strings: [],
        }),
      ),
    ).toThrow(/not a V8 heap snapshot/);
  });
});
