import { describe, expect, it } from 'vitest';
import { downTopic, HEX_RULE, parseTopic, propertyUp, SN_RULE, upTopic } from './protocol';

describe('device topics', () => {
  it('builds and parses P/up and P/down topics', () => {
    expect(upTopic('pk1234', 'SN-1', 'property')).toBe('dev/pk1234/SN-1/up/property');
    expect(downTopic('pk1234', 'SN-1', 'cmd')).toBe('dev/pk1234/SN-1/down/cmd');
    expect(parseTopic('dev/pk1234/SN-1/up/property')).toEqual({
      productKey: 'pk1234',
      sn: 'SN-1',
      direction: 'up',
      kind: 'property',
    });
  });

  it.each([
    'dev/pk/sn/up',
    'dev/pk/sn/sideways/x',
    'x/pk/sn/up/property',
    'dev/pk/sn/up/property/extra',
    'dev//sn/up/x',
  ])('rejects %s', (topic) => expect(parseTopic(topic)).toBeUndefined());

  it('keeps serial numbers usable as one topic level and a clientId', () => {
    for (const ok of ['SN-1', 'a', '8986.01:x_y']) expect(SN_RULE.test(ok), ok).toBe(true);
    for (const bad of ['a/b', 'a+b', '#', '$SYS', 'a b', '', 'x'.repeat(65)])
      expect(SN_RULE.test(bad), bad).toBe(false);
  });
});

describe('payloads', () => {
  it('accepts single and batch property messages and refuses timestamps in seconds', () => {
    expect(propertyUp.safeParse({ id: 'm1', params: { t: 1, s: 'x', b: true } }).success).toBe(true);
    expect(propertyUp.safeParse({ items: [{ ts: 1_700_000_000_000, params: { t: 1 } }] }).success).toBe(true);
    expect(propertyUp.safeParse({ items: [{ ts: 1_700_000_000, params: { t: 1 } }] }).success).toBe(false);
    expect(propertyUp.safeParse({ params: { t: { nested: 1 } } }).success).toBe(false);
    expect(propertyUp.safeParse({ params: [] }).success).toBe(false);
  });

  it('checks hex command data as the seed says: even length, no 0x', () => {
    expect(HEX_RULE.test('01030000000AC5CD')).toBe(true);
    expect(HEX_RULE.test('0x0103')).toBe(false);
    expect(HEX_RULE.test('010')).toBe(false);
    expect(HEX_RULE.test('zz')).toBe(false);
  });
});
