import { describe, expect, it } from 'vitest';
import { checkCommandValue, userCommandSendBody } from './user-commands';

describe('checkCommandValue (seed section 5)', () => {
  it('asks for a value when none was entered (90000) and refuses blanks (90001)', () => {
    expect(checkCommandValue('hex', undefined)?.code).toBe(90000);
    expect(checkCommandValue('string', '')?.code).toBe(90000);
    expect(checkCommandValue('string', '   ')?.code).toBe(90001);
  });

  it('takes even-length hex without 0x only (70003)', () => {
    expect(checkCommandValue('hex', '01030000000AC5CD')).toBeUndefined();
    expect(checkCommandValue('hex', 'ab')).toBeUndefined();
    expect(checkCommandValue('hex', '0x0103')).toEqual({ code: 70003, reason: 'hex_prefix' });
    expect(checkCommandValue('hex', '010')).toEqual({ code: 70003, reason: 'hex_odd_length' });
    expect(checkCommandValue('hex', '01 03')).toEqual({ code: 70003, reason: 'hex_digits' });
    expect(checkCommandValue('hex', 'zz')).toEqual({ code: 70003, reason: 'hex_digits' });
  });

  it('takes any text as a string command, up to the length limit', () => {
    expect(checkCommandValue('string', 'AT+CSQ\r\n')).toBeUndefined();
    expect(checkCommandValue('string', 'x'.repeat(4097))?.code).toBe(70003);
  });
});

describe('send targets', () => {
  it('accepts lines or an array, trims, drops blanks and duplicates, checks each sn', () => {
    expect(userCommandSendBody.parse({ sns: ' A-1\n\nA-2\r\nA-1 ' }).sns).toEqual(['A-1', 'A-2']);
    expect(userCommandSendBody.parse({ sns: ['B', 'B'] }).sns).toEqual(['B']);
    expect(userCommandSendBody.safeParse({ sns: [] }).success).toBe(false);
    expect(userCommandSendBody.safeParse({ sns: ['a/b'] }).success).toBe(false);
    expect(
      userCommandSendBody.safeParse({ sns: Array.from({ length: 501 }, (_, i) => `D${i}`) }).success,
    ).toBe(false);
  });
});
