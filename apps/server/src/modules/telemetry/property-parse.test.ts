import { describe, expect, it } from 'vitest';
import { propertyUp } from '@cellhub/contract/protocol';
import { fastPropertyUp } from './property-parse';

const NOW = 1_732_245_678_123;
const cases: unknown[] = [
  { params: { temp: 21.5, ok: true, mode: 'auto' } },
  { id: 'm1', ts: NOW, params: { t: 1 } },
  { id: 'm1', ts: NOW, params: {} },
  { params: { t: 1 }, extra: 'ignored' },
  { params: { t: 1 }, items: [{ ts: NOW, params: { t: 2 } }] },
  { items: [{ ts: NOW, params: { t: 2 } }] },
  { id: 'x'.repeat(64), params: { t: 1 } },
  { id: 'x'.repeat(65), params: { t: 1 } },
  { id: 5, params: { t: 1 } },
  { ts: NOW / 1000, params: { t: 1 } },
  { ts: 946_684_799_999, params: { t: 1 } },
  { ts: 4_102_444_800_000, params: { t: 1 } },
  { ts: 4_102_444_800_001, params: { t: 1 } },
  { ts: '1732245678123', params: { t: 1 } },
  { ts: null, params: { t: 1 } },
  { id: null, params: { t: 1 } },
  { params: { t: null } },
  { params: { t: [1] } },
  { params: { t: { v: 1 } } },
  { params: { t: 's'.repeat(1024) } },
  { params: { t: 's'.repeat(1025) } },
  { params: { '1bad': 1 } },
  { params: { 'a/b': 1 } },
  { params: { ['k'.repeat(64)]: 1 } },
  { params: { ['k'.repeat(65)]: 1 } },
  { params: { 'a.b-c_d': 1, _x: 2 } },
  { params: [1, 2] },
  { params: 'x' },
  {},
  [],
  null,
  'params',
  42,
  JSON.parse('{"params":{"__proto__":1}}'),
  JSON.parse('{"__proto__":{"x":1},"params":{"t":1}}'),
];

describe('fastPropertyUp', () => {
  it.each(cases.map((c) => [JSON.stringify(c)?.slice(0, 80), c]))(
    'accepts only what the zod schema accepts, with the same result: %s',
    (_label, input) => {
      const fast = fastPropertyUp(input);
      const zod = propertyUp.safeParse(input);
      if (fast !== undefined) {
        expect(zod.success).toBe(true);
        expect(fast).toEqual(zod.data);
      }
    },
  );

  it('takes the common single-set messages itself', () => {
    expect(fastPropertyUp({ id: 'a', ts: NOW, params: { t: 1, s: 'x', b: false } })).toEqual({
      id: 'a',
      ts: NOW,
      params: { t: 1, s: 'x', b: false },
    });
    expect(fastPropertyUp({ params: { t: 1 } })).toEqual({ params: { t: 1 } });
  });
});
