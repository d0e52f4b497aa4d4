import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, RateLimitError } from '../lib/app-error';
import { authorizeRoute, DEFAULT_ROUTE_ACCESS, ROUTE_ACCESS, type RouteAccess } from '../lib/authz';
import type { Actor, RequestContext } from '../lib/deps';
import { SIGNATURE_HEADERS } from '@cellhub/contract/signature';
import { authenticate } from '../modules/auth/auth.service';
import { SessionCache } from '../modules/auth/session-cache';
import { authenticateSigned, type KeyUse, recordUse } from '../modules/access-keys/signed-auth';

declare module 'fastify' {
  interface FastifyRequest {
    /** A signed request (access key, no Bearer) waiting for its body: checked in preValidation. */
    signedPending: boolean;
    /** The key a signed request named, recorded with the answer's code when the answer is sent. */
    accessKeyUse: KeyUse | null;
  }
}

export const requestContext = (request: FastifyRequest): RequestContext => ({
  ip: request.ip,
  userAgent: String(request.headers['user-agent'] ?? ''),
});

/** The signed-in caller of a route declared `user` or `admin` (the hook already refused anyone else). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new AppError(10102);
  return request.actor;
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** The `code` of an error answer's JSON body. */
function errorCodeOf(payload: unknown): number | undefined {
  if (typeof payload !== 'string') return undefined;
  try {
    const code = (JSON.parse(payload) as { code?: unknown }).code;
    return typeof code === 'number' ? code : undefined;
  } catch {
    return undefined;
  }
}

// The API docs are public; everything else under /api is guarded unless its route says otherwise.
const isGuarded = (url: string | undefined) =>
  url !== undefined && url.startsWith('/api/') && !url.startsWith('/api/docs');

/**
 * Per-process flood guard: N requests per minute per client address and route. In memory on purpose: a database
 * write per request would make the database the bottleneck. The limits that protect secrets (sign-in failures,
 * SMS codes) are counted in the database and shared by every instance.
 */
class FloodGuard {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => Date,
  ) {}

  hit(key: string): number | undefined {
    const t = this.now().getTime();
    const start = t - (t % 60_000);
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts.clear();
    }
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n > this.perMinute ? (start + 60_000 - t) / 1000 : undefined;
  }
}

export const authPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorateRequest('actor', null);
    app.decorateRequest('signedPending', false);
    app.decorateRequest('accessKeyUse', null);
    /** When each key's last_used_at was last written by this instance. */
    const lastUsed = new Map<number, { at: number; ip: string }>();
    const { config } = app.deps;
    const guard =
      config.rateLimitPerMinute > 0 ? new FloodGuard(config.rateLimitPerMinute, app.deps.now) : undefined;
    const sessions = new SessionCache(config.sessionCacheMs);
    const stopListening = app.deps.events.onSessionsEnded((scope) => sessions.end(scope));
    app.addHook('onClose', async () => stopListening());

    // Every /api route's access, as the layer will enforce it; a value the layer does not know refuses to start.
    app.decorate('routeAccess', new Map<string, RouteAccess>());
    app.addHook('onRoute', (route) => {
      if (!isGuarded(route.url)) return;
      const declared = (route.config as { auth?: unknown } | undefined)?.auth ?? DEFAULT_ROUTE_ACCESS;
      if (!ROUTE_ACCESS.includes(declared as RouteAccess)) {
        throw new Error(`${String(route.method)} ${route.url}: unknown access ${String(declared)}`);
      }
      for (const method of [route.method].flat()) {
        if (method !== 'HEAD') app.routeAccess.set(`${method} ${route.url}`, declared as RouteAccess);
      }
    });

    app.addHook('onRequest', async (request) => {
      const url = request.routeOptions.url;
      if (!isGuarded(url)) return;
      const routeConfig = request.routeOptions.config;
      if (guard && routeConfig.rateLimit !== false) {
        const wait = guard.hit(`${request.ip} ${request.method} ${url}`);
        if (wait !== undefined) throw new RateLimitError(wait);
      }
      const access = routeConfig.auth ?? DEFAULT_ROUTE_ACCESS;
      if (access === 'public') return;
      const token = bearer(request);
      // Signed with an access key: the signature covers the body, which is parsed after this hook.
      if (!token && request.headers[SIGNATURE_HEADERS.accessKey] !== undefined) {
        request.signedPending = true;
        return;
      }
      const actor = token
        ? await authenticate(app.deps, token, requestContext(request), sessions)
        : undefined;
      if (actor) request.actor = actor;
      authorizeRoute(access, actor ?? null);
    });

    // Signed requests (docs/open-api.md): the key's owner, held to the key's scopes and the open-route table.
    app.addHook('preValidation', async (request) => {
      if (!request.signedPending) return;
      const use: { current?: KeyUse } = {};
      try {
        const actor = await authenticateSigned(
          app.deps,
          {
            ...requestContext(request),
            method: request.method,
            url: request.url,
            routeUrl: request.routeOptions.url,
            body: request.body,
            headers: request.headers,
          },
          use,
          lastUsed,
        );
        request.actor = actor;
        authorizeRoute(request.routeOptions.config.auth ?? DEFAULT_ROUTE_ACCESS, actor);
      } finally {
        request.accessKeyUse = use.current ?? null;
      }
    });

    // Every signed request that named a key is recorded with the code it was answered with (0 for a success).
    app.addHook('onSend', async (request, reply, payload) => {
      const use = request.accessKeyUse;
      if (!use) return payload;
      request.accessKeyUse = null;
      use.code = reply.statusCode < 400 ? 0 : (errorCodeOf(payload) ?? reply.statusCode);
      await recordUse(app.deps, use, reply.statusCode);
      return payload;
    });
  },
  { name: 'auth', dependencies: ['error-handler'] },
);
