import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '@cellhub/contract/common';
import {
  tunnelBody,
  tunnelItem,
  tunnelListQuery,
  tunnelParams,
  tunnelWsParams,
} from '@cellhub/contract/tunnels';
import { formError } from '../../lib/app-error';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { sendAppError } from '../../plugins/error-handler';
import { admitTunnelConnection, closeTunnel, listTunnels, openTunnel } from './tunnels.service';

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
          '(control right), at a TCP port (exposure tcp) or a WebSocket path on this server (exposure ws, the ' +
          'address is its ws:// or wss:// URL). Answers once the device connected back: 20401 offline, 88002 too many open on the ' +
          'device, 88003 no free port, 11016 (details.reason timeout, refused or offline) when the device did not ' +
          'answer or refused',
        params: snParams,
        body: tunnelBody,
        response: responses(tunnelItem, ...SIGNED_IN, 503),
      },
    },
    async (req) => {
      // A `ws` tunnel is served at PUBLIC_URL when it is set (a Host header is the caller's to choose, and the URL is
      // kept with the tunnel), else where the caller reached this server (behind a proxy: trustProxy decides).
      const { publicUrl, publicUrlSet } = app.deps.config;
      const wsOrigin = publicUrlSet
        ? publicUrl.replace(/^http/, 'ws')
        : `${req.protocol === 'https' ? 'wss' : 'ws'}://${req.host}`;
      return ok(await openTunnel(app.deps, app.tunnels, actorOf(req), req.params.sn, req.body, wsOrigin));
    },
  );

  r.route({
    method: 'GET',
    url: '/api/tunnels/:id/ws/:secret',
    // No bearer token on a browser WebSocket: the path's secret, the opener's address and the opener's right admit it.
    config: { auth: 'public' },
    // The path holds the secret: request lines of this route are not logged.
    logLevel: 'warn',
    schema: {
      tags,
      summary: "A WebSocket tunnel's connection (WebSocket)",
      description:
        'Each WebSocket connection to the path a `ws` tunnel answered with asks the device for one reverse ' +
        "connection to the tunnel's LAN port and carries its bytes both ways: frames from the client (binary; text " +
        "frames' bytes too) go to the LAN port, the LAN side's bytes come back as binary frames. Admitted only while " +
        "the tunnel is open, with its secret, from the opener's address, and while the opener may still control the " +
        'device; otherwise 88001 and no upgrade. The WebSocket closes when either side ends or the tunnel closes. ' +
        'docs/tunnels.md.',
      security: [],
      params: tunnelWsParams,
      response: {
        101: z.null().describe('Switching Protocols: the tunnel connection is open'),
        400: errorBody.describe('not admitted (88001), or not a WebSocket upgrade (10113)'),
        429: errorBody.describe('too many requests (10104); see Retry-After'),
      },
    },
    preHandler: async (req) => {
      // Plain GETs get the handler's 10113; only an upgrade is checked (and asks the database).
      if (!req.ws) return;
      await admitTunnelConnection(app.deps, app.tunnels, req.params.id, req.params.secret, req.ip);
    },
    handler: (_request, reply) => {
      sendAppError(reply, formError('upgrade', 'WebSocket upgrade required'));
    },
    wsHandler: (socket, req) => app.tunnels.wsUser(req.params.id, socket),
  });

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
