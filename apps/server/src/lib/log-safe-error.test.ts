import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../modules/users/users.table';
import { errorHandlerPlugin } from '../plugins/error-handler';
import { buildTestApp, type TestApp } from '../test/app';
import { withSafeErrorLogs } from './log-safe-error';

const SECRET = 'Secret-Param-8f3a1c';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** A Fastify app logging with the server's logger option and error handler, its route running `statement`. */
async function logOf(statement: () => Promise<unknown>): Promise<{ status: number; log: string }> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const app = Fastify({ logger: withSafeErrorLogs({ level: 'info', stream }) });
  await app.register(errorHandlerPlugin);
  app.get('/fail', async () => {
    await statement();
    return 'unreachable';
  });
  try {
    const res = await app.inject({ method: 'GET', url: '/fail' });
    return { status: res.statusCode, log: lines.join('') };
  } finally {
    await app.close();
  }
}

describe('logged database errors', () => {
  it('carry no statement parameters (unique violation: params, detail)', async () => {
    const { status, log } = await logOf(() =>
      t.app.deps.db.insert(users).values({ username: 'admin', passwordHash: SECRET }),
    );
    expect(status).toBe(500);
    // The failure is logged, with the statement text, its placeholders and the driver's reason ...
    expect(log).toContain('unexpected error');
    expect(log).toMatch(/insert into \\"users\\".*values \(default, \$1, \$2/);
    expect(log).toMatch(/users_username_lower_uq|duplicate key/);
    // ... but never the values.
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain('params:');
    expect(log).not.toContain('(admin)');
  });

  it('carry no value quoted back by a type error', async () => {
    const { status, log } = await logOf(() => t.app.deps.db.execute(sql`select ${SECRET}::int`));
    expect(status).toBe(500);
    expect(log).toContain('invalid input syntax');
    expect(log).not.toContain(SECRET);
  });
});
