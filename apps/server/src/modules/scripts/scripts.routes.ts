import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  scriptBindBody,
  scriptBody,
  scriptDetail,
  scriptIdParams,
  scriptItem,
  scriptListQuery,
  scriptStateBody,
  scriptTestBody,
  scriptTestResult,
  scriptUpdateBody,
  scriptVersionItem,
  scriptVersionParams,
} from '@cellhub/contract/scripts';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  bindScript,
  createScript,
  deleteScript,
  getScript,
  listScripts,
  listVersions,
  restoreVersion,
  setScriptState,
  testRun,
  updateScript,
} from './scripts.service';

const USER = { auth: 'user' } as const;
const RIGHTS =
  "a product's script: its product's owner and admins (10107 for anyone else); a shared script: read by all, " +
  'changed by admins (10108)';
const SOURCE_RULES = '82005 when the source does not compile (details: the line and the message)';

/** Scripts (docs/scripts.md): decoding and encoding scripts of products, their versions and a test run. */
export async function scriptsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['scripts'];

  r.get(
    '/api/scripts',
    {
      config: USER,
      schema: {
        tags,
        summary: "Scripts, newest first: the caller's products' scripts and the shared ones (admins: all)",
        querystring: scriptListQuery,
        response: listResponses(scriptItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listScripts(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/scripts',
    {
      config: USER,
      schema: {
        tags,
        summary:
          "Create a script for a product of the caller's (bound to it when the product has none) or, admins " +
          `only, a shared one (no product_key). ${SOURCE_RULES}`,
        body: scriptBody,
        response: responses(scriptDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createScript(app.deps, actorOf(req), req.body)),
  );

  r.post(
    '/api/scripts/test-run',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'Run a source (saved or not) on a sample input: output, log lines, error with its line; stores nothing',
        body: scriptTestBody,
        response: responses(scriptTestResult, ...SIGNED_IN),
      },
    },
    async (req) => ok(await testRun(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/scripts/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: `A script with its source, counters and latest errors (${RIGHTS})`,
        params: scriptIdParams,
        response: responses(scriptDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getScript(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/scripts/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: `Rename, describe or save a new source (a new version). ${SOURCE_RULES}; ${RIGHTS}`,
        params: scriptIdParams,
        body: scriptUpdateBody,
        response: responses(scriptDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateScript(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.put(
    '/api/scripts/:id/state',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Enable (the failure run starts again) or disable a script',
        params: scriptIdParams,
        body: scriptStateBody,
        response: responses(scriptDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await setScriptState(app.deps, actorOf(req), req.params.id, req.body.enabled)),
  );

  r.put(
    '/api/scripts/:id/binding',
    {
      config: USER,
      schema: {
        tags,
        summary:
          "Make the script the one a product of the caller's uses (its own product's script, or a shared one)",
        params: scriptIdParams,
        body: scriptBindBody,
        response: responses(scriptDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await bindScript(app.deps, actorOf(req), req.params.id, req.body.product_key)),
  );

  r.delete(
    '/api/scripts/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Delete a script with its versions (its products then keep raw uplinks undecoded)',
        params: scriptIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteScript(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.get(
    '/api/scripts/:id/versions',
    {
      config: USER,
      schema: {
        tags,
        summary: 'The versions of a script, newest first',
        params: scriptIdParams,
        response: listResponses(scriptVersionItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const items = await listVersions(app.deps, actorOf(req), req.params.id);
      return okList(items, items.length);
    },
  );

  r.post(
    '/api/scripts/:id/versions/:version/restore',
    {
      config: USER,
      schema: {
        tags,
        summary: "Roll back: the version's source becomes a new version (10107 for an unknown version)",
        params: scriptVersionParams,
        response: responses(scriptDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await restoreVersion(app.deps, actorOf(req), req.params.id, req.params.version)),
  );
}
