import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import fastifyCompress from '@fastify/compress';

/**
 * Types worth compressing on the fly: text and JSON. Not event streams (each event must reach the browser at
 * once) and not `application/octet-stream` (@fastify/compress's default includes it): firmware images and other
 * downloads are binary and usually compressed already. Zip-based exports (xlsx) match neither.
 */
const COMPRESSIBLE =
  /^text\/(?!event-stream)|(?:\+|\/)json(?:;|$)|(?:\+|\/)xml(?:;|$)|^application\/javascript/u;

/**
 * Compresses answers of 1 KB and more (brotli or gzip, as the request's Accept-Encoding prefers; nothing without
 * it; brotli at the plugin's quality 4, cheap enough per answer) on every route registered after this plugin. The built console is compressed at build time instead
 * (consolePlugin serves the .br/.gz files and this hook leaves an answer that has a Content-Encoding alone).
 * WebSocket upgrades never pass through it. Request bodies are not decompressed: a compressed upload is refused
 * as before.
 */
const BINARY =
  /^application\/(?:octet-stream|zip|gzip|x-gzip|x-7z-compressed|vnd\.openxmlformats)|^(?:image|video|audio|font)\//u;

export const compressionPlugin = fp(
  async (app: FastifyInstance) => {
    // mime-db calls octet-stream compressible, and @fastify/compress asks it after `customTypes`: its documented
    // per-request opt-out runs first (hooks of the instance run before the plugin's per-route hook).
    app.addHook('onSend', async (request, reply, payload) => {
      if (BINARY.test(String(reply.getHeader('content-type') ?? ''))) {
        request.headers['x-no-compression'] = 'binary';
      }
      return payload;
    });
    await app.register(fastifyCompress, {
      global: true,
      threshold: 1024,
      encodings: ['br', 'gzip'],
      customTypes: COMPRESSIBLE,
      globalDecompression: false,
    });
  },
  { name: 'compression' },
);
