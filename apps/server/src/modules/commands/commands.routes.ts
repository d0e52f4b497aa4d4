import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  commandBody,
  commandItem,
  commandListQuery,
  commandParams,
  snParams,
} from '@cellhub/contract/devices';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { cancelCommand, listCommands, sendCommand } from './commands.service';

export async function commandsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['devices'];

  r.post(
    '/api/devices/:sn/commands',
    {
      config: { auth: 'user' },
      schema: {
        tags,
        summary:
          'Send a command on P/down/cmd (hex: even length, no 0x, else 70003). Offline device: 20401, or with ' +
          '`offline: "queue"` it waits as `pending` for `ttl_seconds` (60 s to 7 days, default 24 h; at most 100 ' +
          'per device, else 20405) and goes out, in order, once the device subscribes to its commands. The reply ' +
          'arrives on P/up/cmd_reply and shows in the list',
        params: snParams,
        body: commandBody,
        response: responses(commandItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await sendCommand(app.deps, actorOf(req), req.params.sn, req.body)),
  );

  r.get(
    '/api/devices/:sn/commands',
    {
      config: { auth: 'user' },
      schema: {
        tags,
        summary:
          'Commands of a device, newest first, with reply and timing; queued ones as pending, expired or cancelled',
        params: snParams,
        querystring: commandListQuery,
        response: listResponses(commandItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listCommands(app.deps, actorOf(req), req.params.sn, req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/devices/:sn/commands/:id/cancel',
    {
      config: { auth: 'user' },
      schema: {
        tags,
        summary:
          'Withdraw a pending (queued) command; it becomes `cancelled` and is never sent. Needs the control right ' +
          'on the device; 10107 when the device has no such command, 20404 when it is no longer pending',
        params: commandParams,
        response: responses(commandItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await cancelCommand(app.deps, actorOf(req), req.params.sn, req.params.id)),
  );
}
