import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { pageQuery } from '@cellhub/contract/common';
import {
  propertiesQuery,
  propertyPoint,
  rawMessageItem,
  rawSendBody,
  snParams,
} from '@cellhub/contract/devices';
import { propertySeries, propertySeriesQuery } from '@cellhub/contract/property-series';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { propertySeries as loadPropertySeries } from './telemetry-history.service';
import { listProperties, listRaw, sendRaw } from './telemetry.service';

export async function telemetryRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['devices'];

  r.get(
    '/api/devices/:sn/properties',
    {
      schema: {
        tags,
        summary:
          'Without key: the latest value of every property. With key: its history, newest first, between from and to',
        params: snParams,
        querystring: propertiesQuery,
        response: listResponses(propertyPoint, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listProperties(app.deps, actorOf(req), req.params.sn, req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/devices/:sn/properties/series',
    {
      schema: {
        tags,
        summary:
          'One property folded into time buckets (avg/min/max/count) for charts: a preset range ending now ' +
          '(1h, 24h, 7d, 15d, 30d) or from/to cut into about `points` buckets; empty buckets are left out',
        params: snParams,
        querystring: propertySeriesQuery,
        response: responses(propertySeries, ...SIGNED_IN),
      },
    },
    async (req) => ok(await loadPropertySeries(app.deps, actorOf(req), req.params.sn, req.query)),
  );

  r.get(
    '/api/devices/:sn/raw',
    {
      schema: {
        tags,
        summary: 'Raw bytes exchanged with the device (base64), newest first',
        params: snParams,
        querystring: pageQuery,
        response: listResponses(rawMessageItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listRaw(app.deps, actorOf(req), req.params.sn, req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/devices/:sn/raw',
    {
      schema: {
        tags,
        summary: 'Write bytes to the device serial port (P/down/raw); 20401 when offline',
        params: snParams,
        body: rawSendBody,
        response: responses(rawMessageItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await sendRaw(app.deps, actorOf(req), req.params.sn, req.body)),
  );
}
