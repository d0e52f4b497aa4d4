import { mkdirSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
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
  const html = '<!doctype html><div id="root"></div>';
  const js = 'console.log(1)';
  // What the console build writes: each text file, its brotli and gzip copies, and a source map.
  for (const [file, text] of [
    ['index.html', html],
    ['assets/index-abc123.js', js],
  ]) {
    writeFileSync(path.join(dist, file!), text!);
    writeFileSync(path.join(dist, `${file}.br`), brotliCompressSync(text!));
    writeFileSync(path.join(dist, `${file}.gz`), gzipSync(text!));
  }
  writeFileSync(path.join(dist, 'assets', 'index-abc123.js.map'), '{"version":3}');
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

  it('sends the brotli or gzip copy the browser accepts, with Vary', async () => {
    const br = await t.inject({
      method: 'GET',
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe('console.log(1)');

    const gz = await t.inject({
      method: 'GET',
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe('console.log(1)');

    const plain = await t.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe('console.log(1)');
  });

  it('sends index.html compressed and never cached, at / and on client-side routes', async () => {
    for (const url of ['/', '/device/list']) {
      const res = await t.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-encoding'], url).toBe('br');
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(brotliDecompressSync(res.rawPayload).toString()).toContain('id="root"');
    }
  });

  it('answers 404 for source maps and for missing assets instead of index.html', async () => {
    for (const url of ['/assets/index-abc123.js.map', '/assets/gone-123.js', '/assets/gone-123.css']) {
      const res = await t.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br, gzip' } });
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).not.toContain('id="root"');
    }
  });

  it('compresses API answers over 1 KB, not small ones nor without Accept-Encoding', async () => {
    const big = await t.inject({
      method: 'GET',
      url: '/api/docs/json',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(big.statusCode).toBe(200);
    expect(big.headers['content-encoding']).toBe('gzip');
    expect(big.headers.vary).toMatch(/accept-encoding/i);
    const doc = JSON.parse(gunzipSync(big.rawPayload).toString()) as { openapi: string };
    expect(doc.openapi).toMatch(/^3/);

    const brotli = await t.inject({
      method: 'GET',
      url: '/api/docs/json',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(brotli.headers['content-encoding']).toBe('br');

    const none = await t.inject({ method: 'GET', url: '/api/docs/json' });
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(none.body)).toMatchObject({ openapi: doc.openapi });

    const small = await t.inject({ method: 'GET', url: '/api/nope', headers: { 'accept-encoding': 'gzip' } });
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(errorOf(small).code).toBe(10106);
  });

  it('does not fall back for other methods', async () => {
    const res = await t.inject({ method: 'POST', url: '/dashboard' });
    expect(res.statusCode).toBe(404);
  });
});
