/** Expected vs reported configuration, field by field, for the editor's diff table. */
import { fieldName } from './config-model';

export type ConfigDiffKind = 'changed' | 'not_reported' | 'only_reported';

export interface ConfigDiffRow {
  /** Field path as the form names it: `mqtt.subscribe[0].topic`. */
  path: string;
  expected: unknown;
  reported: unknown;
  kind: ConfigDiffKind;
}

/** Every leaf value by path; empty objects and arrays have no leaves (an unused slot is not a difference). */
export function flattenConfig(value: unknown, path: PropertyKey[] = [], out = new Map<string, unknown>()) {
  if (Array.isArray(value)) value.forEach((v, i) => flattenConfig(v, [...path, i], out));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) flattenConfig(v, [...path, k], out);
  else if (value !== undefined && path.length) out.set(fieldName(path), value);
  return out;
}

/** Fields whose expected and reported values differ, in path order. */
export function diffConfig(expected: unknown, reported: unknown): ConfigDiffRow[] {
  const e = flattenConfig(expected);
  const r = flattenConfig(reported);
  const rows: ConfigDiffRow[] = [];
  for (const path of new Set([...e.keys(), ...r.keys()])) {
    const has = { e: e.has(path), r: r.has(path) };
    const ev = e.get(path);
    const rv = r.get(path);
    if (has.e && has.r && Object.is(ev, rv)) continue;
    rows.push({
      path,
      expected: ev,
      reported: rv,
      kind: has.e && has.r ? 'changed' : has.e ? 'not_reported' : 'only_reported',
    });
  }
  return rows.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
}
