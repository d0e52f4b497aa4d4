import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from '../test/app';

let t: TestApp;
beforeAll(async () => {
  // The harness needs its temp dir first; build the fake console inside a second app's data dir.
  const probe = await buildTestApp();
  const dist = path.join(probe.dataDir, '..', `console-dist-${Date.now()}`);
  await probe.close();
  mkdirSync(path.join(dist, 'assets'), { recursive: true });
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
  writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(path.join(dist, 'favicon.ico'), 'ico');
  t = await buildTestApp({ config: { consoleDist: dist } });
});
afterAll(() => t.close());

describe('static console', () => {
  it('serves index.html at / without caching', async () => {
    const res = await t.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('id="root"');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('caches hashed assets for a year', async () => {
    const res = await t.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('falls back to index.html for client-side routes', async () => {
    for (const url of ['/dashboard/workplace', '/device/detail/pk/sn1?tab=2', '/login']) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('id="root"');
      expect(res.headers['cache-control']).toBe('no-cache');
    }
  });

  it('keeps /api 404s as JSON 10106, also for GET', async () => {
    for (const url of ['/api/nope', '/api', '/mqtt']) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(errorOf(res).code).toBe(10106);
    }
  });

  it('does not fall back for other methods', async () => {
    const res = await t.inject({ method: 'POST', url: '/dashboard' });
    expect(res.statusCode).toBe(404);
  });
});
