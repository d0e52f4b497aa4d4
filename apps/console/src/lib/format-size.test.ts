import { describe, expect, it } from 'vitest';
import { formatSize } from './format-size';

describe('formatSize', () => {
  it('uses binary units with at most one decimal', () => {
    expect(formatSize(0)).toBe('0 B');
    expect(formatSize(1023)).toBe('1023 B');
    expect(formatSize(1024)).toBe('1 KB');
    expect(formatSize(1536)).toBe('1.5 KB');
    expect(formatSize(64 * 1024)).toBe('64 KB');
    expect(formatSize(150 * 1024)).toBe('150 KB');
    expect(formatSize(64 * 1024 * 1024)).toBe('64 MB');
    expect(formatSize(3.25 * 1024 ** 3)).toBe('3.3 GB');
  });

  it('shows nothing for impossible sizes', () => {
    expect(formatSize(-1)).toBe('');
    expect(formatSize(Number.NaN)).toBe('');
  });
});
