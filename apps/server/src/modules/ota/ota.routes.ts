import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '@cellhub/contract/common';
import {
  otaDeviceItem,
  otaDeviceListQuery,
  otaDownloadParams,
  otaTaskCreateBody,
  otaTaskDetail,
  otaTaskItem,
  otaTaskListQuery,
  otaTaskParams,
  otaTaskPreview,
  otaTaskPreviewBody,
} from '@cellhub/contract/ota';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { createTask, getTask, listTaskDevices, listTasks, previewTask, taskAction } from './ota.service';

const STATES =
  'Allowed: inactive: start, cancel, delete; running: pause, cancel; paused: start (resume), cancel; done and ' +
  'cancelled: delete. Anything else answers 71001 with details {status, action}.';

/** OTA upgrade tasks: users manage their own, admins all (docs/ota.md). */
export async function otaRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['ota'];

  r.get(
    '/api/ota/tasks',
    {
      schema: {
        tags,
        summary: 'List OTA tasks with their device, success and failure counts (keyword matches the name)',
        querystring: otaTaskListQuery,
        response: listResponses(otaTaskItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listTasks(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/ota/tasks/preview',
    {
      schema: {
        tags,
        summary:
          'What a task with these targets would cost before it is created: devices, devices already on the ' +
          'version, SIM-blocked devices and the download volume (firmware size x devices). Same codes as create',
        body: otaTaskPreviewBody,
        response: responses(otaTaskPreview, ...SIGNED_IN),
      },
    },
    async (req) => ok(await previewTask(app.deps, actorOf(req), req.body)),
  );

  r.post(
    '/api/ota/tasks',
    {
      schema: {
        tags,
        summary:
          'Create a task (inactive; it starts at plan_time if given). Targets are resolved to upgrade log rows ' +
          'now. 10107 unknown product, 70001 unknown or unusable firmware version, 71003 version of another ' +
          'product, 10117 listed devices not yours (details.not_found), 71002 no device, 71007 too many',
        body: otaTaskCreateBody,
        response: responses(otaTaskDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createTask(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/ota/tasks/:id',
    {
      schema: {
        tags,
        summary: 'A task with its policy, counts per status 0-6 and the download volume',
        params: otaTaskParams,
        response: responses(otaTaskDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getTask(app.deps, actorOf(req), req.params.id)),
  );

  r.get(
    '/api/ota/tasks/:id/devices',
    {
      schema: {
        tags,
        summary:
          'The upgrade log: one row per target device (status 0-6, phase, result, attempts, timestamps)',
        params: otaTaskParams,
        querystring: otaDeviceListQuery,
        response: listResponses(otaDeviceItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listTaskDevices(app.deps, actorOf(req), req.params.id, req.query);
      return okList(items, total);
    },
  );

  for (const action of ['start', 'pause', 'cancel'] as const) {
    r.post(
      `/api/ota/tasks/:id/${action}`,
      {
        schema: {
          tags,
          summary: {
            start: `Start the task, or resume a paused one (71006 after its window ended). ${STATES}`,
            pause: `Pause: nothing more is sent; devices already sent the upgrade finish. ${STATES}`,
            cancel: `Cancel: devices not yet sent the upgrade are cancelled; sent ones are followed. ${STATES}`,
          }[action],
          params: otaTaskParams,
          response: responses(otaTaskDetail, ...SIGNED_IN),
        },
      },
      async (req) => ok((await taskAction(app.deps, actorOf(req), req.params.id, action))!),
    );
  }

  r.delete(
    '/api/ota/tasks/:id',
    {
      schema: {
        tags,
        summary: `Delete a task and its upgrade log. ${STATES}`,
        params: otaTaskParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await taskAction(app.deps, actorOf(req), req.params.id, 'delete');
      return ok(null);
    },
  );

  r.get(
    '/api/ota/download/:token',
    {
      // Devices download with the token of their P/down/ota, not a session. Many devices share a carrier's NAT
      // address, so the per-address flood guard would throttle a rollout; the token's HMAC is the gate.
      config: { auth: 'public', rateLimit: false },
      schema: {
        tags,
        summary:
          'Firmware download for a device (the url of P/down/ota): Range (206; 416 with Content-Range bytes */size ' +
          'when not satisfiable), If-Range, ETag (the checksum), Content-Length. A wrong, superseded or expired ' +
          '(24 h) token answers 403 / 71004',
        params: otaDownloadParams,
        response: {
          200: z.any().describe('the firmware file (application/octet-stream)'),
          206: z.any().describe('the requested byte range of the firmware file'),
          400: errorBody.describe('bad token format (10113)'),
          403: errorBody.describe('token wrong, superseded or expired (71004)'),
          416: errorBody.describe('range not satisfiable (10113)'),
        },
      },
    },
    async (req, reply) => {
      const answer = await app.ota.downloads.open(req.params.token, {
        range: req.headers.range,
        ifRange: typeof req.headers['if-range'] === 'string' ? req.headers['if-range'] : undefined,
      });
      if (req.method === 'GET') app.ota.countDownload(answer.rowId);
      // A device that stops reading (lost coverage) must not hold the connection and the file open for ever: after
      // a minute without progress the socket goes, and the device resumes with a Range request later.
      reply.raw.setTimeout(60_000, () => reply.raw.destroy());
      reply.code(answer.status).headers(answer.headers);
      if (!answer.stream) return reply.send(Buffer.alloc(0));
      return reply.send(answer.stream);
    },
  );
}
