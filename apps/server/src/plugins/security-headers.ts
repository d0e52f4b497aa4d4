import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { TileCspSources } from '../modules/system-settings/map-tiles.service';

declare module 'fastify' {
  interface FastifyInstance {
    /** The map tile hosts the CSP allows (system settings, Map); the setting's route invalidates it on save. */
    tileCspSources: TileCspSources;
  }
}

/**
 * The policy, with `tileSources` (the hosts of the map tiles in force, system settings > Map) added to img-src.
 * Nothing else outside this server is allowed.
 */
export function contentSecurityPolicy(tileSources: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    ['img-src', "'self'", 'data:', 'blob:', ...tileSources].join(' '),
    "connect-src 'self' ws: wss:",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

/** The policy without map tiles (framework errors, answered before any setting is read). */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

const FIXED_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'DENY',
} as const;

/** Every header, for answers written on the socket before any request exists (the HTTP parser's errors). */
export const SOCKET_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  ...FIXED_HEADERS,
};

export function applySecurityHeaders(reply: FastifyReply, tileSources: readonly string[] = []): void {
  if (!reply.hasHeader('content-security-policy')) {
    reply.header('content-security-policy', contentSecurityPolicy(tileSources));
  }
  reply.headers(FIXED_HEADERS);
}

/**
 * Set in onSend, which runs for every answer: routes, errors, 404s and static files. A route that needs a looser
 * policy (the API docs page) sets its own header and it is kept.
 */
export const securityHeadersPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorate('tileCspSources', new TileCspSources(app.deps));
    app.addHook('onSend', async (_request, reply, payload) => {
      applySecurityHeaders(reply, await app.tileCspSources.current());
      return payload;
    });
  },
  { name: 'security-headers' },
);
