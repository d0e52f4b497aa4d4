import { describe, expect, it } from 'vitest';
import {
  checkCommandDefinition,
  commandParam,
  intToHex,
  patternProblem,
  placeholdersOf,
  renderCommand,
  renderParam,
  replyMatches,
} from './command-groups';

describe('command group rules', () => {
  it('writes ints big-endian in their bytes, two complement when negative, and refuses what does not fit', () => {
    expect(intToHex(1, 1)).toBe('01');
    expect(intToHex(258, 2)).toBe('0102');
    expect(intToHex(-1, 2)).toBe('FFFF');
    expect(intToHex(-128, 1)).toBe('80');
    expect(intToHex(256, 1)).toBeUndefined();
    expect(intToHex(-129, 1)).toBeUndefined();
  });

  it('refuses unsafe or broken patterns and keeps ordinary ones', () => {
    expect(patternProblem('^01(03|04)[0-9A-F]{4}$')).toBeUndefined();
    expect(patternProblem('[a-z.]+')).toBeUndefined();
    expect(patternProblem('(ab)?c+')).toBeUndefined();
    expect(patternProblem('(a+)+$')).toBe('pattern_unsafe');
    expect(patternProblem('(a|b*)*')).toBe('pattern_unsafe');
    expect(patternProblem('((a)+)+')).toBe('pattern_unsafe');
    expect(patternProblem('(a)\\1')).toBe('pattern_unsafe');
    expect(patternProblem('[(]+')).toBeUndefined();
    expect(patternProblem('(')).toBe('pattern_invalid');
    expect(patternProblem('a'.repeat(201))).toBe('pattern_too_long');
  });

  it('checks values by type with the seed codes', () => {
    const int = commandParam.parse({ name: 'n', type: 'int', min: 1, max: 10, bytes: 1 });
    expect(renderParam(int, undefined, 'hex')).toEqual({
      problem: { code: 90000, field: 'params.n', reason: 'missing' },
    });
    expect(renderParam(int, ' ', 'hex')).toMatchObject({ problem: { code: 90001 } });
    expect(renderParam(int, '11', 'hex')).toMatchObject({ problem: { code: 70003, reason: 'out_of_range' } });
    expect(renderParam(int, '1e3', 'hex')).toMatchObject({ problem: { reason: 'not_int' } });
    expect(renderParam(int, 10, 'hex')).toEqual({ value: '0A' });
    expect(renderParam(int, '10', 'string')).toEqual({ value: '10' });
    const hex = commandParam.parse({ name: 'h', type: 'hex', bytes: 2 });
    expect(renderParam(hex, 'a b', 'hex')).toEqual({ value: '00AB' });
    expect(renderParam(hex, '0x01', 'hex')).toMatchObject({ problem: { reason: 'hex_prefix' } });
    expect(renderParam(hex, '12345', 'hex')).toMatchObject({ problem: { reason: 'too_long' } });
    const str = commandParam.parse({ name: 's', type: 'string', max_length: 4, pattern: '[a-z]+' });
    expect(renderParam(str, 'abc', 'string')).toEqual({ value: 'abc' });
    expect(renderParam(str, 'abc1', 'string')).toMatchObject({ problem: { reason: 'pattern' } });
    expect(renderParam(str, 'abcde', 'string')).toMatchObject({ problem: { reason: 'too_long' } });
    const en = commandParam.parse({ name: 'e', type: 'enum', options: ['on', 'off'] });
    expect(renderParam(en, 'maybe', 'string')).toMatchObject({ problem: { reason: 'not_option' } });
  });

  it('renders a template, and checks definitions against it', () => {
    const params = [
      commandParam.parse({ name: 'a', type: 'int', min: 0, max: 255, bytes: 1 }),
      commandParam.parse({ name: 'b', type: 'hex', bytes: 1 }),
    ];
    expect(placeholdersOf('{{a}}{{b}}{{a}}')).toEqual(['a', 'b']);
    expect(renderCommand({ type: 'hex', data: '{{a}} 03 {{b}}', params }, { a: 1, b: 'F' })).toEqual({
      data: '01030F',
      problems: [],
    });
    const base = { type: 'hex' as const, params, reply_pattern: '' };
    expect(checkCommandDefinition({ ...base, data: '{{a}}03{{b}}' })).toEqual([]);
    expect(checkCommandDefinition({ ...base, data: '{{a}}3{{b}}' })[0]).toMatchObject({
      code: 70003,
      field: 'data',
    });
    expect(checkCommandDefinition({ ...base, data: '{{a}}03' })[0]).toMatchObject({
      field: 'params.b',
      reason: 'unused_param',
    });
    expect(checkCommandDefinition({ ...base, data: '{{a}}{{b}}{{c}}' })[0]).toMatchObject({
      reason: 'unknown_param:c',
    });
    expect(checkCommandDefinition({ ...base, data: '{{ a }}{{b}}' }).map((p) => p.reason)).toContain(
      'bad_placeholder: a ',
    );
  });

  it('tells whether a reply matches the expected pattern', () => {
    expect(replyMatches('', 'x')).toBeUndefined();
    expect(replyMatches('^01', '0103')).toBe(true);
    expect(replyMatches('^01', '0203')).toBe(false);
    expect(replyMatches('^01', null)).toBe(false);
  });
});
