import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { deviceLogItem, deviceLogQuery, snParams } from '@cellhub/contract/devices';
import { listResponses, okList, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { listDeviceLogs } from './device-log.service';

export async function deviceLogRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/devices/:sn/logs',
    {
      schema: {
        tags: ['devices'],
        summary:
          'Device log, newest first: connects, disconnects with reason, rejected messages, commands, config',
        params: snParams,
        querystring: deviceLogQuery,
        response: listResponses(deviceLogItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listDeviceLogs(app.deps, actorOf(req), req.params.sn, req.query);
      return okList(items, total);
    },
  );
}
