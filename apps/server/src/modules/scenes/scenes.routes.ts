import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '@cellhub/contract/common';
import {
  modelFile,
  SCENE_IMAGE_MAX_BYTES,
  SCENE_WIDGETS_MAX,
  sceneBody,
  sceneCopyBody,
  sceneDetail,
  sceneFile,
  sceneFromModelBody,
  sceneIdParams,
  sceneImageParams,
  sceneImageResult,
  sceneItem,
  sceneListQuery,
  sceneModelBody,
  sceneModelDetail,
  sceneModelItem,
  sceneModelUpdateBody,
  sceneShareBody,
  sceneShareItem,
  sceneShareParams,
  sceneUpdateBody,
  sceneValues,
  sceneWriteBody,
  sceneWriteResult,
  widgetParams,
} from '@cellhub/contract/scenes';
import { AppError } from '../../lib/app-error';
import { fileStore } from '../../lib/file-store';
import { receiveUpload } from '../../lib/multipart-upload';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  addSceneShare,
  copyModel,
  copyScene,
  createModel,
  createScene,
  deleteModel,
  deleteScene,
  exportModel,
  exportScene,
  getModel,
  getScene,
  imageTooLarge,
  importModel,
  importScene,
  listModels,
  listScenes,
  listSceneShares,
  removeSceneShare,
  sceneFromModel,
  sceneImage,
  sceneValues as readSceneValues,
  updateModel,
  updateScene,
  uploadSceneImage,
  writeWidget,
} from './scenes.service';

const USER = { auth: 'user' } as const;
const FILE_CODES =
  '83001 invalid file (details: one entry per field, `widgets.3.binding.sn`), 83002 unsupported version, ' +
  '83006 more than 500 widgets';

/**
 * 83006 before the body schema runs: a document of more widgets than SCENE_WIDGETS_MAX would otherwise be a plain
 * 10113 from the array's bound.
 */
async function widgetLimit(req: FastifyRequest): Promise<void> {
  const body = req.body as { document?: { widgets?: unknown } } | undefined;
  const widgets = body?.document?.widgets;
  if (Array.isArray(widgets) && widgets.length > SCENE_WIDGETS_MAX)
    throw new AppError(83006, 400, undefined, [
      { field: 'document.widgets', message: `at most ${SCENE_WIDGETS_MAX}` },
    ]);
}

/** An imported file: any JSON object; parseSceneFile names its problems field by field. */
const importBody = z.object({ file: z.unknown() });

