import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import websocket from '@fastify/websocket';
import { z } from 'zod';
import { errorBody } from '@cellhub/contract/common';
import { formError } from '../lib/app-error';
import { sendAppError } from '../plugins/error-handler';
import { type HubOptions, WsHub } from './ws-hub';

declare module 'fastify' {
  interface FastifyInstance {
    /** The browsers connected at /api/ws on this instance. */
    realtime: WsHub;
  }
}

const DESCRIPTION = [
  'WebSocket for live device events (online/offline, property values, info, command replies, config sync).',
  'Browsers cannot set headers on a WebSocket, so the token travels in the first message:',
  '`{"type":"auth","token":"..."}` within 5 s, answered by `{"type":"ready","uid":...}`; otherwise the socket',
  'closes with 4401. Then `{"type":"event","event":{...}}` arrives for every device the user may see (own devices',
  'and devices shared with them while the share lasts; admins all). `{"type":"subscribe","sns":["..."]}` narrows',
  'the stream (`null`: all again), `{"type":"ping"}` is answered with `{"type":"pong"}`. Signing out closes the socket with 4403. A plain GET without an upgrade',
  'answers 400. Message shapes: packages/contract/src/realtime.ts; details in docs/api-conventions.md.',
].join(' ');

export const realtimePlugin = fp(
  async (app: FastifyInstance, opts: HubOptions) => {
    // The embedded broker registers @fastify/websocket for /mqtt; with an external broker nobody has yet.
    if (!app.hasPlugin('@fastify/websocket')) {
      await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
    }
    const hub = new WsHub(app.deps, opts);
    app.decorate('realtime', hub);

    app.route({
      method: 'GET',
      url: '/api/ws',
      // The upgrade request carries no token; the socket authenticates with its first message.
      config: { auth: 'public' },
      schema: {
        tags: ['realtime'],
        summary: 'Live device events (WebSocket)',
        description: DESCRIPTION,
        security: [],
        response: {
          101: z.null().describe('Switching Protocols: the WebSocket is open; send `auth` first'),
          400: errorBody.describe('not a WebSocket upgrade (10113)'),
          429: errorBody.describe('too many requests (10104); see Retry-After'),
        },
      },
      handler: (_request, reply) => sendAppError(reply, formError('upgrade', 'WebSocket upgrade required')),
      wsHandler: (socket, request) => hub.accept(socket, request),
    });

    app.addHook('preClose', async () => {
      await hub.close();
    });
    // Events published before the LISTEN connection is up would not reach other instances.
    await app.deps.events.ready();
  },
  { name: 'realtime', dependencies: ['auth', 'broker'] },
);
