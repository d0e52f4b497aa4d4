import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowTestTarget } from '../outbound';

/** What an operator fake sees of one request. */
export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeReply {
  status: number;
  /** Serialised as JSON with content-type application/json. */
  json?: unknown;
  /** Sent as is (for replies that are deliberately not JSON). */
  text?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
}

/** Canned failures a test can put in front of the next matching request. */
export const FAULTS = {
  rateLimited: (retryAfterSeconds?: number): FakeReply => ({
    status: 429,
    json: { message: 'Too Many Requests' },
    headers: retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) },
  }),
  serverError: (status = 500): FakeReply => ({ status, json: { message: 'Internal Server Error' } }),
  /** A 200 whose body is an HTML error page, as proxies in front of APIs send. */
  malformed: (): FakeReply => ({ status: 200, text: '<html><body>upstream error</body></html>' }),
  /** Valid JSON, wrong shape. */
  wrongShape: (): FakeReply => ({ status: 200, json: { unexpected: true } }),
  unauthorized: (): FakeReply => ({ status: 401, json: {} }),
  slow: (delayMs: number): FakeReply => ({ status: 200, json: {}, delayMs }),
};

interface Injection {
  path: string | undefined;
  reply: FakeReply;
  remaining: number;
}

/**
 * A node:http server on a random port (port 0) that records requests and can be told to answer the next one(s)
 * with a fault before the operator logic runs.
 */
export class FakeHttp {
  url = '';
  readonly requests: FakeRequest[] = [];
  private server: Server | undefined;
  private injections: Injection[] = [];

  constructor(private readonly handler: (req: FakeRequest) => FakeReply | Promise<FakeReply>) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const request: FakeRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(request);
        Promise.resolve(this.take(request.path) ?? this.handler(request))
          .then(async (reply) => {
            if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
            if (res.destroyed) return;
            const body = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
            res.writeHead(reply.status, {
              ...(reply.text === undefined && reply.json !== undefined
                ? { 'content-type': 'application/json;charset=UTF-8' }
                : { 'content-type': 'text/html' }),
              ...reply.headers,
            });
            res.end(body);
          })
          .catch((err: unknown) => {
            res.writeHead(500, { 'content-type': 'text/plain' });
            res.end(`fake failed: ${String(err)}`);
          });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    allowTestTarget(this.url);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Answer the next `times` requests whose path ends with `path` (any path when omitted) with `reply`. */
  inject(reply: FakeReply, options: { path?: string; times?: number } = {}): void {
    this.injections.push({ path: options.path, reply, remaining: options.times ?? 1 });
  }

  clearInjections(): void {
    this.injections = [];
  }

  private take(path: string): FakeReply | undefined {
    const found = this.injections.find((i) => i.remaining > 0 && (!i.path || path.endsWith(i.path)));
    if (!found) return undefined;
    found.remaining -= 1;
    this.injections = this.injections.filter((i) => i.remaining > 0);
    return found.reply;
  }
}