/** Scenes and scene models (docs/scenes.md): owned rows, read-only scene shares, live values and control. */
export async function scenesRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['scenes'];
  // Only the image upload reads multipart bodies; one byte over the limit ends the part (50001).
  await app.register(multipart, {
    limits: { fileSize: SCENE_IMAGE_MAX_BYTES + 1, files: 1, fields: 2, parts: 3 },
  });

  // --- models -----------------------------------------------------------------------------------------------------

  r.get(
    '/api/scene-models',
    {
      config: USER,
      schema: {
        tags,
        summary: "Scene models of the caller (admins: everyone's), newest first; keyword in name or remark",
        querystring: sceneListQuery,
        response: listResponses(sceneModelItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listModels(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/scene-models',
    {
      config: USER,
      preValidation: widgetLimit,
      schema: {
        tags,
        summary: 'Create a scene model (83001 when a binding names a slot the model does not have; 83006)',
        body: sceneModelBody,
        response: responses(sceneModelDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createModel(app.deps, actorOf(req), req.body)),
  );

  r.post(
    '/api/scene-models/import',
    {
      config: USER,
      schema: {
        tags,
        summary: `Import a model file as a new model of the caller; ${FILE_CODES}`,
        body: importBody,
        response: responses(sceneModelDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await importModel(app.deps, actorOf(req), req.body.file)),
  );

  r.get(
    '/api/scene-models/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: "A scene model with its document (10107 when not the caller's)",
        params: sceneIdParams,
        response: responses(sceneModelDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getModel(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/scene-models/:id',
    {
      config: USER,
      preValidation: widgetLimit,
      schema: {
        tags,
        summary: "Change a model's name, remark, slots or document (scenes made from it keep their copy)",
        params: sceneIdParams,
        body: sceneModelUpdateBody,
        response: responses(sceneModelDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateModel(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/scene-models/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Delete a model (83004 while scenes made from it exist)',
        params: sceneIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => ok(await deleteModel(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/scene-models/:id/copy',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Copy a model (name defaults to "<name> copy")',
        params: sceneIdParams,
        body: sceneCopyBody,
        response: responses(sceneModelDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await copyModel(app.deps, actorOf(req), req.params.id, req.body.name)),
  );

  r.get(
    '/api/scene-models/:id/export',
    {
      config: USER,
      schema: {
        tags,
        summary: 'The model as a file (`format: cellhub.scene`, `kind: model`), for /api/scene-models/import',
        params: sceneIdParams,
        response: responses(modelFile, ...SIGNED_IN),
      },
    },
    async (req) => ok(await exportModel(app.deps, actorOf(req), req.params.id)),
  );

  // --- scenes -----------------------------------------------------------------------------------------------------

  r.get(
    '/api/scenes',
    {
      config: USER,
      schema: {
        tags,
        summary: "The caller's scenes and those shared with them (admins: all), newest first",
        querystring: sceneListQuery,
        response: listResponses(sceneItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listScenes(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/scenes',
    {
      config: USER,
      preValidation: widgetLimit,
      schema: {
        tags,
        summary: 'Create a scene (an empty 1280x720 canvas when no document is given; 83006)',
        body: sceneBody,
        response: responses(sceneDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createScene(app.deps, actorOf(req), req.body)),
  );

  r.post(
    '/api/scenes/from-model',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'A scene from a model, each slot bound to a device: 10117 a device the caller may not view, 83003 a device ' +
          "not of the slot's product or template (details name `bindings.<slot>`)",
        body: sceneFromModelBody,
        response: responses(sceneDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await sceneFromModel(app.deps, actorOf(req), req.body)),
  );

  r.post(
    '/api/scenes/import',
    {
      config: USER,
      schema: {
        tags,
        summary: `Import a scene file as a new scene of the caller; ${FILE_CODES}`,
        body: importBody,
        response: responses(sceneDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await importScene(app.deps, actorOf(req), req.body.file)),
  );

  r.get(
    '/api/scenes/:id',
    {
      config: USER,
      schema: {
        tags,
        summary:
          "A scene with its document and devices (`visible`/`control`: the caller's own rights on each); owner, " +
          'admin or a scene share; 10107 otherwise',
        params: sceneIdParams,
        response: responses(sceneDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getScene(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/scenes/:id',
    {
      config: USER,
      preValidation: widgetLimit,
      schema: {
        tags,
        summary: "Change a scene's name, remark or document (owner or admin; a share holder gets 10108)",
        params: sceneIdParams,
        body: sceneUpdateBody,
        response: responses(sceneDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateScene(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/scenes/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Delete a scene (owner or admin)',
        params: sceneIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => ok(await deleteScene(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/scenes/:id/copy',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Copy a scene the caller may read into a scene of their own',
        params: sceneIdParams,
        body: sceneCopyBody,
        response: responses(sceneDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await copyScene(app.deps, actorOf(req), req.params.id, req.body.name)),
  );

  r.get(
    '/api/scenes/:id/export',
    {
      config: USER,
      schema: {
        tags,
        summary: 'The scene as a file (`format: cellhub.scene`, `kind: scene`), for /api/scenes/import',
        params: sceneIdParams,
        response: responses(sceneFile, ...SIGNED_IN),
      },
    },
    async (req) => ok(await exportScene(app.deps, actorOf(req), req.params.id)),
  );

  r.get(
    '/api/scenes/:id/values',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'Current value, time, sampling cycle and online state of each bound property of the devices the caller ' +
          'may view (others are left out); live updates: subscribe to the devices over /api/ws',
        params: sceneIdParams,
        response: responses(sceneValues, ...SIGNED_IN),
      },
    },
    async (req) => ok(await readSceneValues(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/scenes/:id/widgets/:widgetId/write',
    {
      config: USER,
      schema: {
        tags,
        summary:
          "Write a control widget's value (Modbus write or command) to its device: owners, admins and control " +
          'shares of the device; 10108 view share, 10117 a device the caller cannot see, 83005 not a control',
        params: widgetParams,
        body: sceneWriteBody,
        response: responses(sceneWriteResult, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(
        await writeWidget(
          app.deps,
          app.modbusPoller,
          actorOf(req),
          req.params.id,
          req.params.widgetId,
          req.body.value,
        ),
      ),
  );

  r.get(
    '/api/scenes/:id/shares',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Accounts the scene is shared with (read-only; owner or admin)',
        params: sceneIdParams,
        response: responses(z.array(sceneShareItem), ...SIGNED_IN),
      },
    },
    async (req) => ok(await listSceneShares(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/scenes/:id/shares',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'Share the scene read-only with an account (username or phone; 10210 unknown, 10212 yourself); the ' +
          'account still sees only the devices it may view',
        params: sceneIdParams,
        body: sceneShareBody,
        response: responses(z.array(sceneShareItem), ...SIGNED_IN),
      },
    },
    async (req) => ok(await addSceneShare(app.deps, actorOf(req), req.params.id, req.body.to)),
  );

  r.delete(
    '/api/scenes/:id/shares/:uid',
    {
      config: USER,
      schema: {
        tags,
        summary: 'End a scene share',
        params: sceneShareParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => ok(await removeSceneShare(app.deps, actorOf(req), req.params.id, req.params.uid)),
  );

  r.post(
    '/api/scenes/:id/images',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'Upload an image to the scene (owner or admin; multipart/form-data, one `file` part): PNG, JPEG, GIF or ' +
          `WebP by its bytes (415/50002 otherwise, SVG included), at most ${SCENE_IMAGE_MAX_BYTES} bytes (413/50001), ` +
          '50 per scene; answers the file id for `canvas.background` or an image widget',
        consumes: ['multipart/form-data'],
        params: sceneIdParams,
        response: {
          ...responses(sceneImageResult, ...SIGNED_IN, 413),
          415: errorBody.describe('file type (50002)'),
        },
      },
    },
    async (req) =>
      ok(
        await receiveUpload(
          req,
          { maxBytes: SCENE_IMAGE_MAX_BYTES, tooLarge: imageTooLarge, fields: z.object({}) },
          (_f, file) => uploadSceneImage(app.deps, actorOf(req), req.params.id, file.stream),
        ),
      ),
  );

  r.get(
    '/api/scenes/:id/images/:fileId',
    {
      config: USER,
      schema: {
        tags,
        summary: 'An image of a scene the caller may read (its stored type; 10107 for an unknown id)',
        params: sceneImageParams,
        produces: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
        response: {
          200: z.any().describe('the image'),
          400: errorBody.describe('10107 unknown scene or image'),
          403: errorBody.describe('not signed in (10102)'),
          429: errorBody.describe('too many requests (10104)'),
        },
      },
    },
    async (req, reply) => {
      const img = await sceneImage(app.deps, actorOf(req), req.params.id, req.params.fileId);
      return reply
        .type(img.contentType)
        .header('content-length', String(img.size))
        .header('cache-control', 'private, max-age=86400')
        .header('x-content-type-options', 'nosniff')
        .send(fileStore(app.deps).read(img.file));
    },
  );
}
