import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { SIGNATURE_WINDOW_SECONDS } from '@cellhub/contract/signature';
import { openRouteScope } from '../modules/access-keys/open-routes';

const ACCESS_KEY_SCHEME = {
  type: 'apiKey' as const,
  in: 'header' as const,
  name: 'x-n-accesskey',
  description:
    'Signed request with an access key (docs/open-api.md): headers `x-n-accesskey`, `x-n-ts` (Unix seconds, ' +
    `within ${SIGNATURE_WINDOW_SECONDS} s of the server), \`x-n-nonce\` (8-64 of [A-Za-z0-9_-], once per key), and ` +
    '`x-n-signature` = lowercase hex HMAC-SHA256 keyed by the secret of: the path without `/api` and query, ' +
    '`x-n-ts=<ts>`, `x-n-nonce=<nonce>`, then `name=value` of every query parameter (GET, DELETE, HEAD) or ' +
    'top-level JSON body field (other methods) sorted by name, joined with `&`. Only the operations marked with ' +
    'this scheme accept it; `x-cellhub-scope` names the scope the key needs (10227 without it).',
};

/**
 * The zod transform, then the open API's marks: an operation on the open-route table accepts either a session or a
 * signed key, and names the scope the key needs.
 */
const transform: typeof jsonSchemaTransform = (input) => {
  const out = jsonSchemaTransform(input);
  const methods = [input.route.method].flat();
  const scope = methods.map((m) => openRouteScope(String(m), input.url)).find((s) => s !== undefined);
  if (!scope) return out;
  const security: Record<string, string[]>[] = [{ bearer: [] }, { accessKey: [] }];
  return {
    ...out,
    schema: { ...out.schema, security, 'x-cellhub-scope': scope },
  };
};

/** OpenAPI 3 generated from the routes' zod schemas: JSON at /api/docs/json, the UI at /api/docs. */
export const docsPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Cellhub API',
          description:
            'Cloud console and back end for cellular IoT fleets. Success: `{status: true, data}`; failure: ' +
            '`{code, message, details?}` without `status` (docs/api-conventions.md).',
          version: '0.1.0',
        },
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'token from sign-in' },
            accessKey: ACCESS_KEY_SCHEME,
          },
        },
        security: [{ bearer: [] }],
        tags: [
          { name: 'system', description: 'health and documentation' },
          { name: 'auth', description: 'sign-in, registration, sign-out' },
          { name: 'user', description: 'the signed-in user' },
          { name: 'users', description: 'account administration (admin)' },
          { name: 'products', description: 'products, their properties and dynamic-registration secret' },
          { name: 'platforms', description: "third-party clouds (admin) and devices' identities there" },
          { name: 'devices', description: 'devices, commands, configuration, telemetry history, device log' },
          { name: 'user-commands', description: 'saved commands sent to many devices, with results' },
          { name: 'config-templates', description: 'batch configuration templates and their sync' },
          { name: 'dashboard', description: 'Workplace figures: device counts and daily trends' },
          { name: 'firmware', description: 'firmware and versions: the binaries OTA tasks roll out' },
          {
            name: 'applications',
            description: 'applications admins publish and their versions, for download',
          },
          { name: 'realtime', description: 'live device events for the console over WebSocket (/api/ws)' },
          { name: 'hardware', description: 'hardware values, groups and what devices reported (hw info)' },
          {
            name: 'production',
            description: 'production tasks, label sheets, factory tests, productive groups',
          },
          { name: 'shares', description: 'device shares (view or control right) and share links' },
          { name: 'access-keys', description: 'access keys for the signed open API (docs/open-api.md)' },
          { name: 'command-groups', description: 'predefined commands per product, sent from device pages' },
          { name: 'thing-model', description: 'properties, events and services; JSON export/import' },
          { name: 'product-features', description: 'capability flags of products and their panels' },
          { name: 'device-stock', description: 'device admin: stock, ranges, fast out of stock, shipments' },
        ],
      },
      transform,
    });
    await app.register(swaggerUi, {
      routePrefix: '/api/docs',
      staticCSP: true,
      // Swagger UI's own policy, kept as strict as the rest of the site where it can be.
      // Swagger UI also sets inline styles at run time, which its style hashes cannot cover.
      transformStaticCSP: (header) =>
        header
          .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
          .replace(/style-src [^;]*/, "style-src 'self' 'unsafe-inline'")
          .replace(/\s*upgrade-insecure-requests;?/, ''),
    });
  },
  { name: 'docs' },
);
