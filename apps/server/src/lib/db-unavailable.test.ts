import { createServer } from 'node:net';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './db-unavailable';

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('isDatabaseUnavailable', () => {
  it('knows a database nobody listens for, through Drizzle', async () => {
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${await closedPort()}/x` });
    pool.on('error', () => undefined);
    try {
      const err = await drizzle({ client: pool })
        .execute(sql`select 1`)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeDefined();
      expect(isDatabaseUnavailable(err)).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it('knows a server shutting down or refusing connections, not a faulty statement', () => {
    for (const code of ['57P01', '57P03', '08006', '08001', '53300']) {
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: { code: '57P01' } }))).toBe(true);
    for (const code of ['23505', '42601', '22P02', '40P01']) {
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).toBe(false);
    }
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
