import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HMAC_WINDOW_MS, passwordMatches } from './device-auth';

const secret = 's'.repeat(32);
const hmac = (ms: number, key = secret, sn = 'SN-1') =>
  Buffer.from(`hmac:${ms}:${createHmac('sha256', key).update(`${sn}:${ms}`).digest('hex')}`);

describe('device passwords', () => {
  const now = 1_700_000_000_000;
  it('accepts the secret itself and a fresh hmac', () => {
    expect(passwordMatches(secret, 'SN-1', Buffer.from(secret), now)).toBe(true);
    expect(passwordMatches(secret, 'SN-1', hmac(now - 60_000), now)).toBe(true);
  });
  it('refuses a wrong secret, an hmac outside 15 minutes, for another sn or another key', () => {
    expect(passwordMatches(secret, 'SN-1', Buffer.from('t'.repeat(32)), now)).toBe(false);
    expect(passwordMatches(secret, 'SN-1', hmac(now - HMAC_WINDOW_MS - 1), now)).toBe(false);
    expect(passwordMatches(secret, 'SN-1', hmac(now + HMAC_WINDOW_MS + 1), now)).toBe(false);
    expect(passwordMatches(secret, 'SN-1', hmac(now, secret, 'SN-2'), now)).toBe(false);
    expect(passwordMatches(secret, 'SN-1', hmac(now, 'k'.repeat(32)), now)).toBe(false);
  });
});
