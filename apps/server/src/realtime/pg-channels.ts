import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';

/**
 * Named notification channels shared by everything on one server instance: the event bus, the alert evaluator,
 * the job layer's wake-ups. On PostgreSQL they ride ONE dedicated connection per instance (LISTEN/NOTIFY); on
 * PGlite, or a single instance, they stay in the process.
 */
export interface PgChannels {
  /** `postgres`: notifications reach every instance on the database; `in-process`: only this one. */
  readonly kind: 'postgres' | 'in-process';
  /** Handler gets each NOTIFY payload on `channel` (from any instance, this one included). Re-LISTENs after a reconnect. */
  listen(channel: string, handler: (payload: string) => void): () => void;
  /**
   * Rejects when the payload is too long (NOTIFY_PAYLOAD_LIMIT) or, on PostgreSQL, when the connection is down:
   * callers that only wake others up may ignore that, the others count it.
   */
  notify(channel: string, payload: string): Promise<void>;
  /** Called after the connection came back: notifications may have been missed, listeners re-read their state. */
  onReconnect(handler: () => void): () => void;
  /** Resolves once the first connection attempt is over (LISTENing, or failed and retrying in the background). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more (UTF-8). */
export const NOTIFY_PAYLOAD_LIMIT = 7999;
/** The application_name of the LISTEN connection, so operators (and a test) can find it in pg_stat_activity. */
export const CHANNELS_APPLICATION_NAME = 'cellhub-channels';

// Lower-case identifiers only: the same spelling works quoted in LISTEN and as a pg_notify() argument.
const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function checkChannel(channel: string): void {
  if (!CHANNEL_NAME.test(channel)) throw new Error(`invalid channel name: ${channel}`);
}

function checkPayload(payload: string): void {
  if (Buffer.byteLength(payload) > NOTIFY_PAYLOAD_LIMIT)
    throw new Error(`NOTIFY payload over ${NOTIFY_PAYLOAD_LIMIT} bytes`);
}

/** Handlers per channel; one throwing handler does not keep the others from their payload. */
class Registry {
  readonly handlers = new Map<string, Set<(payload: string) => void>>();
  readonly reconnectHandlers = new Set<() => void>();

  constructor(private readonly log: FastifyBaseLogger) {}

  add(channel: string, handler: (payload: string) => void): boolean {
    let set = this.handlers.get(channel);
    const first = !set;
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    return first;
  }

  /** True when the channel has no handler left. */
  remove(channel: string, handler: (payload: string) => void): boolean {
    const set = this.handlers.get(channel);
    if (!set?.delete(handler)) return false;
    if (set.size > 0) return false;
    this.handlers.delete(channel);
    return true;
  }

  deliver(channel: string, payload: string): void {
    const set = this.handlers.get(channel);
    if (!set) return;
    for (const handler of [...set]) {
      try {
        handler(payload);
      } catch (err) {
        this.log.warn({ err, channel }, 'channel listener failed');
      }
    }
  }

  reconnected(): void {
    for (const handler of [...this.reconnectHandlers]) {
      try {
        handler();
      } catch (err) {
        this.log.warn({ err }, 'channel reconnect handler failed');
      }
    }
  }

  clear(): void {
    this.handlers.clear();
    this.reconnectHandlers.clear();
  }
}

/** PGlite or one instance: notify reaches this process's listeners, after the caller's code has run on. */
export function createLocalChannels(log: FastifyBaseLogger): PgChannels {
  const registry = new Registry(log);
  let closed = false;
  return {
    kind: 'in-process',
    listen(channel, handler) {
      checkChannel(channel);
      registry.add(channel, handler);
      return () => void registry.remove(channel, handler);
    },
    async notify(channel, payload) {
      checkChannel(channel);
      checkPayload(payload);
      // Asynchronous like a real NOTIFY: a listener never runs inside the notifier's stack.
      await Promise.resolve();
      if (!closed) registry.deliver(channel, payload);
    },
    onReconnect(handler) {
      registry.reconnectHandlers.add(handler);
      return () => void registry.reconnectHandlers.delete(handler);
    },
    ready: () => Promise.resolve(),
    close() {
      closed = true;
      registry.clear();
      return Promise.resolve();
    },
  };
}

export interface PostgresChannelsOptions {
  url: string;
  log: FastifyBaseLogger;
  /** Defaults to CHANNELS_APPLICATION_NAME. */
  applicationName?: string;
}

/**
 * One dedicated client (a pooled one would lose its LISTENs when returned to the pool) that LISTENs on every
 * channel someone listens to and also sends the NOTIFYs, so the services' pool is untouched. When the connection
 * drops it reconnects with backoff (0.5 s doubling to 30 s), LISTENs again and tells the onReconnect handlers.
 *
 * Its statements run one after another through `exclusive`: the event bus alone has up to 200 NOTIFYs on their
 * way, and node-postgres queues a query given while another runs only with a DeprecationWarning ("client.query()
 * when the client is already executing a query"; pg 9 drops that queue).
 */
export class PostgresChannels implements PgChannels {
  readonly kind = 'postgres' as const;
  private readonly registry: Registry;
  private client: pg.Client | undefined;
  private readonly first: Promise<void>;
  private connecting: Promise<void>;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private retryMs = 500;
  private attempts = 0;
  private closed = false;
  /** The last statement given to the client, settled or not: the next one starts after it. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Statements given to the client and not settled (one at most: tests and diagnostics). */
  inFlight = 0;

