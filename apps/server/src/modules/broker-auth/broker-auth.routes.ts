import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  BROKER_HOOK_SECRET_HEADER,
  emqxAuthnRequest,
  emqxAuthnResult,
  emqxAuthzRequest,
  emqxAuthzResult,
} from '@cellhub/contract/broker-auth';
import { errorBody } from '@cellhub/contract/common';
import { checkHookSecret, emqxAuthenticate, emqxAuthorize } from './emqx-hooks.service';

/**
 * The EMQX HTTP hooks (docs/external-brokers.md). Called by the broker, not by people: no sign-in, no flood guard
 * (EMQX asks once per connect and per publish), but every call carries the shared secret BROKER_HOOK_SECRET in
 * the `x-cellhub-hook-secret` header, checked before the body is read. The answers are EMQX's own shapes.
 */
export async function brokerAuthRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['broker-auth'];
  app.addHook('onRequest', async (req) => {
    checkHookSecret(app.deps.config.brokerAuth.hookSecret, req.headers[BROKER_HOOK_SECRET_HEADER]);
  });
  const errors = {
    400: errorBody.describe('invalid input (10113 with details)'),
    401: errorBody.describe('hook secret missing or wrong, or BROKER_HOOK_SECRET unset (10108)'),
  };

  r.post(
    '/api/broker-auth/emqx/authn',
    {
      config: { auth: 'public', rateLimit: false },
      schema: {
        tags,
        summary:
          'EMQX HTTP authentication of a device: allow (sn, secret or hmac password, enabled), deny, or ignore ' +
          'for a username that is no device; needs the x-cellhub-hook-secret header',
        security: [],
        body: emqxAuthnRequest,
        response: { 200: emqxAuthnResult, ...errors },
      },
    },
    async (req) => emqxAuthenticate(app.gateway, req.body),
  );

  r.post(
    '/api/broker-auth/emqx/authz',
    {
      config: { auth: 'public', rateLimit: false },
      schema: {
        tags,
        summary:
          'EMQX HTTP authorisation: a device may publish to its own up topics and subscribe to its own down topics; ' +
          'ignore for a username that is no device; needs the x-cellhub-hook-secret header',
        security: [],
        body: emqxAuthzRequest,
        response: { 200: emqxAuthzResult, ...errors },
      },
    },
    async (req) => emqxAuthorize(app.gateway, req.body),
  );
}
