import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ALERT_NOTIFY_CHANNEL } from '../modules/alerts/alert-signals';
import { buildTestApp } from '../test/app';
import { eventually } from '../test/gateway-test-kit';
import { NOTIFY_CHANNEL } from './event-bus';
import {
  CHANNELS_APPLICATION_NAME,
  createLocalChannels,
  NOTIFY_PAYLOAD_LIMIT,
  type PgChannels,
  PostgresChannels,
} from './pg-channels';

const quiet = () => undefined;
const log = { warn: quiet, info: quiet, debug: quiet, error: quiet } as unknown as FastifyBaseLogger;

/** Resolves with the next payload the handler gets on `channel`. */
function next(channels: PgChannels, channel: string): Promise<string> {
  return new Promise((resolve) => {
    const off = channels.listen(channel, (payload) => {
      off();
      resolve(payload);
    });
  });
}

describe('in-process channels', () => {
  it('deliver to the listeners of the channel only, after notify returned control', async () => {
    const ch = createLocalChannels(log);
    const got: string[] = [];
    ch.listen('a', (p) => got.push(`a1 ${p}`));
    ch.listen('a', (p) => got.push(`a2 ${p}`));
    ch.listen('b', (p) => got.push(`b ${p}`));
    const sent = ch.notify('a', 'x');
    expect(got).toEqual([]);
    await sent;
    expect(got).toEqual(['a1 x', 'a2 x']);
    await ch.close();
  });

  it('stop a handler that unlistened and keep delivering past one that throws', async () => {
    const ch = createLocalChannels(log);
    const got: string[] = [];
    const off = ch.listen('a', (p) => got.push(`gone ${p}`));
    ch.listen('a', () => {
      throw new Error('boom');
    });
    ch.listen('a', (p) => got.push(p));
    off();
    await ch.notify('a', 'x');
    expect(got).toEqual(['x']);
    await ch.close();
  });

  it('refuse what PostgreSQL would refuse: long payloads and odd channel names', async () => {
    const ch = createLocalChannels(log);
    await expect(ch.notify('a', 'x'.repeat(NOTIFY_PAYLOAD_LIMIT + 1))).rejects.toThrow(/payload/);
    await expect(ch.notify('A; drop', 'x')).rejects.toThrow(/channel/);
    expect(() => ch.listen('Bad-Name', quiet)).toThrow(/channel/);
    await ch.close();
  });
});

