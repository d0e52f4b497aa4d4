import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  // OpenStreetMap tiles for the device location map.
  "img-src 'self' data: blob: https://tile.openstreetmap.org https://*.tile.openstreetmap.org",
  "connect-src 'self' ws: wss:",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

export function applySecurityHeaders(reply: FastifyReply): void {
  if (!reply.hasHeader('content-security-policy')) {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  }
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'strict-origin-when-cross-origin');
  reply.header('x-frame-options', 'DENY');
}

/**
 * Set in onSend, which runs for every answer: routes, errors, 404s and static files. A route that needs a looser
 * policy (the API docs page) sets its own header and it is kept.
 */
export const securityHeadersPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onSend', async (_request, reply, payload) => {
      applySecurityHeaders(reply);
      return payload;
    });
  },
  { name: 'security-headers' },
);
