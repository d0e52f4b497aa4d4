import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryError } from './delivery-error';
import { callProvider } from './http';

let server: Server;
let origin: string;
let connections = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/moved') res.writeHead(302, { location: '/ok' }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"Code":"OK"}');
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('callProvider (notification endpoints through the outbound client)', () => {
  it('refuses a private or local endpoint that OUTBOUND_ALLOW does not name: permanent, nothing sent', async () => {
    for (const url of [
      `${origin}/`,
      origin.replace('127.0.0.1', 'localhost'),
      'http://169.254.169.254/',
      'http://[::1]/',
    ]) {
      const err = await callProvider(url, { method: 'GET' }, { timeoutMs: 2000, allow: [] }).catch(
        (e: unknown) => e,
      );
      expect(err, url).toBeInstanceOf(DeliveryError);
      expect(err, url).toMatchObject({
        retryable: false,
        message: 'endpoint refused: the URL points to a private or local address',
      });
    }
    expect(connections).toBe(0);
  });

  it('calls an endpoint OUTBOUND_ALLOW names, and does not follow its redirects', async () => {
    const limits = { timeoutMs: 2000, allow: [new URL(origin).host] };
    const answer = await callProvider(`${origin}/ok`, { method: 'GET' }, limits);
    expect(answer).toEqual({ status: 200, text: '{"Code":"OK"}', json: { Code: 'OK' } });
    const moved = await callProvider(`${origin}/moved`, { method: 'GET' }, limits).catch((e: unknown) => e);
    expect(moved).toBeInstanceOf(DeliveryError);
    expect((moved as DeliveryError).retryable).toBe(true);
    expect((moved as Error).message).toMatch(/redirect/);
    expect(connections).toBe(2);
  });
});
