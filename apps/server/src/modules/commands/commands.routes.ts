import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { commandBody, commandItem, commandListQuery, snParams } from '@cellhub/contract/devices';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { listCommands, sendCommand } from './commands.service';

export async function commandsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['devices'];

  r.post(
    '/api/devices/:sn/commands',
    {
      schema: {
        tags,
        summary:
          'Send a command on P/down/cmd (hex: even length, no 0x, else 70003); 20401 when the device is offline. ' +
          'The reply arrives on P/up/cmd_reply and shows in the list',
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
      schema: {
        tags,
        summary: 'Commands sent to a device, newest first, with reply and timing',
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
}
