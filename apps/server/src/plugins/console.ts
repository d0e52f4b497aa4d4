import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import { AppError } from '../lib/app-error';
import { sendAppError } from './error-handler';

const isApi = (url: string) =>
  url === '/api' || url.startsWith('/api/') || url === '/mqtt' || url.startsWith('/mqtt?');

function cacheHeaders(reply: FastifyReply, filePath: string): void {
  if (path.basename(filePath) === 'index.html') reply.header('cache-control', 'no-cache');
  // Vite puts content-hashed files in assets/: a new build has new names, so they never go stale.
  else if (filePath.includes(`${path.sep}assets${path.sep}`)) {
    reply.header('cache-control', 'public, max-age=31536000, immutable');
  } else reply.header('cache-control', 'public, max-age=3600');
}

/**
 * The built console at `/` with the SPA fallback: any other GET outside /api and /mqtt answers index.html so
 * client-side routes survive a reload. Unknown /api routes answer 404 code 10106.
 */
export const consolePlugin = fp(
  async (app: FastifyInstance, opts: { dist: string }) => {
    const available = existsSync(path.join(opts.dist, 'index.html'));
    if (available) {
      await app.register(fastifyStatic, {
        root: opts.dist,
        prefix: '/',
        wildcard: true,
        index: ['index.html'],
        cacheControl: false,
        setHeaders: (reply, filePath) => cacheHeaders(reply, filePath),
        schemaHide: true,
      });
    } else {
      app.log.warn(
        { dist: opts.dist },
        'console not built: only the API is served (npm run build -w apps/console)',
      );
    }
    app.setNotFoundHandler((request, reply) => {
      const url = request.raw.url ?? request.url;
      if (available && (request.method === 'GET' || request.method === 'HEAD') && !isApi(url)) {
        return reply.header('cache-control', 'no-cache').sendFile('index.html');
      }
      return sendAppError(reply, new AppError(10106));
    });
  },
  { name: 'console' },
);
