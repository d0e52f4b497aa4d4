import { describe, expect, it } from 'vitest';
import { alertConfigProblem, alertTriggerProblem } from '@cellhub/contract/alerts';
import { meetsPresence, meetsValue, numericOf, renderContent } from './alert-conditions';

describe('conditions at their edges', () => {
  it('3 less than A: just below meets, equal and above do not', () => {
    const c = { type: 3 as const, a: 10, b: null };
    expect(meetsValue(c, 9.999)).toBe(true);
    expect(meetsValue(c, 10)).toBe(false);
    expect(meetsValue(c, 10.001)).toBe(false);
    expect(meetsValue(c, -1e9)).toBe(true);
  });

  it('4 greater than B: just above meets, equal and below do not', () => {
    const c = { type: 4 as const, a: null, b: 30 };
    expect(meetsValue(c, 30.001)).toBe(true);
    expect(meetsValue(c, 30)).toBe(false);
    expect(meetsValue(c, 29.999)).toBe(false);
  });

  it('5 between A and B includes both ends', () => {
    const c = { type: 5 as const, a: 10, b: 20 };
    expect(meetsValue(c, 10)).toBe(true);
    expect(meetsValue(c, 20)).toBe(true);
    expect(meetsValue(c, 15)).toBe(true);
    expect(meetsValue(c, 9.999)).toBe(false);
    expect(meetsValue(c, 20.001)).toBe(false);
  });

  it('6 outside A..B is the exact opposite of between: both ends are inside', () => {
    const c = { type: 6 as const, a: 10, b: 20 };
    expect(meetsValue(c, 10)).toBe(false);
    expect(meetsValue(c, 20)).toBe(false);
    expect(meetsValue(c, 9.999)).toBe(true);
    expect(meetsValue(c, 20.001)).toBe(true);
    for (const v of [9, 10, 10.5, 20, 21]) {
      expect(meetsValue(c, v)).toBe(!meetsValue({ ...c, type: 5 }, v));
    }
  });

  it('7 equal to A: only the value itself', () => {
    const c = { type: 7 as const, a: 1, b: null };
    expect(meetsValue(c, 1)).toBe(true);
    expect(meetsValue(c, 0.999)).toBe(false);
    expect(meetsValue(c, 1.001)).toBe(false);
    expect(meetsValue(c, true)).toBe(true);
    expect(meetsValue(c, false)).toBe(false);
    expect(meetsValue(c, '1')).toBe(true);
  });

  it('1 online and 2 online/offline follow the online state', () => {
    expect(meetsPresence(1, 1)).toBe(true);
    expect(meetsPresence(1, 0)).toBe(false);
    expect(meetsPresence(2, 0)).toBe(true);
    expect(meetsPresence(2, 1)).toBe(false);
    expect(meetsPresence(3, 1)).toBeUndefined();
  });

  it('values that are not numbers neither raise nor recover', () => {
    expect(numericOf('12.5')).toBe(12.5);
    expect(numericOf(' -3e2 ')).toBe(-300);
    expect(numericOf('abc')).toBeUndefined();
    expect(numericOf('')).toBeUndefined();
    expect(numericOf('0x10')).toBeUndefined();
    expect(meetsValue({ type: 4, a: null, b: 1 }, 'high')).toBeUndefined();
    expect(meetsValue({ type: 3, a: null, b: null }, 1)).toBeUndefined();
  });
});

describe('the seed rules of a trigger body (shared with the console)', () => {
  const base = {
    source: 'device' as const,
    sn: 'SN1',
    scene_id: null,
    key: 'temp',
    a: null,
    b: null,
    push_mode: 'once' as const,
    silence_s: 300,
  };
  it('names the code and the field', () => {
    expect(alertTriggerProblem({ ...base, source: 'scene', type: 3, a: 1 })).toEqual({
      code: 11000,
      field: 'scene_id',
    });
    expect(alertTriggerProblem({ ...base, sn: null, type: 1 })).toEqual({ code: 11001, field: 'sn' });
    expect(alertTriggerProblem({ ...base, type: 4 })).toEqual({ code: 11002, field: 'b' });
    expect(alertTriggerProblem({ ...base, type: 3 })).toEqual({ code: 11003, field: 'a' });
    expect(alertTriggerProblem({ ...base, type: 7 })).toEqual({ code: 11003, field: 'a' });
    expect(alertTriggerProblem({ ...base, type: 5 })).toEqual({ code: 11004, field: 'a' });
    expect(alertTriggerProblem({ ...base, type: 6, a: 1 })).toEqual({ code: 11002, field: 'b' });
    expect(alertTriggerProblem({ ...base, type: 6, b: 1 })).toEqual({ code: 11003, field: 'a' });
    expect(alertTriggerProblem({ ...base, type: 5, a: 5, b: 5 })).toEqual({ code: 11005, field: 'b' });
    expect(alertTriggerProblem({ ...base, type: 5, a: 6, b: 5 })).toEqual({ code: 11005, field: 'b' });
    expect(alertTriggerProblem({ ...base, type: 3, key: null, a: 1 })).toEqual({ code: 10113, field: 'key' });
    expect(alertTriggerProblem({ ...base, type: 4, b: 1, push_mode: 'per_silence', silence_s: 0 })).toEqual({
      code: 11010,
      field: 'silence_s',
    });
    expect(alertTriggerProblem({ ...base, type: 5, a: 5, b: 5.001 })).toBeNull();
    expect(alertTriggerProblem({ ...base, type: 2, key: null })).toBeNull();
  });

  it('configurations: 11007, 11010, 11011', () => {
    const c = { trigger_ids: [1], contact_ids: [2], methods: ['sms' as const], interval_s: 60 };
    expect(alertConfigProblem({ ...c, trigger_ids: [] })).toEqual({ code: 11007, field: 'trigger_ids' });
    expect(alertConfigProblem({ ...c, interval_s: null })).toEqual({ code: 11010, field: 'interval_s' });
    expect(alertConfigProblem({ ...c, contact_ids: [] })).toEqual({ code: 11011, field: 'contact_ids' });
    expect(alertConfigProblem({ ...c, contact_ids: [], methods: ['wechat'] })).toBeNull();
    expect(alertConfigProblem(c)).toBeNull();
  });
});

describe('push content', () => {
  const ctx = { device: 'Freezer 1', property: '温度', value: '31.5', time: '2025-01-02 03:04:05 UTC' };
  it('fills every placeholder, as often as it appears', () => {
    expect(renderContent('{device}: {property}={value} ({value}) at {time}', 'raise', ctx)).toBe(
      'Freezer 1: 温度=31.5 (31.5) at 2025-01-02 03:04:05 UTC',
    );
  });
  it('leaves unknown braces alone and uses the default text when empty', () => {
    expect(renderContent('{other} {device}', 'raise', ctx)).toBe('{other} Freezer 1');
    expect(renderContent('  ', 'recover', ctx)).toContain('back to normal: 31.5');
  });
});
