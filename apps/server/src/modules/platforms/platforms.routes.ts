import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  platformBody,
  platformCredentialItem,
  platformCredentialQuery,
  platformCredentialResult,
  platformCredentialsBody,
  platformIdParams,
  platformItem,
  platformListQuery,
  platformOption,
  platformSyncResult,
} from '@cellhub/contract/platforms';
import { productKeyParams } from '@cellhub/contract/products';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  listProductPlatformCredentials,
  setProductPlatformCredentials,
  syncPlatformBoundProducts,
  syncProductPlatform,
} from './platform-sync.service';
import {
  createPlatform,
  deletePlatform,
  getPlatform,
  listPlatformOptions,
  listPlatforms,
  updatePlatform,
} from './platforms.service';

const ADMIN = { auth: 'admin' } as const;

/** Third-party clouds (admin) and, per product, its devices' identities there (owner or admin). */
export async function platformsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['platforms'];

  r.get(
    '/api/platforms',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'List platforms (secret fields masked)',
        querystring: platformListQuery,
        response: listResponses(platformItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listPlatforms(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/platforms',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Create a platform; platform_config is checked per platform_type',
        body: platformBody,
        response: responses(platformItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createPlatform(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/platforms/options',
    {
      schema: {
        tags,
        summary: 'Names and types of the platforms, for binding a product (any signed-in user)',
        response: responses(z.array(platformOption), ...SIGNED_IN),
      },
    },
    async (req) => ok(await listPlatformOptions(app.deps, actorOf(req))),
  );

  r.get(
    '/api/platforms/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'A platform (secret fields masked)',
        params: platformIdParams,
        response: responses(platformItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getPlatform(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/platforms/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Replace a platform; a secret field sent masked keeps its value. Devices of bound products get new parameters',
        params: platformIdParams,
        body: platformBody,
        response: responses(platformItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { item, changed } = await updatePlatform(app.deps, actorOf(req), req.params.id, req.body);
      if (changed) await syncPlatformBoundProducts(app.deps, item.id);
      return ok(item);
    },
  );

  r.delete(
    '/api/platforms/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a platform no product is bound to (10112 with details.product_count otherwise)',
        params: platformIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deletePlatform(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.get(
    '/api/products/:product_key/platform-credentials',
    {
      schema: {
        tags,
        summary: "The product's devices with their identity in the bound cloud (secrets never returned)",
        params: productKeyParams,
        querystring: platformCredentialQuery,
        response: listResponses(platformCredentialItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listProductPlatformCredentials(
        app.deps,
        actorOf(req),
        req.params.product_key,
        req.query,
      );
      return okList(items, total);
    },
  );

  r.put(
    '/api/products/:product_key/platform-credentials',
    {
      schema: {
        tags,
        summary:
          "Store devices' identities in the bound cloud (aliyun DeviceSecret, tencent PSK, azure key …); one result per line",
        params: productKeyParams,
        body: platformCredentialsBody,
        response: responses(z.array(platformCredentialResult), ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(await setProductPlatformCredentials(app.deps, actorOf(req), req.params.product_key, req.body)),
  );

  r.post(
    '/api/products/:product_key/platform-sync',
    {
      schema: {
        tags,
        summary:
          "Recompute the devices' iot_platform_param (renewing passwords near expiry) and push the changes",
        params: productKeyParams,
        response: responses(platformSyncResult, ...SIGNED_IN),
      },
    },
    async (req) => ok(await syncProductPlatform(app.deps, actorOf(req), req.params.product_key)),
  );
}
