import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  deviceCreateBody,
  deviceCreateLine,
  deviceDetail,
  deviceItem,
  deviceListQuery,
  deviceUpdateBody,
  snParams,
} from '@cellhub/contract/devices';
import { deviceRegisterBody, deviceRegisterResult } from '@cellhub/contract/protocol';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf, requestContext } from '../../plugins/auth';
import { registerDevice } from './device-auth.service';
import { createDevices, deleteDevice, getDevice, listDevices, updateDevice } from './devices.service';

/** Devices: a user sees and acts on their own devices only, admins on all; not-yours answers 10117. */
export async function devicesRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['devices'];

  r.get(
    '/api/devices',
    {
      schema: {
        tags,
        summary: 'List devices (keyword matches sn, name, imei, iccid; product_key; online=0|1)',
        querystring: deviceListQuery,
        response: listResponses(deviceItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listDevices(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/devices',
    {
      schema: {
        tags,
        summary:
          'Create devices of a product, several SNs at once (array or one per line); one result per SN: ' +
          'created (code 0), 20402 exists, 20403 exists under another product, 10113 invalid SN',
        body: deviceCreateBody,
        response: responses(z.array(deviceCreateLine), ...SIGNED_IN),
      },
    },
    async (req) => ok(await createDevices(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/devices/:sn',
    {
      schema: {
        tags,
        summary: 'A device with its MQTT secret and latest property values',
        params: snParams,
        response: responses(deviceDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getDevice(app.deps, actorOf(req), req.params.sn)),
  );

  r.put(
    '/api/devices/:sn',
    {
      schema: {
        tags,
        summary:
          'Change name, description, address, disabled (drops its connection) or, for admins, the owner',
        params: snParams,
        body: deviceUpdateBody,
        response: responses(deviceDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateDevice(app.deps, actorOf(req), req.params.sn, req.body)),
  );

  r.delete(
    '/api/devices/:sn',
    {
      schema: {
        tags,
        summary: 'Delete a device with its history; its connection is dropped',
        params: snParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteDevice(app.deps, actorOf(req), req.params.sn);
      return ok(null);
    },
  );

  r.post(
    '/api/device-auth/register',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary:
          'Dynamic registration: sign = hex HMAC-SHA256(product_secret, product_key + sn + ts); returns the device ' +
          'secret once',
        body: deviceRegisterBody,
        response: responses(deviceRegisterResult),
      },
    },
    async (req) => ok(await registerDevice(app.deps, requestContext(req), req.body)),
  );
}
