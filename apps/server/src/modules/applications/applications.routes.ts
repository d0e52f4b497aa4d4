import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  APPLICATION_EXTENSIONS,
  APPLICATION_ICON_MAX_BYTES,
  applicationCreateBody,
  applicationDownloadLink as applicationDownloadLinkSchema,
  applicationFileParams,
  applicationIdParams,
  applicationItem,
  applicationLatest as applicationLatestSchema,
  applicationLatestQuery,
  applicationListQuery,
  applicationUpdateBody,
  applicationVersion,
  applicationVersionListQuery,
  applicationVersionParams,
  applicationVersionUpdateBody,
  applicationVersionUploadFields,
} from '@cellhub/contract/applications';
import { errorBody } from '@cellhub/contract/common';
import { contentDisposition, fileAnswer } from '../../lib/file-download';
import { type FileRef, fileStore } from '../../lib/file-store';
import { receiveUpload } from '../../lib/multipart-upload';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { packageTooLarge } from './application-file';
import {
  applicationDownloadLink,
  applicationLatest,
  applicationVersionFile,
  createApplication,
  deleteApplication,
  deleteApplicationVersion,
  getApplication,
  linkedVersionFile,
  listApplications,
  listApplicationVersions,
  updateApplication,
  updateApplicationVersion,
  uploadApplicationVersion,
} from './applications.service';

const ADMIN = { auth: 'admin' } as const;
const USER = { auth: 'user' } as const;

/** A stored package as the answer: Range, If-Range, ETag and the original name (lib/file-download.ts). */
function sendPackage(
  req: FastifyRequest,
  reply: FastifyReply,
  file: { file: FileRef; filename: string; size: number; sha256: string; contentType: string },
) {
  const ifRange = req.headers['if-range'];
  const store = fileStore(req.server.deps);
  const answer = fileAnswer(
    { read: (span) => store.read(file.file, span), size: file.size, etag: `"${file.sha256}"` },
    { range: req.headers.range, ifRange: typeof ifRange === 'string' ? ifRange : undefined },
    {
      'content-type': file.contentType,
      'content-disposition': contentDisposition(file.filename),
      'cache-control': 'private, no-store',
    },
  );
  reply.code(answer.status).headers(answer.headers);
  return reply.send(answer.stream ?? '');
}

