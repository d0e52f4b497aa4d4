import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPEN_ROUTES } from './open-routes';

/** docs/open-api.md's table of open routes, as `METHOD /api/path` -> scope. */
function documented(): Record<string, string> {
  const doc = readFileSync(new URL('../../../../../docs/open-api.md', import.meta.url), 'utf8');
  const start = doc.indexOf('| scope | method | path |');
  expect(start).toBeGreaterThan(-1);
  const rows: Record<string, string> = {};
  for (const line of doc.slice(start).split('\n').slice(2)) {
    const m = /^\| `([^`]+)` \| `([A-Z]+)` \| `([^`]+)` \|$/.exec(line.trim());
    if (!m) break;
    rows[`${m[2]} ${m[3]}`] = m[1]!;
  }
  return rows;
}

describe('docs/open-api.md', () => {
  it('lists exactly the open routes, each with the scope the server asks for', () => {
    expect(documented()).toEqual({ ...OPEN_ROUTES });
  });
});
