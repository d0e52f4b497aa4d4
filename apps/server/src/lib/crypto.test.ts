import { describe, expect, it } from 'vitest';
import { createSecretBox, isSealed } from './crypto';

const box = createSecretBox('k'.repeat(40));

describe('secret box', () => {
  it('round-trips and never repeats a ciphertext', () => {
    const a = box.encrypt('wx-secret-123', 'wechat.secret');
    const b = box.encrypt('wx-secret-123', 'wechat.secret');
    expect(a).not.toBe(b);
    expect(isSealed(a)).toBe(true);
    expect(a).not.toContain('wx-secret-123');
    expect(box.decrypt(a, 'wechat.secret')).toBe('wx-secret-123');
  });

  it('detects tampering', () => {
    const sealed = box.encrypt('hello world');
    const parts = sealed.split(':');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[3] = body.toString('base64url');
    expect(() => box.decrypt(parts.join(':'))).toThrow();
  });

  it('refuses another context, another key and unknown versions', () => {
    const sealed = box.encrypt('x', 'smtp.password');
    expect(() => box.decrypt(sealed, 'sms.secret')).toThrow();
    expect(() => createSecretBox('z'.repeat(40)).decrypt(sealed, 'smtp.password')).toThrow();
    expect(() => box.decrypt(sealed.replace(/^v1/, 'v9'), 'smtp.password')).toThrow();
  });

  it('keys its hmac', () => {
    expect(box.hmac('123456')).not.toBe(createSecretBox('z'.repeat(40)).hmac('123456'));
    expect(box.hmac('123456')).toBe(box.hmac('123456'));
  });
});