/** Applications and their versions: any signed-in user reads and downloads, admins publish (docs/applications.md). */
export async function applicationsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['applications'];
  const max = app.deps.config.applicationMaxBytes;
  // One byte over the limit ends the part, so the store sees the excess and answers 50001.
  await app.register(multipart, {
    limits: { fileSize: max + 1, files: 1, fields: 10, parts: 11, fieldSize: 16 * 1024 },
  });
  const iconRefusals = {
    413: errorBody.describe(`an icon over ${APPLICATION_ICON_MAX_BYTES} bytes (50001)`),
    415: errorBody.describe('an icon that is not PNG, JPEG or WebP, SVG included (50002)'),
  };

  r.get(
    '/api/applications',
    {
      config: USER,
      schema: {
        tags,
        summary: 'List applications, recently changed first (keyword matches name and description; platform)',
        querystring: applicationListQuery,
        response: listResponses(applicationItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listApplications(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/applications',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Create an application (admin); icon is a PNG, JPEG or WebP data URL or empty',
        body: applicationCreateBody,
        response: { ...responses(applicationItem, ...SIGNED_IN), ...iconRefusals },
      },
    },
    async (req) => ok(await createApplication(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/applications/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: 'An application with its version count and latest version (10107 when unknown)',
        params: applicationIdParams,
        response: responses(applicationItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getApplication(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/applications/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Change an application (admin); icon "" removes it',
        params: applicationIdParams,
        body: applicationUpdateBody,
        response: { ...responses(applicationItem, ...SIGNED_IN), ...iconRefusals },
      },
    },
    async (req) => ok(await updateApplication(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/applications/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete an application with all its versions and their files (admin)',
        params: applicationIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteApplication(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.get(
    '/api/applications/:id/latest',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'For a client tool at start: the latest version, and with ?current=<its version> whether an update ' +
          'is available and must be installed (force_update)',
        params: applicationIdParams,
        querystring: applicationLatestQuery,
        response: responses(applicationLatestSchema, ...SIGNED_IN),
      },
    },
    async (req) => ok(await applicationLatest(app.deps, actorOf(req), req.params.id, req.query.current)),
  );

  r.get(
    '/api/applications/:id/versions',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Versions of an application, newest first (keyword matches version and notes)',
        params: applicationIdParams,
        querystring: applicationVersionListQuery,
        response: listResponses(applicationVersion, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listApplicationVersions(
        app.deps,
        actorOf(req),
        req.params.id,
        req.query,
      );
      return okList(items, total);
    },
  );

  r.post(
    '/api/applications/:id/versions',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Upload a version (admin, multipart/form-data)',
        description:
          'Text fields first, then one `file` part: `version` (required), `notes_zh`, `notes_en`, `latest` ' +
          '(default true: takes latest from the other versions), `force_update` (default false), `sha256` ' +
          '(optional; a mismatch is refused with 10113 on sha256 and nothing is stored). The file is streamed to ' +
          `disk with its size and SHA-256. Refusals: 413/50001 over APPLICATION_MAX_BYTES (${max} bytes here), ` +
          `415/50002 for a name not ending in ${APPLICATION_EXTENSIONS.join(' ')} or bytes that do not match ` +
          'it (text, a web page or a script never pass), 10113 for an empty file or a version the application ' +
          'has, 10107 for an unknown application.',
        consumes: ['multipart/form-data'],
        params: applicationIdParams,
        response: {
          ...responses(applicationVersion, ...SIGNED_IN, 413),
          415: errorBody.describe('file type (50002)'),
        },
      },
    },
    async (req) =>
      ok(
        await receiveUpload(
          req,
          { maxBytes: max, tooLarge: () => packageTooLarge(max), fields: applicationVersionUploadFields },
          (fields, file) => uploadApplicationVersion(app.deps, actorOf(req), req.params.id, fields, file),
        ),
      ),
  );

  r.put(
    '/api/applications/:id/versions/:versionId',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Change a version (admin): version string, notes, latest (true takes it from the others), force_update. ' +
          'The package never changes; upload a new version instead',
        params: applicationVersionParams,
        body: applicationVersionUpdateBody,
        response: responses(applicationVersion, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(
        await updateApplicationVersion(app.deps, actorOf(req), req.params.id, req.params.versionId, req.body),
      ),
  );

  r.delete(
    '/api/applications/:id/versions/:versionId',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a version and its file (admin)',
        params: applicationVersionParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteApplicationVersion(app.deps, actorOf(req), req.params.id, req.params.versionId);
      return ok(null);
    },
  );

  r.get(
    '/api/applications/:id/versions/:versionId/file',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'Download a version (any signed-in user): Range (206, 416), If-Range, ETag = "sha256", and the ' +
          "original file name in Content-Disposition (filename*=UTF-8'' for any language)",
        params: applicationVersionParams,
        produces: ['application/octet-stream'],
        response: {
          200: z.any().describe('the package'),
          206: z.any().describe('the asked byte range'),
          400: errorBody.describe('10107 unknown version'),
          403: errorBody.describe('not signed in (10102)'),
          416: errorBody.describe('range not satisfiable (10113)'),
          429: errorBody.describe('too many requests (10104)'),
        },
      },
    },
    async (req, reply) =>
      sendPackage(
        req,
        reply,
        await applicationVersionFile(app.deps, actorOf(req), req.params.id, req.params.versionId),
      ),
  );

  r.post(
    '/api/applications/:id/versions/:versionId/link',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'A signed download link for the browser (any signed-in user), good for 10 minutes: the browser then ' +
          'downloads the package natively (its own progress, Range to resume) without the bearer token',
        params: applicationVersionParams,
        response: responses(applicationDownloadLinkSchema, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(await applicationDownloadLink(app.deps, actorOf(req), req.params.id, req.params.versionId)),
  );

  r.get(
    '/api/application-files/:token',
    {
      // The token from .../link is the gate (HMAC under the server key, 10 minutes), as for OTA downloads.
      config: { auth: 'public' },
      schema: {
        tags,
        summary:
          'Download through a signed link: the same answer as .../file (Range, If-Range, ETag, file name); a ' +
          'wrong, tampered or expired link answers 400 / 10107',
        params: applicationFileParams,
        produces: ['application/octet-stream'],
        response: {
          200: z.any().describe('the package'),
          206: z.any().describe('the asked byte range'),
          400: errorBody.describe('10107 invalid or expired link, 10113 malformed token'),
          416: errorBody.describe('range not satisfiable (10113)'),
          429: errorBody.describe('too many requests (10104)'),
        },
      },
    },
    async (req, reply) => sendPackage(req, reply, await linkedVersionFile(app.deps, req.params.token)),
  );
}
