import { describe, expect, it } from 'vitest';
import { SIGNATURE_VECTOR_SECRET, SIGNATURE_VECTORS } from '@cellhub/contract/signature';
import { signRequest } from './sign';

// The client's signature must be the server's: the contract's vectors (packages/contract/src/signature.ts, printed
// in docs/open-api.md), computed here with WebCrypto through signRequest.
describe('signRequest', () => {
  it.each(SIGNATURE_VECTORS.map((v) => [v.name, v] as const))('vector: %s', async (_name, v) => {
    const headers = await signRequest({
      method: v.method,
      path: v.url,
      body: v.body,
      accessKey: 'AKTESTTESTTESTTESTTEST',
      secret: SIGNATURE_VECTOR_SECRET,
      ts: v.ts,
      nonce: v.nonce,
    });
    expect(headers).toEqual({
      'x-n-accesskey': 'AKTESTTESTTESTTESTTEST',
      'x-n-ts': v.ts,
      'x-n-nonce': v.nonce,
      'x-n-signature': v.signature,
    });
  });

  it('signs a body given as JSON text like the parsed body, and a separate query like one on the path', async () => {
    const v = SIGNATURE_VECTORS.find((x) => x.method === 'POST')!;
    const base = { accessKey: 'AK', secret: SIGNATURE_VECTOR_SECRET, ts: v.ts, nonce: v.nonce };
    const fromText = await signRequest({
      ...base,
      method: 'POST',
      path: v.url,
      body: JSON.stringify(v.body),
    });
    expect(fromText['x-n-signature']).toBe(v.signature);

    const g = SIGNATURE_VECTORS[0]!;
    const asObject = await signRequest({
      ...base,
      ts: g.ts,
      nonce: g.nonce,
      method: 'get',
      path: '/api/devices',
      query: { keyword: 'a b&c', per_page: 10, current: 1, unused: undefined },
    });
    expect(asObject['x-n-signature']).toBe(g.signature);
    const asString = await signRequest({
      ...base,
      ts: g.ts,
      nonce: g.nonce,
      method: 'GET',
      path: '/api/devices',
      query: '?current=1&per_page=10&keyword=a+b%26c',
    });
    expect(asString['x-n-signature']).toBe(g.signature);
  });

  it('picks a fresh nonce and the current time when none is given', async () => {
    const a = await signRequest({ method: 'GET', path: '/api/devices', accessKey: 'AK', secret: 's' });
    const b = await signRequest({ method: 'GET', path: '/api/devices', accessKey: 'AK', secret: 's' });
    expect(a['x-n-nonce']).toMatch(/^[0-9a-f]{32}$/);
    expect(a['x-n-nonce']).not.toBe(b['x-n-nonce']);
    expect(Math.abs(Number(a['x-n-ts']) - Date.now() / 1000)).toBeLessThan(5);
  });
});
