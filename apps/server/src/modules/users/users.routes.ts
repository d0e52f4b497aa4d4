import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  registerResult,
  userCreateBody,
  userIdParams,
  userListItem,
  userListQuery,
  userResetPasswordBody,
  userUpdateBody,
} from '@cellhub/contract/auth';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { createUser, listUsers, resetUserPassword, setUserDisabled, updateUser } from './users.service';

const ADMIN = { auth: 'admin' } as const;

/** Account administration; role user gets 10108. */
export async function usersRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['users'];

  r.get(
    '/api/users',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'List accounts (keyword matches username, nickname, phone; disabled=0|1)',
        querystring: userListQuery,
        response: listResponses(userListItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listUsers(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/users',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Open an account (username and password rules as for registration; role user by default; optional phone and email)',
        body: userCreateBody,
        response: responses(registerResult, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createUser(app.deps, actorOf(req), req.body)),
  );

  r.put(
    '/api/users/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          "Change an account's role, nickname, phone or email (only the fields sent; '' clears phone or email). " +
          'The phone must be free (20129); taking the admin role from the last enabled admin answers 31007.',
        params: userIdParams,
        body: userUpdateBody,
        response: responses(userListItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateUser(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.put(
    '/api/users/:id/disable',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Disable an account and sign it out everywhere (not your own)',
        params: userIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await setUserDisabled(app.deps, actorOf(req), req.params.id, true);
      return ok(null);
    },
  );

  r.put(
    '/api/users/:id/enable',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Enable an account',
        params: userIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await setUserDisabled(app.deps, actorOf(req), req.params.id, false);
      return ok(null);
    },
  );

  r.put(
    '/api/users/:id/password',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: "Reset an account's password; its sessions are signed out",
        params: userIdParams,
        body: userResetPasswordBody,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await resetUserPassword(app.deps, actorOf(req), req.params.id, req.body.new_password);
      return ok(null);
    },
  );
}
