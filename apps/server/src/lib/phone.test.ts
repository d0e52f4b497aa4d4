import { describe, expect, it } from 'vitest';
import { normalizePhone } from './phone';

describe('normalizePhone', () => {
  it('stores mainland numbers without the country prefix', () => {
    expect(normalizePhone('13812345678')).toBe('13812345678');
    expect(normalizePhone('+8613812345678')).toBe('13812345678');
    expect(normalizePhone('8613812345678')).toBe('13812345678');
  });
  it('keeps other countries in E.164', () => {
    expect(normalizePhone('+4915112345678')).toBe('+4915112345678');
  });
});
