import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import { AppError } from '../lib/app-error';
import { sendAppError } from './error-handler';

const isApi = (url: string) =>
  url === '/api' || url.startsWith('/api/') || url === '/mqtt' || url.startsWith('/mqtt?');

/** Files the build writes that are never answered as such: source maps (unless configured) and the copies. */
const isSourceMap = (url: string) => /\.map(?:$|\?)/.test(url);
const isAsset = (url: string) => url.startsWith('/assets/');

function cacheHeaders(reply: FastifyReply, sentPath: string): void {
  // With a precompressed copy the file sent is `x.js.br`: the rules go by the file it stands for.
  const filePath = sentPath.replace(/\.(br|gz)$/, '');
  if (path.basename(filePath) === 'index.html') reply.header('cache-control', 'no-cache');
  // Vite puts content-hashed files in assets/: a new build has new names, so they never go stale.
  else if (filePath.includes(`${path.sep}assets${path.sep}`)) {
    reply.header('cache-control', 'public, max-age=31536000, immutable');
  } else reply.header('cache-control', 'public, max-age=3600');
}

/**
 * The built console at `/` with the SPA fallback: any other GET outside /api and /mqtt answers index.html so
 * client-side routes survive a reload. Unknown /api routes answer 404 code 10106.
 * The build leaves `.br` and `.gz` copies beside each text file (apps/console/vite.config.ts): the copy the
 * browser accepts is sent with its Content-Encoding and `Vary: Accept-Encoding`. Source maps answer 404 unless
 * `sourceMaps` (CONSOLE_SOURCE_MAPS); so does a missing file under /assets/ (a stale chunk name must fail as a
 * script, not load index.html).
 */
export const consolePlugin = fp(
  async (app: FastifyInstance, opts: { dist: string; sourceMaps?: boolean }) => {
    const available = existsSync(path.join(opts.dist, 'index.html'));
    if (available) {
      await app.register(fastifyStatic, {
        root: opts.dist,
        prefix: '/',
        wildcard: true,
        index: ['index.html'],
        cacheControl: false,
        preCompressed: true,
        allowedPath: (pathname) => opts.sourceMaps === true || !isSourceMap(pathname),
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
      const page = !isApi(url) && !isAsset(url) && !isSourceMap(url);
      if (available && (request.method === 'GET' || request.method === 'HEAD') && page) {
        return reply.header('cache-control', 'no-cache').sendFile('index.html');
      }
      return sendAppError(reply, new AppError(10106));
    });
  },
  { name: 'console' },
);
