import { PROPERTY_KEY_RULE, type PropertyUp, type PropertyValue } from '@cellhub/contract/protocol';

const MIN_TS = 946_684_800_000;
const MAX_TS = 4_102_444_800_000;
const MAX_TEXT = 1024;
const MAX_ID = 64;

const isTs = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= MIN_TS && v <= MAX_TS;

function isParams(v: unknown): v is Record<string, PropertyValue> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  for (const key in v) {
    // `__proto__` matches the key rule, but zod's output object would not keep it as a key: leave it to zod.
    if (key === '__proto__' || !PROPERTY_KEY_RULE.test(key)) return false;
    const value = (v as Record<string, unknown>)[key];
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return false;
    } else if (typeof value === 'string') {
      if (value.length > MAX_TEXT) return false;
    } else if (typeof value !== 'boolean') return false;
  }
  return true;
}

/**
 * The common single-set shape of `propertyUp` ({id?, ts?, params}) checked by hand, because zod's union costs a
 * visible share of ingest CPU. Returns undefined for anything it does not accept outright (batches, errors); the
 * caller then runs the zod schema, which stays the definition and gives the error details. Only ever accepts what
 * the schema accepts (property-parse.test.ts checks both on the same inputs).
 */
export function fastPropertyUp(json: unknown): PropertyUp | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const m = json as { id?: unknown; ts?: unknown; params?: unknown };
  if (m.id !== undefined && (typeof m.id !== 'string' || m.id.length > MAX_ID)) return undefined;
  if (m.ts !== undefined && !isTs(m.ts)) return undefined;
  if (!isParams(m.params)) return undefined;
  const out: { id?: string; ts?: number; params: Record<string, PropertyValue> } = { params: m.params };
  if (m.id !== undefined) out.id = m.id;
  if (m.ts !== undefined) out.ts = m.ts;
  return out;
}
