import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { thingModel, thingModelBody, thingModelDiff, thingModelParams } from '@cellhub/contract/thing-model';
import { ok, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { getThingModel, importThingModel, previewThingModel } from './thing-model.service';

const ADMIN = { auth: 'admin' } as const;

/** The thing model of a product (admin): read/export, preview an import, import (replace). */
export async function thingModelRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['thing-model'];

  r.get(
    '/api/thing-models/:product_key',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          "A product's thing model: properties, events and services (the export format); 10107 unknown product",
        params: thingModelParams,
        response: responses(thingModel, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getThingModel(app.deps, actorOf(req), req.params.product_key)),
  );

  r.post(
    '/api/thing-models/:product_key/preview',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'What importing this model would change, by key (added, removed, changed per list); nothing is written. ' +
          'Keys follow the property key rule and are unique per list (10113 otherwise)',
        params: thingModelParams,
        body: thingModelBody,
        response: responses(thingModelDiff, ...SIGNED_IN),
      },
    },
    async (req) => ok(await previewThingModel(app.deps, actorOf(req), req.params.product_key, req.body)),
  );

  r.put(
    '/api/thing-models/:product_key',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          "Import: replace the product's properties, events and services with the model (one transaction, audited)",
        params: thingModelParams,
        body: thingModelBody,
        response: responses(thingModel, ...SIGNED_IN),
      },
    },
    async (req) => ok(await importThingModel(app.deps, actorOf(req), req.params.product_key, req.body)),
  );
}
