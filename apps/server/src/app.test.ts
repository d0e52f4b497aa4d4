import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from './test/app';

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'DENY',
};

function expectSecurityHeaders(headers: Record<string, unknown>): void {
  expect(headers).toMatchObject(SECURITY_HEADERS);
  const csp = String(headers['content-security-policy']);
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
}

describe('server core', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      beforeReady(app) {
        app.get('/api/test/boom', { config: { auth: 'public' } }, async () => {
          throw new Error('connection string postgres://secret@db');
        });
      },
    });
  });
  afterAll(() => t.close());

  it('answers health with db and mqtt ok', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: true, data: { db: 'ok', mqtt: 'ok' } });
    expectSecurityHeaders(res.headers);
  });

  it('answers 503 / 10105 naming the failing part', async () => {
    const spy = vi.spyOn(t.app.broker, 'healthy').mockReturnValue(false);
    const res = await t.inject({ method: 'GET', url: '/api/health' });
    spy.mockRestore();
    expect(res.statusCode).toBe(503);
    expect(errorOf(res)).toMatchObject({ code: 10105, details: { db: 'ok', mqtt: 'down' } });

    const dbSpy = vi.spyOn(t.app.deps.db, 'execute').mockRejectedValue(new Error('down'));
    const res2 = await t.inject({ method: 'GET', url: '/api/health' });
    dbSpy.mockRestore();
    expect(res2.statusCode).toBe(503);
    expect(errorOf(res2)).toMatchObject({ code: 10105, details: { db: 'down', mqtt: 'ok' } });
  });

  it('answers unknown /api routes 404 / 10106 with security headers and no status field', async () => {
    for (const [method, url] of [
      ['GET', '/api/nope'],
      ['POST', '/api/devices/x/y'],
      ['GET', '/anything-else'],
    ] as const) {
      const res = await t.inject({ method, url });
      expect(res.statusCode).toBe(404);
      expect(errorOf(res)).toEqual({ code: 10106, message: 'Request address does not exist' });
      expectSecurityHeaders(res.headers);
    }
  });

  it('hides internals of unexpected errors: 500 / 10101 with security headers', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/test/boom' });
    expect(res.statusCode).toBe(500);
    expect(errorOf(res)).toEqual({ code: 10101, message: 'Server error' });
    expect(res.body).not.toContain('postgres');
    expectSecurityHeaders(res.headers);
  });

  it('answers 403 / 10102 without, with a malformed, or with an unknown token', async () => {
    for (const authorization of [undefined, 'Bearer', 'Basic abc', 'Bearer not-a-real-token']) {
      const res = await t.inject({
        method: 'GET',
        url: '/api/user/info',
        headers: authorization ? { authorization } : {},
      });
      expect(res.statusCode).toBe(403);
      expect(errorOf(res).code).toBe(10102);
      expectSecurityHeaders(res.headers);
    }
  });

  it('answers a malformed URL 400 / 10113 with security headers', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/users/%E0%A4%A' });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 10113, details: [{ field: 'url' }] });
    expectSecurityHeaders(res.headers);
  });

  it('answers malformed JSON 400 / 40003 and an oversized body 413 / 50001', async () => {
    const bad = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username": ',
    });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).code).toBe(40003);

    const big = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'x', password: 'y'.repeat(1024 * 1024 + 10) }),
    });
    expect(big.statusCode).toBe(413);
    expect(errorOf(big).code).toBe(50001);
    expectSecurityHeaders(big.headers);
  });

  it('refuses a JSON body nested deeper than 64 levels with 400 / 10113 on body, before any route reads it', async () => {
    // 5,000 levels in a jsonb field once overflowed the stack in the database driver's JSON.stringify (500).
    const nested = (depth: number) => `{"username":${'{"a":'.repeat(depth - 1)}1${'}'.repeat(depth - 1)}}`;
    for (const depth of [65, 10_000]) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: nested(depth),
      });
      expect(res.statusCode, String(depth)).toBe(400);
      expect(errorOf(res)).toMatchObject({
        code: 10113,
        details: [{ field: 'body', message: 'nested deeper than 64 levels' }],
      });
    }
    const deepest = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: nested(64),
    });
    // Parsed, and refused by the route's schema instead: the field, not the body.
    expect(errorOf(deepest)).toMatchObject({ code: 10113 });
    expect((errorOf(deepest).details as { field: string }[]).map((d) => d.field)).toContain('username');
  });

  it('answers schema failures 400 / 10113 with the invalid fields', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/auth/login', payload: { username: '' } });
    expect(res.statusCode).toBe(400);
    const err = errorOf(res);
    expect(err.code).toBe(10113);
    expect(err.message).toBe('Form error');
    const fields = (err.details as { field: string }[]).map((d) => d.field).sort();
    expect(fields).toEqual(['password', 'username']);
  });

  it('publishes an OpenAPI 3 document with tags, summaries and response schemas for every route', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as {
      openapi: string;
      paths: Record<
        string,
        Record<string, { tags?: string[]; summary?: string; responses?: Record<string, unknown> }>
      >;
    };
    expect(doc.openapi).toMatch(/^3\./);
    const paths = Object.keys(doc.paths);
    for (const p of [
      '/api/health',
      '/api/auth/login',
      '/api/user/info',
      '/api/users',
      '/api/users/{id}/disable',
    ]) {
      expect(paths).toContain(p);
    }
    for (const [p, ops] of Object.entries(doc.paths)) {
      if (p.startsWith('/api/test/')) continue;
      for (const [method, op] of Object.entries(ops)) {
        expect(op.tags?.length, `${method} ${p} tags`).toBeGreaterThan(0);
        expect(op.summary, `${method} ${p} summary`).toBeTruthy();
        // The success answer: 200, or 101 (Switching Protocols) for a WebSocket such as /api/ws.
        const success = Object.keys(op.responses ?? {}).filter((s) => s === '200' || s === '101');
        expect(success, `${method} ${p} responses`).toHaveLength(1);
      }
    }
  });

  it('serves the docs UI under its own policy and the rest of the security headers', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
