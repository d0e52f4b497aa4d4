import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  deviceHostAddress,
  deviceHostBody,
  deviceHostDetail,
  deviceHostIdParams,
  deviceHostItem,
  deviceHostListQuery,
  deviceHostUpdateBody,
} from '@cellhub/contract/device-hosts';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  createDeviceHost,
  deleteDeviceHost,
  deviceHostAddresses,
  getDeviceHost,
  listDeviceHosts,
  updateDeviceHost,
} from './device-hosts.service';

const ADMIN = { auth: 'admin' } as const;
const USER = { auth: 'user' } as const;
const PORT_RULES =
  '84001 port outside DEVICE_HOST_PORTS, 84002 port of another host or in use on this machine (details: the ' +
  "system's reason, e.g. EADDRINUSE); register_pattern must compile, be safe and have a capture group (10113)";

/** Device hosts (docs/device-hosts.md): admins manage them; anyone signed in may read their addresses. */
export async function deviceHostsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['device-hosts'];

  r.get(
    '/api/device-hosts',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Device hosts, newest first (keyword in the name, protocol), with state and connected devices',
        querystring: deviceHostListQuery,
        response: listResponses(deviceHostItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listDeviceHosts(app.deps, app.deviceHosts, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/device-hosts',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: `Create a device host; an enabled one listens at once. ${PORT_RULES}`,
        body: deviceHostBody,
        response: responses(deviceHostItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createDeviceHost(app.deps, app.deviceHosts, actorOf(req), req.body)),
  );

  r.get(
    '/api/device-hosts/addresses',
    {
      config: USER,
      schema: {
        tags,
        summary: "The enabled hosts' addresses, for a device's socket settings (any signed-in user)",
        response: responses(z.array(deviceHostAddress), ...SIGNED_IN),
      },
    },
    async (req) => ok(await deviceHostAddresses(app.deps, actorOf(req))),
  );

  r.get(
    '/api/device-hosts/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'A device host with its counters, connected devices and last refused registrations (this server, since ' +
          'its listener started; 84003 unknown)',
        params: deviceHostIdParams,
        response: responses(deviceHostDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getDeviceHost(app.deps, app.deviceHosts, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/device-hosts/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: `Change a device host; a new port, protocol or rule restarts it (its DTUs reconnect). ${PORT_RULES}`,
        params: deviceHostIdParams,
        body: deviceHostUpdateBody,
        response: responses(deviceHostItem, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(await updateDeviceHost(app.deps, app.deviceHosts, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/device-hosts/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a device host; its DTUs are disconnected and go offline',
        params: deviceHostIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteDeviceHost(app.deps, app.deviceHosts, actorOf(req), req.params.id);
      return ok(null);
    },
  );
}
