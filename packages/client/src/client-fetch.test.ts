// createClient with a recording fetch: what it sends is signed over exactly what it sends, and failure bodies become
// CellhubError. (client.test.ts runs the same client against a real server.)
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalString, requestParams } from '@cellhub/contract/signature';
import { CellhubError, createClient } from './index';

/** A fetch that records each request and answers as given. */
function recorder(answer: (req: Request) => Response) {
  const seen: { request: Request; body: string }[] = [];
  const fetch = async (request: Request) => {
    seen.push({ request, body: await request.clone().text() });
    return answer(request);
  };
  return { seen, fetch };
}

/** Checks a recorded request's headers sign what it carries, recomputed independently with node:crypto. */
function expectSigned(r: { request: Request; body: string }, secret: string): string {
  const url = new URL(r.request.url);
  const h = r.request.headers;
  const params = requestParams(
    r.request.method,
    url.pathname + url.search,
    r.body ? JSON.parse(r.body) : undefined,
  );
  const canonical = canonicalString({
    path: url.pathname,
    ts: h.get('x-n-ts')!,
    nonce: h.get('x-n-nonce')!,
    params: params!,
  });
  expect(h.get('x-n-signature')).toBe(createHmac('sha256', secret).update(canonical, 'utf8').digest('hex'));
  return canonical;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('createClient', () => {
  it('signs the exact URL and JSON body it sends', async () => {
    const { seen, fetch } = recorder((req) =>
      req.method === 'GET'
        ? json({ status: true, data: [], total: 0, total_exact: true, property_defs: {} })
        : json({ status: true, data: { id: '1' } }),
    );
    const client = createClient({
      baseUrl: 'http://cellhub.test/',
      accessKey: 'AKX',
      secret: 'sek',
      fetch,
      now: () => 42,
    });

    await client.listDevices({ keyword: 'a b&c', per_page: 5 });
    const list = seen[0]!;
    expect(list.request.url).toMatch(/^http:\/\/cellhub\.test\/api\/devices\?/);
    expect(list.request.headers.get('x-n-accesskey')).toBe('AKX');
    expect(list.request.headers.get('x-n-ts')).toBe('42');
    expect(expectSigned(list, 'sek')).toMatch(
      /^\/devices&x-n-ts=42&x-n-nonce=[0-9a-f]{32}&keyword=a b&c&per_page=5$/,
    );

    await client.sendCommand('SN:1', { type: 'string', data: 'reboot', offline: 'queue', ttl_seconds: 600 });
    const cmd = seen[1]!;
    expect(new URL(cmd.request.url).pathname).toBe('/api/devices/SN%3A1/commands');
    expect(JSON.parse(cmd.body)).toEqual({
      type: 'string',
      data: 'reboot',
      offline: 'queue',
      ttl_seconds: 600,
    });
    expect(expectSigned(cmd, 'sek')).toMatch(
      /^\/devices\/SN%3A1\/commands&x-n-ts=42&x-n-nonce=[0-9a-f]{32}&data=reboot&offline=queue&ttl_seconds=600&type=string$/,
    );
    // Every request has its own nonce.
    expect(cmd.request.headers.get('x-n-nonce')).not.toBe(list.request.headers.get('x-n-nonce'));
  });

  it('throws CellhubError with the code, message, status and details of a failure body', async () => {
    const { fetch } = recorder(() =>
      json({ code: 10227, message: 'Access key lacks the scope for this request' }, 400),
    );
    const client = createClient({ baseUrl: 'http://cellhub.test', accessKey: 'AK', secret: 's', fetch });
    const err = await client.sendCommand('SN1', { type: 'string', data: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CellhubError);
    expect(err).toMatchObject({
      code: 10227,
      status: 400,
      message: 'Access key lacks the scope for this request',
    });

    const invalid = createClient({
      baseUrl: 'http://cellhub.test',
      accessKey: 'AK',
      secret: 's',
      fetch: recorder(() =>
        json({ code: 10113, message: 'Invalid input', details: [{ field: 'data' }] }, 400),
      ).fetch,
    });
    await expect(invalid.request('get', '/api/devices')).rejects.toMatchObject({
      code: 10113,
      details: [{ field: 'data' }],
    });
  });

  it('a failure that is not a Cellhub body still throws CellhubError (code 0, the HTTP status)', async () => {
    const client = createClient({
      baseUrl: 'http://cellhub.test',
      accessKey: 'AK',
      secret: 's',
      fetch: recorder(
        () => new Response('<html>Bad Gateway</html>', { status: 502, statusText: 'Bad Gateway' }),
      ).fetch,
    });
    const err = (await client.listDevices().catch((e: unknown) => e)) as CellhubError;
    expect(err).toBeInstanceOf(CellhubError);
    expect(err.code).toBe(0);
    expect(err.status).toBe(502);
    expect(err.message).toContain('Bad Gateway');
  });
});
