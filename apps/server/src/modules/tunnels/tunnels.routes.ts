import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { tunnelBody, tunnelItem, tunnelListQuery, tunnelParams } from '@cellhub/contract/tunnels';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { closeTunnel, listTunnels, openTunnel } from './tunnels.service';

const USER = { auth: 'user' } as const;
const snParams = z.object({ sn: tunnelParams.shape.sn });

/** Remote tunnels of a device (docs/tunnels.md): the owner and control-share holders; a view share gets 10108. */
export async function tunnelsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['tunnels'];

  r.get(
    '/api/devices/:sn/tunnels',
    {
      config: USER,
      schema: {
        tags,
        summary: "A device's tunnels, newest first, with live byte counts while open (control right)",
        params: snParams,
        querystring: tunnelListQuery,
        response: listResponses(tunnelItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listTunnels(
        app.deps,
        app.tunnels,
        actorOf(req),
        req.params.sn,
        req.query,
      );
      return okList(items, total);
    },
  );

  r.post(
    '/api/devices/:sn/tunnels',
    {
      config: USER,
      schema: {
        tags,
        summary:
          "Open a tunnel to local_ip:local_port on the device's LAN, reachable from the caller's address only " +
          '(control right). Answers once the device connected back: 20401 offline, 88002 too many open on the ' +
          'device, 88003 no free port, 11016 (details.reason timeout, refused or offline) when the device did not ' +
          'answer or refused',
        params: snParams,
        body: tunnelBody,
        response: responses(tunnelItem, ...SIGNED_IN, 503),
      },
    },
    async (req) => ok(await openTunnel(app.deps, app.tunnels, actorOf(req), req.params.sn, req.body)),
  );

  r.post(
    '/api/devices/:sn/tunnels/:id/close',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Close a tunnel: its port stops and its connections end (control right; 88001 unknown)',
        params: tunnelParams,
        response: responses(tunnelItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await closeTunnel(app.deps, app.tunnels, actorOf(req), req.params.sn, req.params.id)),
  );
}
