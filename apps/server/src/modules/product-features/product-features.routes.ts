import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  featureIdParams,
  productFeatureBody,
  productFeatureItem,
  productFeatureListQuery,
} from '@cellhub/contract/product-features';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  createProductFeature,
  deleteProductFeature,
  getProductFeature,
  listProductFeatures,
  updateProductFeature,
} from './product-features.service';

const ADMIN = { auth: 'admin' } as const;

/** Product features (admin): capability flags, the products that have them, the panels they enable. */
export async function productFeaturesRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['product-features'];

  r.get(
    '/api/product-features',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Features, newest first (keyword in key or name; product_key: the features of one product)',
        querystring: productFeatureListQuery,
        response: listResponses(productFeatureItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listProductFeatures(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/product-features',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Create a feature with its products and enabled panels (70002 when the key exists, 10107 naming an ' +
          'unknown product_key). A product with features shows a gated panel only when one of them enables it',
        body: productFeatureBody,
        response: responses(productFeatureItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createProductFeature(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/product-features/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'A feature',
        params: featureIdParams,
        response: responses(productFeatureItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getProductFeature(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/product-features/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Replace a feature (its product list too)',
        params: featureIdParams,
        body: productFeatureBody,
        response: responses(productFeatureItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateProductFeature(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/product-features/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a feature (its products lose it)',
        params: featureIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteProductFeature(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );
}
