import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import pg from 'pg';
import { AlertEngine, type AlertEngineOptions } from './alert-engine';
import { ALERT_NOTIFY_CHANNEL, setAlertSignals, sharedDatabase } from './alert-signals';

declare module 'fastify' {
  interface FastifyInstance {
    /** The alert evaluator of this instance (docs/alerts.md "Evaluation"). */
    alerts: AlertEngine;
  }
}

/**
 * Starts the evaluator once the app is ready and hands it the gateway's committed property messages and presence
 * changes. On PostgreSQL it also LISTENs for trigger and state changes made by other instances (their services
 * NOTIFY inside the changing transaction); after a lost connection it reads everything again.
 */
export const alertsPlugin = fp(
  async (app: FastifyInstance, opts: Partial<AlertEngineOptions>) => {
    const engine = new AlertEngine(app.deps, opts);
    setAlertSignals(app.deps, { triggersChanged: (ids) => engine.triggersChanged(ids) });
    app.decorate('alerts', engine);
    const listener = sharedDatabase(app.deps) ? new ChangeListener(app, engine) : undefined;
    app.addHook('onReady', async () => {
      await engine.start();
      app.gateway.alertHook = engine;
      listener?.start();
    });
    app.addHook('onClose', async () => {
      app.gateway.alertHook = undefined;
      setAlertSignals(app.deps, undefined);
      await listener?.close();
      await engine.close();
    });
  },
  { name: 'alerts', dependencies: ['gateway'] },
);

/** One dedicated connection LISTENing on ALERT_NOTIFY_CHANNEL, reconnecting with backoff. */
class ChangeListener {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private retryMs = 500;
  private closed = false;

  constructor(
    private readonly app: FastifyInstance,
    private readonly engine: AlertEngine,
  ) {}

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.app.deps.config.databaseUrl });
    client.on('error', (err) => {
      this.app.log.warn({ err: err.message }, 'alerts: LISTEN connection lost');
      this.drop(client);
    });
    client.on('end', () => this.drop(client));
    client.on('notification', (msg) => {
      if (msg.channel === ALERT_NOTIFY_CHANNEL && msg.payload) this.engine.remoteChange(msg.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${ALERT_NOTIFY_CHANNEL}`);
    } catch (err) {
      this.app.log.warn(
        { err: (err as Error).message },
        'alerts: cannot LISTEN; relying on periodic reloads',
      );
      await client.end().catch(() => undefined);
      this.retry();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    if (this.retryMs > 500) this.engine.reloadAll();
    this.retryMs = 500;
  }

  private drop(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.timer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 30_000);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, wait);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }
}
