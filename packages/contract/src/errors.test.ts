import { describe, expect, it } from 'vitest';
import { ERROR_CODES, errorText, isErrorCode, SILENT_CODES } from './errors';

// Every code of seed section 8 must be in the table.
const SEED_CODES = [
  100, 10101, 10109, 10110, 10111, 10112, 10113, 10114, 10115, 10116, 10117, 10118, 10119, 10120, 10210,
  10211, 10212, 11000, 11001, 11002, 11003, 11004, 11005, 11006, 11007, 11008, 11009, 11010, 11011, 11012,
  11013, 11014, 11015, 11016, 20115, 20116, 20117, 20118, 20119, 20120, 20121, 20122, 20123, 20124, 20125,
  20126, 20127, 20128, 20401, 20402, 20403, 30015, 31001, 31002, 40001, 40002, 40003, 50001, 50002, 50003,
  60001, 70001, 70002, 70003, 80001, 80002, 80003, 90000, 90001, 90002,
];

describe('error code table', () => {
  it('holds every seed code with both texts', () => {
    for (const code of SEED_CODES) {
      expect(isErrorCode(code), String(code)).toBe(true);
      expect(errorText(code, 'en-US')).toMatch(/\S/);
      expect(errorText(code, 'zh-CN')).toMatch(/\S/);
    }
  });

  it('maps upload codes to their HTTP statuses', () => {
    expect(ERROR_CODES[50001].http).toBe(413);
    expect(ERROR_CODES[50002].http).toBe(415);
    expect(ERROR_CODES[10101].http).toBe(500);
    expect(ERROR_CODES[10104].http).toBe(429);
  });

  it('keeps the silent codes of seed section 8', () => {
    expect([...SILENT_CODES].sort()).toEqual([20123, 20124, 20126]);
  });

  it('answers undefined for unknown codes', () => {
    expect(errorText(12345, 'en-US')).toBeUndefined();
    expect(isErrorCode('10101')).toBe(false);
  });
});
