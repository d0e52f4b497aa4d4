import { describe, expect, it } from 'vitest';
import { formatTime } from './format-time';

describe('formatTime', () => {
  it('writes a timestamp as local YYYY-MM-DD HH:mm:ss with zero padding', () => {
    const d = new Date(2024, 0, 5, 7, 8, 9);
    expect(formatTime(d.toISOString())).toBe('2024-01-05 07:08:09');
  });

  it('leaves empty values empty and unreadable ones as they came', () => {
    expect(formatTime(null)).toBe('');
    expect(formatTime(undefined)).toBe('');
    expect(formatTime('')).toBe('');
    expect(formatTime('not a date')).toBe('not a date');
  });
});
