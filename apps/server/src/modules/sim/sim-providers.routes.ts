import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  idParams,
  simProviderBody,
  simProviderItem,
  simProviderListQuery,
  simProviderTestResult,
  simSyncRun,
  simSyncRunQuery,
} from '@cellhub/contract/sim';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  createProvider,
  deleteProvider,
  getProvider,
  listProviders,
  testProvider,
  updateProvider,
} from './sim-providers.service';
import { listSyncRuns, requestSync } from './sim-sync.service';

const ADMIN = { auth: 'admin' } as const;

/** SIM provider accounts and their sync runs (admin). */
export async function simProvidersRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['card-admin'];

  r.get(
    '/api/card-admin/providers',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'List SIM providers (secret config fields masked), with card count and last sync',
        querystring: simProviderListQuery,
        response: listResponses(simProviderItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listProviders(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/card-admin/providers',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Create a SIM provider; config is checked per kind and its secrets are stored encrypted',
        body: simProviderBody,
        response: responses(simProviderItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createProvider(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/card-admin/providers/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'A SIM provider (secrets masked)',
        params: idParams,
        response: responses(simProviderItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getProvider(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/card-admin/providers/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Replace a SIM provider; a secret sent masked or empty keeps the stored one',
        params: idParams,
        body: simProviderBody,
        response: responses(simProviderItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateProvider(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/card-admin/providers/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a SIM provider without cards (60009 otherwise)',
        params: idParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteProvider(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.post(
    '/api/card-admin/providers/:id/test',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: "Test the provider's credentials: sign in and one cheap read; the answer says what failed",
        description:
          'A base_url on a loopback, private, link-local or reserved address (unless OUTBOUND_ALLOW names it) is ' +
          'refused before any connection: 400 / 40004 on config.base_url, the same whether anything listens there.',
        params: idParams,
        response: responses(simProviderTestResult, ...SIGNED_IN),
      },
    },
    async (req) => ok(await testProvider(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/card-admin/providers/:id/sync',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Queue a sync run now (or answer the run already queued, running or waiting to retry)',
        params: idParams,
        response: responses(simSyncRun, ...SIGNED_IN),
      },
    },
    async (req) => ok(await requestSync(app.deps, actorOf(req), req.params.id)),
  );

  r.get(
    '/api/card-admin/sync-runs',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Sync runs, newest first, with their counts and last error',
        querystring: simSyncRunQuery,
        response: listResponses(simSyncRun, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listSyncRuns(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );
}
