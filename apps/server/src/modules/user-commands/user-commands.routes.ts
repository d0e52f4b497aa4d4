import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  idParams,
  runListQuery,
  runParams,
  userCommandBody,
  userCommandItem,
  userCommandListQuery,
  userCommandRun,
  userCommandRunSummary,
  userCommandSendBody,
  userCommandUpdateBody,
} from '@cellhub/contract/user-commands';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  createUserCommand,
  deleteUserCommand,
  getRun,
  getUserCommand,
  listRuns,
  listUserCommands,
  sendUserCommand,
  updateUserCommand,
} from './user-commands.service';

/** Saved commands: users manage their own, admins all. */
export async function userCommandsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['user-commands'];

  r.get(
    '/api/user-commands',
    {
      schema: {
        tags,
        summary: 'List saved commands (keyword matches name and data)',
        querystring: userCommandListQuery,
        response: listResponses(userCommandItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listUserCommands(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/user-commands',
    {
      schema: {
        tags,
        summary:
          'Save a command. data: 90000 when missing, 90001 when blank, 70003 when hex is odd-length, has 0x or ' +
          'other than 0-9A-F',
        body: userCommandBody,
        response: responses(userCommandItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createUserCommand(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/user-commands/:id',
    {
      schema: {
        tags,
        summary: 'A saved command',
        params: idParams,
        response: responses(userCommandItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getUserCommand(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/user-commands/:id',
    {
      schema: {
        tags,
        summary: 'Change a saved command (same data rules as create)',
        params: idParams,
        body: userCommandUpdateBody,
        response: responses(userCommandItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateUserCommand(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/user-commands/:id',
    {
      schema: {
        tags,
        summary: 'Delete a saved command and its runs (the device commands stay in each device history)',
        params: idParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteUserCommand(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.post(
    '/api/user-commands/:id/send',
    {
      schema: {
        tags,
        summary:
          'Send to devices (sns: array or one per line, at most 500). One result per device: sent, offline ' +
          '(20401), not_found (10117) or failed; replies arrive as device.command events and in GET .../runs/:runId',
        params: idParams,
        body: userCommandSendBody,
        response: responses(userCommandRun, ...SIGNED_IN),
      },
    },
    async (req) => ok(await sendUserCommand(app.deps, actorOf(req), req.params.id, req.body.sns)),
  );

  r.get(
    '/api/user-commands/:id/runs',
    {
      schema: {
        tags,
        summary: 'Sends of a saved command, newest first',
        params: idParams,
        querystring: runListQuery,
        response: listResponses(userCommandRunSummary, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listRuns(app.deps, actorOf(req), req.params.id, req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/user-commands/:id/runs/:runId',
    {
      schema: {
        tags,
        summary: 'One send with the current result of each device (sent, replied, timeout, offline, ...)',
        params: runParams,
        response: responses(userCommandRun, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getRun(app.deps, actorOf(req), req.params.id, req.params.runId)),
  );
}
