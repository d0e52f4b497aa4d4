import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  deviceBindBody,
  deviceCreateBody,
  deviceCreateLine,
  deviceDetail,
  deviceImportQuery,
  deviceImportResult,
  deviceListEnvelope,
  deviceListItem,
  deviceListQuery,
  deviceUpdateBody,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_ROWS,
  publicDevice,
  snParams,
} from '@cellhub/contract/devices';
import { deviceRegisterBody, deviceRegisterResult } from '@cellhub/contract/protocol';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { AppError } from '../../lib/app-error';
import { receiveFileBuffer } from '../../lib/multipart-upload';
import { actorOf, requestContext } from '../../plugins/auth';
import { registerDevice } from './device-auth.service';
import { bindDevice, unbindDevice } from './device-bind.service';
import { readImportFile } from './device-import-file';
import { importDevices } from './device-import.service';
import { getPublicDevice } from './public-device.service';
import { createDevices, deleteDevice, getDevice, listDevices, updateDevice } from './devices.service';

/** Devices: a user sees and acts on their own devices only, admins on all; not-yours answers 10117. */
export async function devicesRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['devices'];
  // Only the import route reads multipart bodies; registering here keeps the parser out of every other route.
  await app.register(multipart, {
    limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 10, parts: 11 },
  });
  // Create, import, delete, bind, unbind, register and owner changes all come through here: before their answer
  // leaves, cached list counts start over, so the list the console reloads next shows the new total.
  app.addHook('onSend', async (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') app.deps.caches.deviceCounts.clear();
  });

  r.get(
    '/api/devices',
    {
      schema: {
        tags,
        summary:
          'List devices, newest first (keyword: substring of sn, name, imei or iccid; product_key; online=0|1). ' +
          '`total` is exact while `total_exact` is true; otherwise it is a lower bound (the count stops at ' +
          'DEVICE_LIST_COUNT_CAP matches past the page start)',
        querystring: deviceListQuery,
        response: { ...listResponses(deviceListItem, ...SIGNED_IN), 200: deviceListEnvelope },
      },
    },
    async (req) => {
      const { items, total, totalExact, propertyDefs } = await listDevices(app.deps, actorOf(req), req.query);
      return { ...okList(items, total), total_exact: totalExact, property_defs: propertyDefs };
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
    '/api/devices/bind',
    {
      schema: {
        tags,
        summary:
          'Claim an in-stock device with its sn and secret: 10117 unknown sn or wrong secret, 11014 already bound',
        body: deviceBindBody,
        response: responses(deviceDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await bindDevice(app.deps, actorOf(req), req.body)),
  );

  r.post(
    '/api/devices/:sn/unbind',
    {
      schema: {
        tags,
        summary:
          'Owner or admin: back to stock (no owner); the secret is rotated and registration reopened, the ' +
          'connection made with the old secret is dropped',
        params: snParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await unbindDevice(app.deps, actorOf(req), req.params.sn);
      return ok(null);
    },
  );

  r.post(
    '/api/devices/import',
    {
      schema: {
        tags,
        summary:
          `Import devices of a product from one multipart file (.csv UTF-8 or .xlsx, first row = headers, ` +
          `column sn required; name, imei, iccid, imsi, phone, address, description optional; at most ` +
          `${MAX_IMPORT_ROWS} rows and ${MAX_IMPORT_BYTES / 1024 / 1024} MB). Existing devices of the product are ` +
          `updated, new ones created unless update_only; one result per row. 413/50001 too large, 415/50002 ` +
          `not csv/xlsx`,
        consumes: ['multipart/form-data'],
        querystring: deviceImportQuery,
        response: responses(deviceImportResult, ...SIGNED_IN, 413),
      },
    },
    async (req) => {
      const { filename, buffer } = await receiveFileBuffer(req, {
        maxBytes: MAX_IMPORT_BYTES,
        tooLarge: () => new AppError(50001),
      });
      const rows = await readImportFile(buffer, filename);
      return ok(
        await importDevices(
          app.deps,
          actorOf(req),
          { productKey: req.query.product_key, updateOnly: req.query.update_only },
          rows,
        ),
      );
    },
  );

  r.get(
    '/api/public/devices/:sn',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary:
          'Public page of a device (QR code on its label): name, product, online, last seen; 10117 when unknown; ' +
          '60 requests per minute per address',
        params: snParams,
        response: responses(publicDevice),
      },
    },
    async (req) => ok(await getPublicDevice(app.deps, requestContext(req), req.params.sn)),
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
