import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  accessKeyCreateBody,
  accessKeyCreated,
  accessKeyItem,
  accessKeyListQuery,
  accessKeyParams,
  accessKeyRotated,
  accessKeyUpdateBody,
  accessKeyUsageDay,
  accessKeyUsageQuery,
  accessKeyUse,
  accessKeyUsesQuery,
  accessKeyVerifyBody,
  accessKeyVerifyCodeBody,
  accessKeyVerifyCodeResult,
} from '@cellhub/contract/access-keys';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  createKey,
  deleteKey,
  getKey,
  listKeys,
  listUses,
  rotateKey,
  sendKeyCode,
  updateKey,
  usage,
  verifyKey,
} from './access-keys.service';

/**
 * Access keys (docs/open-api.md). A person's session only: these routes are not on the open-route table, so a
 * signed request never reaches them (10227). A user manages their own keys; an admin sees, changes and deletes
 * anyone's, but only a key's owner can rotate or verify it. Missing or not yours: 10107.
 */
export async function accessKeysRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['access-keys'];
  const config = { auth: 'user' as const };

  r.get(
    '/api/access-keys',
    {
      config,
      schema: {
        tags,
        summary:
          "List access keys, newest first: the caller's own; an admin sees every user's with the owner",
        querystring: accessKeyListQuery,
        response: listResponses(accessKeyItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listKeys(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/access-keys',
    {
      config,
      schema: {
        tags,
        summary:
          'Create an access key (unverified until verify); the answer holds the secret, shown this once and never again',
        body: accessKeyCreateBody,
        response: responses(accessKeyCreated, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createKey(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/access-keys/:ak',
    {
      config,
      schema: {
        tags,
        summary: 'An access key (never its secret)',
        params: accessKeyParams,
        response: responses(accessKeyItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getKey(app.deps, actorOf(req), req.params.ak)),
  );

  r.put(
    '/api/access-keys/:ak',
    {
      config,
      schema: {
        tags,
        summary: 'Change the name, scopes, IP allow-list, expiry or enabled state of an access key',
        params: accessKeyParams,
        body: accessKeyUpdateBody,
        response: responses(accessKeyItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateKey(app.deps, actorOf(req), req.params.ak, req.body)),
  );

  r.delete(
    '/api/access-keys/:ak',
    {
      config,
      schema: {
        tags,
        summary: 'Delete an access key; requests signed with it are refused at once (10220)',
        params: accessKeyParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteKey(app.deps, actorOf(req), req.params.ak);
      return ok(null);
    },
  );

  r.post(
    '/api/access-keys/:ak/rotate',
    {
      config,
      schema: {
        tags,
        summary: 'A new secret for your key, shown this once; the old secret stops working at once',
        params: accessKeyParams,
        response: responses(accessKeyRotated, ...SIGNED_IN),
      },
    },
    async (req) => ok(await rotateKey(app.deps, actorOf(req), req.params.ak)),
  );

  r.post(
    '/api/access-keys/:ak/verify-code',
    {
      config,
      schema: {
        tags,
        summary:
          "Send a 6-digit code to your account's phone (sms) or email to verify the key; 20119 / 20118 when the " +
          'account has none; one a minute',
        params: accessKeyParams,
        body: accessKeyVerifyCodeBody,
        response: responses(accessKeyVerifyCodeResult, ...SIGNED_IN),
      },
    },
    async (req) => ok(await sendKeyCode(app.deps, actorOf(req), req.params.ak, req.body.channel)),
  );

  r.post(
    '/api/access-keys/:ak/verify',
    {
      config,
      schema: {
        tags,
        summary:
          'Verify the key with the code sent last (20121 phone / 20120 email code wrong, used or expired)',
        params: accessKeyParams,
        body: accessKeyVerifyBody,
        response: responses(accessKeyItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await verifyKey(app.deps, actorOf(req), req.params.ak, req.body.code)),
  );

  r.get(
    '/api/access-keys/:ak/uses',
    {
      config,
      schema: {
        tags,
        summary:
          'Signed requests that named the key, newest first: route pattern, address, code (0 = served)',
        params: accessKeyParams,
        querystring: accessKeyUsesQuery,
        response: listResponses(accessKeyUse, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listUses(app.deps, actorOf(req), req.params.ak, req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/access-keys/:ak/usage',
    {
      config,
      schema: {
        tags,
        summary:
          'Requests per UTC day (served / refused) over the last `days` days, oldest first, zeros included',
        params: accessKeyParams,
        querystring: accessKeyUsageQuery,
        response: responses(z.array(accessKeyUsageDay), ...SIGNED_IN),
      },
    },
    async (req) => ok(await usage(app.deps, actorOf(req), req.params.ak, req.query.days)),
  );
}
