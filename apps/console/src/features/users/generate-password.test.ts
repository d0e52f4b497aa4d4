import { PASSWORD_RULE } from '@cellhub/contract/auth';
import { describe, expect, it } from 'vitest';
import { generatePassword } from './generate-password';

describe('generatePassword', () => {
  it('always meets the password rule and differs from call to call', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const p = generatePassword();
      expect(p).toMatch(PASSWORD_RULE);
      expect(p).toHaveLength(12);
      expect(p).not.toMatch(/[0O1lI]/);
      seen.add(p);
    }
    expect(seen.size).toBe(200);
  });

  it('keeps every class even when the random source is as unlucky as can be', () => {
    expect(generatePassword(8, () => 0)).toMatch(PASSWORD_RULE);
  });
});
