import { describe, expect, it } from 'vitest';
import {
  canonicalString,
  canonicalValue,
  parseQueryPairs,
  requestParams,
  SIGNATURE_VECTOR_SECRET,
  SIGNATURE_VECTORS,
} from './signature';
import { accessKeyCreateBody, isIpOrCidr } from './access-keys';

// The contract is browser-safe and typed without Node; the test itself runs on Node, so node:crypto is loaded here.
interface Hmac {
  update(data: string, encoding: 'utf8'): Hmac;
  digest(encoding: 'hex'): string;
}
const nodeCrypto = 'node:crypto';
const { createHmac } = (await import(nodeCrypto)) as { createHmac(alg: string, key: string): Hmac };
const hmac = (secret: string, s: string) => createHmac('sha256', secret).update(s, 'utf8').digest('hex');

describe('signature canonical form', () => {
  it.each(SIGNATURE_VECTORS.map((v) => [v.name, v] as const))('vector: %s', (_name, v) => {
    const params = requestParams(v.method, v.url, v.body);
    expect(params).not.toBeNull();
    const canonical = canonicalString({ path: v.url, ts: v.ts, nonce: v.nonce, params: params! });
    expect(canonical).toBe(v.canonical);
    expect(hmac(SIGNATURE_VECTOR_SECRET, canonical)).toBe(v.signature);
  });

  it('writes values the documented way', () => {
    expect(canonicalValue('a&b')).toBe('a&b');
    expect(canonicalValue(1.0)).toBe('1');
    expect(canonicalValue(1e21)).toBe('1e+21');
    expect(canonicalValue(-0)).toBe('0');
    expect(canonicalValue(true)).toBe('true');
    expect(canonicalValue(false)).toBe('false');
    expect(canonicalValue(null)).toBe('');
    expect(canonicalValue(undefined)).toBeUndefined();
    expect(canonicalValue({ b: 1, a: { c: [null, 'x'] } })).toBe('{"b":1,"a":{"c":[null,"x"]}}');
    expect(canonicalValue([])).toBe('[]');
  });

  it('cuts the /api prefix and the query string, keeps escapes in the path', () => {
    expect(canonicalString({ path: '/api/devices/A%2FB?x=1', ts: 1, nonce: 'nnnnnnnn' })).toBe(
      '/devices/A%2FB&x-n-ts=1&x-n-nonce=nnnnnnnn',
    );
    expect(canonicalString({ path: '/devices', ts: '2', nonce: 'nnnnnnnn' })).toBe(
      '/devices&x-n-ts=2&x-n-nonce=nnnnnnnn',
    );
    // A path that merely starts with "api" is not the prefix.
    expect(canonicalString({ path: '/apis/x', ts: 3, nonce: 'nnnnnnnn' })).toBe(
      '/apis/x&x-n-ts=3&x-n-nonce=nnnnnnnn',
    );
  });

  it('sorts by name then value, so the order a client sends does not matter', () => {
    const a = canonicalString({
      path: '/api/x',
      ts: 1,
      nonce: 'nnnnnnnn',
      params: parseQueryPairs('b=2&a=2&a=1')!,
    });
    const b = canonicalString({
      path: '/api/x',
      ts: 1,
      nonce: 'nnnnnnnn',
      params: parseQueryPairs('?a=1&a=2&b=2')!,
    });
    expect(a).toBe(b);
    expect(a).toBe('/x&x-n-ts=1&x-n-nonce=nnnnnnnn&a=1&a=2&b=2');
    // Code-unit order: upper case before lower case, "_" between them.
    expect(canonicalString({ path: '/x', ts: 1, nonce: 'nnnnnnnn', params: { b: 1, B: 2, _: 3 } })).toBe(
      '/x&x-n-ts=1&x-n-nonce=nnnnnnnn&B=2&_=3&b=1',
    );
  });

  it('query decoding: + is a space, malformed escapes are refused, empty pieces skipped', () => {
    expect(parseQueryPairs('a=x+y%2B&&b')).toEqual([
      ['a', 'x y+'],
      ['b', ''],
    ]);
    expect(parseQueryPairs('a=%E0%A4%A')).toBeNull();
    expect(parseQueryPairs('')).toEqual([]);
  });

  it('non-query methods sign the JSON object body only', () => {
    expect(requestParams('POST', '/api/x?q=1', [1, 2])).toEqual([]);
    expect(requestParams('POST', '/api/x?q=1', undefined)).toEqual([]);
    expect(requestParams('patch', '/api/x', { a: 1 })).toEqual({ a: 1 });
    expect(requestParams('delete', '/api/x?q=1', { a: 1 })).toEqual([['q', '1']]);
  });
});

describe('access key contract', () => {
  it('allow-list entries: IPv4, IPv6 and CIDR', () => {
    for (const ok of [
      '1.2.3.4',
      '10.0.0.0/8',
      '0.0.0.0/0',
      '::1',
      '2001:db8::/32',
      '::ffff:1.2.3.4',
      'fe80::1:2',
    ]) {
      expect(isIpOrCidr(ok), ok).toBe(true);
    }
    for (const bad of [
      '1.2.3',
      '01.2.3.4',
      '1.2.3.4/33',
      '256.1.1.1',
      '::1/129',
      '1::2::3',
      'example.com',
      '1.2.3.4/',
    ]) {
      expect(isIpOrCidr(bad), bad).toBe(false);
    }
  });

  it('create body: scopes known and de-duplicated, expiry with offset', () => {
    expect(accessKeyCreateBody.parse({ name: ' k ', scopes: ['ota', 'ota'] })).toEqual({
      name: 'k',
      scopes: ['ota'],
      ip_allow: [],
      expires_at: null,
    });
    expect(accessKeyCreateBody.safeParse({ name: 'k', scopes: [] }).success).toBe(false);
    expect(accessKeyCreateBody.safeParse({ name: 'k', scopes: ['admin'] }).success).toBe(false);
    expect(
      accessKeyCreateBody.safeParse({ name: 'k', scopes: ['sim'], expires_at: '2030-01-01' }).success,
    ).toBe(false);
    expect(
      accessKeyCreateBody.safeParse({ name: 'k', scopes: ['sim'], expires_at: '2030-01-01T00:00:00Z' })
        .success,
    ).toBe(true);
  });
});
