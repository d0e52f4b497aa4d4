import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { isErrorCode } from '@cellhub/contract/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from '../test/app';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(() => t.close());

/** Sends raw bytes to the listening server and resolves with everything it answers before closing. */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.end(request);
  });
}

function parse(answer: string): { status: number; type: string | undefined; body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const type = /^content-type: (.*)$/im.exec(head)?.[1];
  return { status, type, body: JSON.parse(body) };
}

describe('errors of the HTTP parser', () => {
  it('answers request headers over the limit with 431 and the error body', async () => {
    const answer = parse(
      await raw(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`),
    );
    expect(answer.status).toBe(431);
    expect(answer.type).toMatch(/^application\/json/);
    expect(answer.body).toEqual({
      code: 10113,
      message: 'Request headers too large',
      details: [{ field: 'headers', message: 'the request headers exceed the size limit' }],
    });
  });

  it('answers malformed HTTP with 400 / 40003', async () => {
    const answer = parse(await raw('GARBAGE\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 40003, message: 'Malformed HTTP request' });
  });

  it('carries the security headers on both, as every answer does', async () => {
    for (const request of [
      `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`,
      'GARBAGE\r\n\r\n',
    ]) {
      const head = (await raw(request)).split('\r\n\r\n')[0] ?? '';
      expect(head).toMatch(/^x-content-type-options: nosniff$/im);
      expect(head).toMatch(/^referrer-policy: strict-origin-when-cross-origin$/im);
      expect(head).toMatch(/^x-frame-options: DENY$/im);
      expect(head).toMatch(/^content-security-policy: default-src 'self';.*frame-ancestors 'none'/im);
    }
  });
});

describe('the device-facing firmware download', () => {
  it('answers junk tokens with codes of the table: 403 / 71004 for a bad token', async () => {
    for (const junk of ['junk', 'a.b', 'a.b.c', 'AAAA.BBBB', '-', 'a%2Fb', '%C3%A9%C3%A9']) {
      const res = await t.inject({ method: 'GET', url: `/api/ota/download/${junk}` });
      expect(res.statusCode, junk).toBe(403);
      expect(errorOf(res).code, junk).toBe(71004);
    }
    for (const junk of ['%zz', 'x'.repeat(600)]) {
      const res = await t.inject({ method: 'GET', url: `/api/ota/download/${junk}` });
      expect(res.statusCode, junk).toBe(400);
      expect(isErrorCode(errorOf(res).code), junk).toBe(true);
      expect(errorOf(res).code, junk).not.toBe(100);
    }
  });
});
