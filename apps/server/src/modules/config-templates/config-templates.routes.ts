import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  applyListQuery,
  applyParams,
  configApply,
  configApplySummary,
  configTemplateApplyBody,
  configTemplateBody,
  configTemplateItem,
  configTemplateListQuery,
  configTemplateUpdateBody,
} from '@cellhub/contract/config-templates';
import { idParams } from '@cellhub/contract/user-commands';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  applyConfigTemplate,
  createConfigTemplate,
  deleteConfigTemplate,
  getApply,
  getConfigTemplate,
  listApplies,
  listConfigTemplates,
  updateConfigTemplate,
} from './config-templates.service';

/** Batch configuration templates: users manage their own, admins all. */
export async function configTemplatesRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['config-templates'];

  r.get(
    '/api/config-templates',
    {
      schema: {
        tags,
        summary: 'List configuration templates (keyword matches the name)',
        querystring: configTemplateListQuery,
        response: listResponses(configTemplateItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listConfigTemplates(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/config-templates',
    {
      schema: {
        tags,
        summary: 'Save a template: the configuration groups and fields it sets (at least one)',
        body: configTemplateBody,
        response: responses(configTemplateItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createConfigTemplate(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/config-templates/:id',
    {
      schema: {
        tags,
        summary: 'A configuration template',
        params: idParams,
        response: responses(configTemplateItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getConfigTemplate(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/config-templates/:id',
    {
      schema: {
        tags,
        summary: 'Change a template; `config` replaces what the template sets',
        params: idParams,
        body: configTemplateUpdateBody,
        response: responses(configTemplateItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateConfigTemplate(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/config-templates/:id',
    {
      schema: {
        tags,
        summary: 'Delete a template and its apply history (device configurations stay as they are)',
        params: idParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteConfigTemplate(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.post(
    '/api/config-templates/:id/apply',
    {
      schema: {
        tags,
        summary:
          "Merge the template into each device's expected configuration (sns: array or one per line, at most " +
          '500): version bump, pushed at once to online devices. Per device: pending until it reports the new ' +
          'version (then synced), or not_found (10117)',
        params: idParams,
        body: configTemplateApplyBody,
        response: responses(configApply, ...SIGNED_IN),
      },
    },
    async (req) => ok(await applyConfigTemplate(app.deps, actorOf(req), req.params.id, req.body.sns)),
  );

  r.get(
    '/api/config-templates/:id/applies',
    {
      schema: {
        tags,
        summary: 'Applications of a template, newest first, with how many devices are in sync',
        params: idParams,
        querystring: applyListQuery,
        response: listResponses(configApplySummary, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listApplies(app.deps, actorOf(req), req.params.id, req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/config-templates/:id/applies/:applyId',
    {
      schema: {
        tags,
        summary: 'One application with the sync state of each device',
        params: applyParams,
        response: responses(configApply, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getApply(app.deps, actorOf(req), req.params.id, req.params.applyId)),
  );
}
