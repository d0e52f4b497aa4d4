import { describe, expect, it } from 'vitest';
import { commandDataError } from './command-data';

describe('commandDataError (seed section 5)', () => {
  it('accepts even-length hex without a prefix, in either case', () => {
    expect(commandDataError('hex', '01030000000AC5CD')).toBeUndefined();
    expect(commandDataError('hex', 'ab')).toBeUndefined();
  });

  it('names what is wrong with bad hex', () => {
    expect(commandDataError('hex', '0x0103')).toBe('deviceDetail.cmd.err.prefix');
    expect(commandDataError('hex', '010')).toBe('deviceDetail.cmd.err.odd');
    expect(commandDataError('hex', '01 03')).toBe('deviceDetail.cmd.err.chars');
    expect(commandDataError('hex', 'zz')).toBe('deviceDetail.cmd.err.chars');
    expect(commandDataError('hex', '')).toBe('deviceDetail.cmd.err.required');
  });

  it('takes any text as a string command, up to the limit', () => {
    expect(commandDataError('string', '0x hello')).toBeUndefined();
    expect(commandDataError('string', 'x'.repeat(4097))).toBe('deviceDetail.cmd.err.tooLong');
  });
});