  constructor(private readonly options: PostgresChannelsOptions) {
    this.registry = new Registry(options.log);
    this.first = this.connecting = this.connect();
  }

  listen(channel: string, handler: (payload: string) => void): () => void {
    checkChannel(channel);
    if (this.registry.add(channel, handler) && this.client) this.command(this.client, 'LISTEN', channel);
    return () => {
      if (this.registry.remove(channel, handler) && this.client && !this.closed)
        this.command(this.client, 'UNLISTEN', channel);
    };
  }

  async notify(channel: string, payload: string): Promise<void> {
    checkChannel(channel);
    checkPayload(payload);
    const client = this.client;
    if (this.closed || !client) throw new Error('the LISTEN/NOTIFY connection is down');
    await this.exclusive(() => client.query('SELECT pg_notify($1, $2)', [channel, payload]));
  }

  onReconnect(handler: () => void): () => void {
    this.registry.reconnectHandlers.add(handler);
    return () => void this.registry.reconnectHandlers.delete(handler);
  }

  ready(): Promise<void> {
    return this.first;
  }

  /** The channels this instance's connection LISTENs on, as PostgreSQL reports them (tests, diagnostics). */
  async listeningChannels(): Promise<string[]> {
    const client = this.client;
    if (!client) return [];
    const r = await this.exclusive(() => client.query<{ c: string }>('SELECT pg_listening_channels() AS c'));
    return r.rows.map((row) => row.c).sort();
  }

  private command(client: pg.Client, verb: 'LISTEN' | 'UNLISTEN', channel: string): void {
    this.exclusive(() => client.query(`${verb} ${client.escapeIdentifier(channel)}`)).catch(
      (err: unknown) => {
        this.options.log.warn({ err: (err as Error).message, channel }, `channels: ${verb} failed`);
      },
    );
  }

  /**
   * Runs `query` once every statement given before it has settled (in the order given; a failed one does not stop
   * the next), so the client never has two at once.
   */
  private exclusive<T>(query: () => Promise<T>): Promise<T> {
    const run = async () => {
      this.inFlight++;
      try {
        return await query();
      } finally {
        this.inFlight--;
      }
    };
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  private async connect(): Promise<void> {
    const attempt = this.attempts++;
    const client = new pg.Client({
      connectionString: this.options.url,
      application_name: this.options.applicationName ?? CHANNELS_APPLICATION_NAME,
      // A connection cut without a FIN (a NAT or failover) is noticed instead of listening to silence forever.
      keepAlive: true,
    });
    client.on('error', (err) => {
      this.options.log.warn({ err: err.message }, 'channels: LISTEN connection lost');
      this.drop(client);
    });
    client.on('end', () => this.drop(client));
    client.on('notification', (msg) => {
      if (msg.payload !== undefined) this.registry.deliver(msg.channel, msg.payload);
    });
    const channels = [...this.registry.handlers.keys()];
    try {
      await client.connect();
      if (channels.length)
        await client.query(channels.map((c) => `LISTEN ${client.escapeIdentifier(c)}`).join('; '));
    } catch (err) {
      this.options.log.warn(
        { err: (err as Error).message },
        'channels: cannot LISTEN; notifications from other instances wait for the reconnect',
      );
      await client.end().catch(() => undefined);
      this.scheduleReconnect();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // Statements still waiting for the connection before were given that client, and fail with it; this one's own
    // need not wait for them.
    this.tail = Promise.resolve();
    this.retryMs = 500;
    // Channels first listened to while the batch above ran: nobody LISTENed for them yet.
    for (const c of this.registry.handlers.keys())
      if (!channels.includes(c)) this.command(client, 'LISTEN', c);
    if (attempt > 0) this.registry.reconnected();
  }

  private drop(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 30_000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connecting = this.connect();
    }, wait);
    this.reconnectTimer.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    this.registry.clear();
    await client?.end().catch(() => undefined);
  }
}

/** PostgreSQL: the shared LISTEN connection; PGlite (one process): in-process channels. */
export function createChannels(options: {
  driver: 'pglite' | 'postgres';
  url: string | undefined;
  log: FastifyBaseLogger;
}): PgChannels {
  if (options.driver === 'postgres' && options.url)
    return new PostgresChannels({ url: options.url, log: options.log });
  return createLocalChannels(options.log);
}
