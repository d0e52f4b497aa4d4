import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  productCreateBody,
  productDetail,
  productItem,
  productKeyParams,
  productListQuery,
  productProperty,
  productPropertyParams,
  productUpdateBody,
} from '@cellhub/contract/products';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  addProductProperty,
  createProduct,
  deleteProduct,
  deleteProductProperty,
  getProduct,
  listProducts,
  rotateProductSecret,
  updateProduct,
  updateProductProperty,
} from './products.service';

/** Products: users manage their own, admins all. */
export async function productsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['products'];

  r.get(
    '/api/products',
    {
      schema: {
        tags,
        summary: 'List products (keyword matches name and product_key)',
        querystring: productListQuery,
        response: listResponses(productItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listProducts(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/products',
    {
      schema: {
        tags,
        summary: 'Create a product; product_key and product_secret are generated unless product_key is given',
        body: productCreateBody,
        response: responses(productDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createProduct(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/products/:product_key',
    {
      schema: {
        tags,
        summary:
          'A product with its properties: in full (registration secret, platform and default configuration; access ' +
          'manage) for its owner and admins, read-only without them (access view) for a user who may view a device ' +
          'of it, 10107 for anyone else',
        params: productKeyParams,
        response: responses(productDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getProduct(app.deps, actorOf(req), req.params.product_key)),
  );

  r.put(
    '/api/products/:product_key',
    {
      schema: {
        tags,
        summary: 'Change a product; `properties` replaces the whole list',
        params: productKeyParams,
        body: productUpdateBody,
        response: responses(productDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateProduct(app.deps, actorOf(req), req.params.product_key, req.body)),
  );

  r.delete(
    '/api/products/:product_key',
    {
      schema: {
        tags,
        summary: 'Delete a product without devices (10112 with details.device_count otherwise)',
        params: productKeyParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteProduct(app.deps, actorOf(req), req.params.product_key);
      return ok(null);
    },
  );

  r.post(
    '/api/products/:product_key/secret',
    {
      schema: {
        tags,
        summary:
          'Replace the product secret of dynamic registration (registered devices keep their own secrets)',
        params: productKeyParams,
        response: responses(productDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await rotateProductSecret(app.deps, actorOf(req), req.params.product_key)),
  );

  r.post(
    '/api/products/:product_key/properties',
    {
      schema: {
        tags,
        summary: 'Add a property (70002 when its key exists)',
        params: productKeyParams,
        body: productProperty,
        response: responses(productDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await addProductProperty(app.deps, actorOf(req), req.params.product_key, req.body)),
  );

  r.put(
    '/api/products/:product_key/properties/:key',
    {
      schema: {
        tags,
        summary: 'Change a property (its key too)',
        params: productPropertyParams,
        body: productProperty,
        response: responses(productDetail, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(
        await updateProductProperty(app.deps, actorOf(req), req.params.product_key, req.params.key, req.body),
      ),
  );

  r.delete(
    '/api/products/:product_key/properties/:key',
    {
      schema: {
        tags,
        summary: 'Delete a property (stored values stay in the history)',
        params: productPropertyParams,
        response: responses(productDetail, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(await deleteProductProperty(app.deps, actorOf(req), req.params.product_key, req.params.key)),
  );
}
