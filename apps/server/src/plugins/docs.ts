import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

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
          securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'token from sign-in' } },
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
          { name: 'shares', description: 'device shares (view or control right) and share links' },
        ],
      },
      transform: jsonSchemaTransform,
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
