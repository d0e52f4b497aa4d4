import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../lib/db-unavailable';
// Through db/client (not ./client): pure-tests.test.ts knows a test that opens a database by that path.
import { openDatabase } from '../db/client';

/**
 * A database host that takes the TCP connection and never answers (a partition, a half-dead failover target): a
 * connect fails after the bound, as "the database is down" (503 / 10105), instead of holding the request for as long
 * as the operating system keeps the socket.
 */
describe('PostgreSQL that never answers', () => {
  let server: Server;
  const sockets: Socket[] = [];
  let port = 0;
  beforeAll(async () => {
    server = createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('fails a connect after the bound, as unavailable', async () => {
    const db = await openDatabase(`postgres://cellhub@127.0.0.1:${port}/cellhub`, '/nonexistent', {
      connectTimeoutMs: 300,
    });
    try {
      const started = Date.now();
      const err = await db.ping().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeDefined();
      expect(isDatabaseUnavailable(err)).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
      // The connection was made: the bound is what ended the wait.
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  }, 10_000);
});
