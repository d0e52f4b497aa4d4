import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  dashboardOverview,
  dashboardTrend,
  dashboardTrendQuery,
  dashboardWorkplace,
  dashboardWorkplaceQuery,
} from '@cellhub/contract/dashboard';
import { ok, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { dashboardOverview as overviewOf, dashboardTrend as trendOf } from './dashboard.service';
import { dashboardWorkplace as workplaceOf } from './workplace.service';

/** Workplace figures: the caller's devices, every device for admins. */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['dashboard'];

  r.get(
    '/api/dashboard/overview',
    {
      schema: {
        tags,
        summary: 'Device total, online, offline and devices per product',
        response: responses(dashboardOverview, ...SIGNED_IN),
      },
    },
    async (req) => ok(await overviewOf(app.deps, actorOf(req))),
  );

  r.get(
    '/api/dashboard/trend',
    {
      schema: {
        tags,
        summary: 'Online devices and messages received per day over the last 7, 15 or 30 days',
        querystring: dashboardTrendQuery,
        response: responses(dashboardTrend, ...SIGNED_IN),
      },
    },
    async (req) => ok(await trendOf(app.deps, actorOf(req), Number(req.query.range))),
  );

  r.get(
    '/api/dashboard/workplace',
    {
      config: { auth: 'user' },
      schema: {
        tags,
        summary:
          'Operations view: active alerts, running OTA tasks, SIM cards expiring within 30 days or out of traffic, ' +
          'devices offline since the start of today; each list the first rows of what its own page shows the caller',
        querystring: dashboardWorkplaceQuery,
        response: responses(dashboardWorkplace, ...SIGNED_IN),
      },
    },
    async (req) => ok(await workplaceOf(app.deps, actorOf(req), req.query)),
  );
}
