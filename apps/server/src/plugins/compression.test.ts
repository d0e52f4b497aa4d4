import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressionPlugin } from './compression';

const app = Fastify();
const big = 'x'.repeat(4096);
beforeAll(async () => {
  await app.register(compressionPlugin);
  app.get('/json', async () => ({ big }));
  app.get('/small', async () => ({ ok: true }));
  app.get('/firmware', async (_req, reply) =>
    reply.type('application/octet-stream').send(Buffer.alloc(4096, 1)),
  );
  app.get('/events', async (_req, reply) => reply.type('text/event-stream').send(`data: ${big}\n\n`));
  app.get('/csv', async (_req, reply) => reply.type('text/csv').send(big));
  await app.ready();
});
afterAll(() => app.close());

const get = (url: string, encoding?: string) =>
  app.inject({ method: 'GET', url, headers: encoding ? { 'accept-encoding': encoding } : {} });

describe('API answer compression', () => {
  it('compresses JSON and text of 1 KB and more in the encoding the client prefers', async () => {
    expect((await get('/json', 'gzip')).headers['content-encoding']).toBe('gzip');
    expect((await get('/json', 'gzip, deflate, br')).headers['content-encoding']).toBe('br');
    expect((await get('/csv', 'gzip')).headers['content-encoding']).toBe('gzip');
  });

  it('leaves small answers, clients without Accept-Encoding, binaries and event streams alone', async () => {
    expect((await get('/small', 'gzip, br')).headers['content-encoding']).toBeUndefined();
    const plain = await get('/json');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(plain.body)).toEqual({ big });
    expect((await get('/firmware', 'gzip, br')).headers['content-encoding']).toBeUndefined();
    expect((await get('/events', 'gzip, br')).headers['content-encoding']).toBeUndefined();
  });
});
