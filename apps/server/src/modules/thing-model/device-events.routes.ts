import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { snParams } from '@cellhub/contract/devices';
import { deviceEventItem, deviceEventsQuery, deviceThingModel } from '@cellhub/contract/thing-model';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { getDeviceThingModel, listDeviceEvents } from './device-events.service';

/** A device's thing model events and its product's model, for whoever may view the device. */
export async function deviceEventsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/devices/:sn/events',
    {
      schema: {
        tags: ['devices'],
        summary:
          'Thing model events the device reported (P/up/event), newest first (device time); filter by event key ' +
          'and time range (from/to, ISO 8601)',
        params: snParams,
        querystring: deviceEventsQuery,
        response: listResponses(deviceEventItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listDeviceEvents(app.deps, actorOf(req), req.params.sn, req.query);
      return okList(items, total);
    },
  );
  r.get(
    '/api/devices/:sn/thing-model',
    {
      schema: {
        tags: ['devices'],
        summary: "The device's product's thing model (properties, events, services), for whoever may view it",
        params: snParams,
        response: responses(deviceThingModel, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getDeviceThingModel(app.deps, actorOf(req), req.params.sn)),
  );
}
