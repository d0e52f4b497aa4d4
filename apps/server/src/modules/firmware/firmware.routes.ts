import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '@cellhub/contract/common';
import {
  FIRMWARE_EXTENSIONS,
  firmwareCreateBody,
  firmwareIdParams,
  firmwareItem,
  firmwareListQuery,
  firmwareUpdateBody,
  firmwareVersion,
  firmwareVersionImportBody,
  firmwareVersionListQuery,
  firmwareVersionParams,
  firmwareVersionUpdateBody,
  firmwareVersionUploadFields,
  usableFirmwareQuery,
  usableFirmwareVersion,
} from '@cellhub/contract/firmware';
import { AppError } from '../../lib/app-error';
import { fileStore } from '../../lib/file-store';
import { receiveUpload } from '../../lib/multipart-upload';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  createFirmware,
  deleteFirmware,
  deleteFirmwareVersion,
  firmwareVersionDownload,
  getFirmware,
  getFirmwareVersion,
  importFirmwareVersion,
  listFirmware,
  listFirmwareVersions,
  listUsableFirmwareVersions,
  updateFirmware,
  updateFirmwareVersion,
  uploadFirmwareVersion,
} from './firmware.service';

const ADMIN = { auth: 'admin' } as const;

/** Firmware artifact store (admin) and the versions a user may roll out. */
export async function firmwareRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['firmware'];
  const max = app.deps.config.firmwareMaxBytes;
  const tooLarge = () =>
    new AppError(50001, 413, `The firmware is larger than the limit of ${max} bytes`, { max_bytes: max });
  // One byte over the limit ends the part, so the store sees the excess and answers 50001 (the rest is discarded).
  await app.register(multipart, {
    limits: { fileSize: max + 1, files: 1, fields: 10, parts: 11, fieldSize: 4096 },
  });

  r.get(
    '/api/firmware',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'List firmware (keyword matches name and objname; product_key; type 0 test, 1 formal)',
        querystring: firmwareListQuery,
        response: listResponses(firmwareItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listFirmware(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/firmware',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Create a firmware of a product (10113 on product_key when there is no such product)',
        body: firmwareCreateBody,
        response: responses(firmwareItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createFirmware(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/firmware/versions/usable',
    {
      schema: {
        tags,
        summary:
          'Firmware versions the caller may use in an OTA task: versions of public firmware and of the ' +
          "caller's own products (admins: all); latest first. Filter with product_key (or productKey) and keyword",
        querystring: usableFirmwareQuery,
        response: listResponses(usableFirmwareVersion, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listUsableFirmwareVersions(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/firmware/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'A firmware with its version count and latest version (70001 when unknown)',
        params: firmwareIdParams,
        response: responses(firmwareItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getFirmware(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/firmware/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Change a firmware; product_key only while it has no versions (70003 otherwise)',
        params: firmwareIdParams,
        body: firmwareUpdateBody,
        response: responses(firmwareItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateFirmware(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/firmware/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a firmware with all its versions and their files (refused if a version must stay)',
        params: firmwareIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteFirmware(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.get(
    '/api/firmware/:id/versions',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Versions of a firmware, newest first (keyword matches version and description)',
        params: firmwareIdParams,
        querystring: firmwareVersionListQuery,
        response: listResponses(firmwareVersion, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listFirmwareVersions(app.deps, actorOf(req), req.params.id, req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/firmware/:id/versions',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Upload a version (multipart/form-data)',
        description:
          'Text fields first, then one `file` part: `version` (required), `description`, `algorithm` ' +
          '(md5 | sha256, default md5), `checksum` (hex digest of that algorithm; compared with the one the server ' +
          'computes, a mismatch is refused with 10113 on checksum and nothing is stored; empty: the computed one ' +
          "is used), `latest` (true/false: takes latest from the product's other version). The file is streamed " +
          `to disk, never held in memory. Refusals: 413/50001 over FIRMWARE_MAX_BYTES (${max} bytes here), ` +
          `415/50002 for a name not ending in ${FIRMWARE_EXTENSIONS.join(' ')} or bytes that are text, a web ` +
          'page or a script (archives must carry their signature, .hex must be Intel HEX), 10113 for an empty ' +
          'file, 70002 when the firmware has this version, 70001 for an unknown firmware.',
        consumes: ['multipart/form-data'],
        params: firmwareIdParams,
        response: {
          ...responses(firmwareVersion, ...SIGNED_IN, 413),
          415: errorBody.describe('file type (50002)'),
        },
      },
    },
    async (req) =>
      ok(
        await receiveUpload(
          req,
          { maxBytes: max, tooLarge, fields: firmwareVersionUploadFields },
          (fields, file) => uploadFirmwareVersion(app.deps, actorOf(req), req.params.id, fields, file),
        ),
      ),
  );

  r.post(
    '/api/firmware/:id/versions/import',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Create a version from a URL: the server downloads it once and stores it like an upload',
        description:
          'http and https only, at most 3 redirects, no loopback, private or reserved address (40004, unless ' +
          'OUTBOUND_ALLOW names it), whole download within FIRMWARE_FETCH_TIMEOUT_MS. The same checks as an ' +
          'upload (size 50001, type 50002, checksum 10113); 502 40001 when the server cannot connect, 502 40002 when ' +
          'the URL answers an HTTP error, times out or breaks off (each with details on url).',
        params: firmwareIdParams,
        body: firmwareVersionImportBody,
        response: {
          ...responses(firmwareVersion, ...SIGNED_IN, 413),
          415: errorBody.describe('file type (50002)'),
          502: errorBody.describe('the URL could not be fetched (40001, 40002)'),
        },
      },
    },
    async (req) => ok(await importFirmwareVersion(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.get(
    '/api/firmware/:id/versions/:versionId',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'One version (70001 when unknown or of another firmware)',
        params: firmwareVersionParams,
        response: responses(firmwareVersion, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getFirmwareVersion(app.deps, actorOf(req), req.params.id, req.params.versionId)),
  );

  r.put(
    '/api/firmware/:id/versions/:versionId',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Change a version: version string (70002 when taken), description, algorithm, latest (true takes it ' +
          "from the product's other version). The binary never changes; upload a new version instead",
        params: firmwareVersionParams,
        body: firmwareVersionUpdateBody,
        response: responses(firmwareVersion, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(await updateFirmwareVersion(app.deps, actorOf(req), req.params.id, req.params.versionId, req.body)),
  );

  r.delete(
    '/api/firmware/:id/versions/:versionId',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a version and its file (refused while an OTA task still needs it)',
        params: firmwareVersionParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteFirmwareVersion(app.deps, actorOf(req), req.params.id, req.params.versionId);
      return ok(null);
    },
  );

  r.get(
    '/api/firmware/:id/versions/:versionId/file',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Download the stored binary of a version (application/octet-stream)',
        params: firmwareVersionParams,
        produces: ['application/octet-stream'],
        response: {
          200: z.any().describe('the binary'),
          400: errorBody.describe('70001 unknown version'),
          403: errorBody.describe('not signed in (10102)'),
          429: errorBody.describe('too many requests (10104)'),
        },
      },
    },
    async (req, reply) => {
      const file = await firmwareVersionDownload(app.deps, actorOf(req), req.params.id, req.params.versionId);
      return reply
        .type('application/octet-stream')
        .header('content-length', String(file.size))
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`)
        .header('etag', `"${file.sha256}"`)
        .send(fileStore(app.deps).read(file.file));
    },
  );
}