describe('statements on the LISTEN connection', () => {
  it('run one at a time, in order, however many NOTIFYs are on their way', async () => {
    // The client's half of the wire: each statement takes a turn of the event loop, and says how many ran at once.
    // node-postgres queues a second statement given while one runs only with a DeprecationWarning (pg 9: not at all).
    const sent: string[] = [];
    let running = 0;
    let most = 0;
    const spies = [
      vi.spyOn(pg.Client.prototype, 'connect').mockImplementation((() => Promise.resolve()) as never),
      vi.spyOn(pg.Client.prototype, 'end').mockImplementation((() => Promise.resolve()) as never),
      vi.spyOn(pg.Client.prototype, 'query').mockImplementation((async (text: string, values?: unknown[]) => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setImmediate(r));
        sent.push(values ? `${text} ${values.join(' ')}` : text);
        running--;
        return { rows: [], rowCount: 0 };
      }) as never),
    ];
    try {
      const ch = new PostgresChannels({ url: 'postgres://nobody@127.0.0.1:1/none', log });
      await ch.ready();
      ch.listen('c_one', quiet);
      const payloads = Array.from({ length: 50 }, (_, i) => `p${i}`);
      await Promise.all([...payloads.map((p) => ch.notify('c_one', p)), ch.listeningChannels()]);
      await ch.close();
      expect(most).toBe(1);
      expect(sent).toEqual([
        'LISTEN "c_one"',
        ...payloads.map((p) => `SELECT pg_notify($1, $2) c_one ${p}`),
        'SELECT pg_listening_channels() AS c',
      ]);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

const pgUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(process.env.TEST_DB !== 'postgres' || !pgUrl)('PostgreSQL channels', () => {
  const open: PgChannels[] = [];
  const make = (applicationName?: string) => {
    const c = new PostgresChannels({ url: pgUrl!, log, applicationName });
    open.push(c);
    return c;
  };
  // Tests share the database with parallel test files: channel names of their own.
  const channel = () => `t_${randomBytes(6).toString('hex')}`;
  afterEach(async () => {
    for (const c of open.splice(0)) await c.close();
  });

  it('deliver a NOTIFY to every instance listening, the sender included', async () => {
    const [a, b] = [make(), make()];
    await Promise.all([a.ready(), b.ready()]);
    const name = channel();
    const atA = next(a, name);
    const atB = next(b, name);
    await eventually(async () => ((await b.listeningChannels()).includes(name) ? true : undefined));
    await a.notify(name, 'hello');
    expect(await atA).toBe('hello');
    expect(await atB).toBe('hello');
  });

  it('UNLISTEN a channel when its last handler leaves', async () => {
    const a = make();
    await a.ready();
    const name = channel();
    const off1 = a.listen(name, () => undefined);
    const off2 = a.listen(name, () => undefined);
    off1();
    await eventually(async () => ((await a.listeningChannels()).includes(name) ? true : undefined));
    off2();
    await eventually(async () => (!(await a.listeningChannels()).includes(name) ? true : undefined));
  });

  it('LISTEN again after the connection was cut, and say so to the onReconnect handlers', async () => {
    const appName = `cellhub-test-${randomBytes(4).toString('hex')}`;
    const a = make(appName);
    const b = make();
    await Promise.all([a.ready(), b.ready()]);
    const name = channel();
    a.listen(name, quiet);
    let reconnects = 0;
    a.onReconnect(() => reconnects++);
    await eventually(async () => ((await a.listeningChannels()).includes(name) ? true : undefined));

    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    try {
      const cut = await admin.query(
        'select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = $1',
        [appName],
      );
      expect(cut.rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    await eventually(async () => (reconnects === 1 ? true : undefined), 10_000);
    const after = next(a, name);
    await b.notify(name, 'after the cut');
    expect(await after).toBe('after the cut');
  });

  it('reject a NOTIFY while the connection is down instead of queueing it', async () => {
    const a = new PostgresChannels({ url: 'postgres://nobody@127.0.0.1:1/none', log });
    open.push(a);
    await a.ready();
    await expect(a.notify('x', 'y')).rejects.toThrow(/down/);
  });
});

describe.skipIf(process.env.TEST_DB !== 'postgres')('one LISTEN connection per instance (PostgreSQL)', () => {
  it('carries the event bus and the alert evaluator on one connection, and no other connection LISTENs', async () => {
    const t = await buildTestApp();
    const admin = new pg.Client({ connectionString: t.app.deps.config.databaseUrl });
    await admin.connect();
    try {
      const channels = t.app.deps.channels as PostgresChannels;
      expect(channels.kind).toBe('postgres');
      await eventually(async () => {
        const listening = await channels.listeningChannels();
        return listening.includes(NOTIFY_CHANNEL) && listening.includes(ALERT_NOTIFY_CHANNEL)
          ? true
          : undefined;
      });
      // Every connection of this instance's database but the test's own: the pool, and the one LISTEN connection.
      const { rows } = await admin.query<{ application_name: string; query: string }>(
        `select application_name, query from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid()`,
      );
      expect(rows.filter((r) => r.application_name === CHANNELS_APPLICATION_NAME)).toHaveLength(1);
      const otherListeners = rows.filter(
        (r) => r.application_name !== CHANNELS_APPLICATION_NAME && /^\s*listen\b/i.test(r.query),
      );
      expect(otherListeners).toEqual([]);
    } finally {
      await admin.end();
      await t.close();
    }
  });
});
