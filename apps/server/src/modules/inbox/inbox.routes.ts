import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  inboxIdParams,
  inboxItem,
  inboxListQuery,
  inboxReadBody,
  inboxReadResult,
  inboxUnread,
} from '@cellhub/contract/inbox';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { listInbox, readMessage, readMessages, unreadCounts } from './inbox.service';

/** The navbar message box: the caller's own messages and their read state. */
export async function inboxRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['inbox'];
  const config = { auth: 'user' as const };

  r.get(
    '/api/inbox',
    {
      config,
      schema: {
        tags,
        summary: "The caller's messages, newest first (every user, admins too, sees only her own)",
        querystring: inboxListQuery,
        response: listResponses(inboxItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listInbox(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/inbox/unread',
    {
      config,
      schema: {
        tags,
        summary: 'Unread messages of the caller, in all and per tab (alert, ota, sim)',
        response: responses(inboxUnread, ...SIGNED_IN),
      },
    },
    async (req) => ok(await unreadCounts(app.deps, actorOf(req))),
  );

  r.post(
    '/api/inbox/:id/read',
    {
      config,
      schema: {
        tags,
        summary: "Mark one message read (idempotent); another user's message answers 10107",
        params: inboxIdParams,
        response: responses(inboxItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await readMessage(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/inbox/read',
    {
      config,
      schema: {
        tags,
        summary:
          'Mark messages read: the given ids, or every unread one (of one tab with `category`); answers how many',
        body: inboxReadBody,
        response: responses(inboxReadResult, ...SIGNED_IN),
      },
    },
    async (req) => ok({ read: await readMessages(app.deps, actorOf(req), req.body) }),
  );
}
