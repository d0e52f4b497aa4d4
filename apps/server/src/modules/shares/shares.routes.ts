import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  incomingShareItem,
  outgoingShareItem,
  shareCreateBody,
  shareCreateResult,
  shareIdParams,
  shareLinkAccepted,
  shareLinkCreateBody,
  shareLinkCreated,
  shareLinkIdParams,
  shareLinkItem,
  shareLinkListQuery,
  shareLinkPreview,
  shareListQuery,
  shareTokenParams,
  shareUpdateBody,
} from '@cellhub/contract/shares';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  acceptShareLink,
  createShareLink,
  createShares,
  deleteShare,
  deleteShareLink,
  listIncoming,
  listOutgoing,
  listShareLinks,
  previewShareLink,
  updateShare,
} from './shares.service';

/** Sharing (docs/sharing.md): direct shares and share links. Rights are the authorisation layer's. */
export async function sharesRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['shares'];

  r.post(
    '/api/shares',
    {
      schema: {
        tags,
        summary:
          'Share own devices with an account (username or phone), view or control right, optional expiry; ' +
          'sharing again updates right and expiry. All or nothing: 10210 unknown/disabled account or a device ' +
          'that is not yours to share, 10212 yourself',
        body: shareCreateBody,
        response: responses(shareCreateResult, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createShares(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/shares/outgoing',
    {
      schema: {
        tags,
        summary: 'What I shared (admins: every share); expired shares are listed with expired: true',
        querystring: shareListQuery,
        response: listResponses(outgoingShareItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listOutgoing(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/shares/incoming',
    {
      schema: {
        tags,
        summary: 'What is shared with me (live shares)',
        querystring: shareListQuery,
        response: listResponses(incomingShareItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listIncoming(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.put(
    '/api/shares/:id',
    {
      schema: {
        tags,
        summary: 'Change right and expiry of a share (its owner); 10107 otherwise',
        params: shareIdParams,
        body: shareUpdateBody,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateShare(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/shares/:id',
    {
      schema: {
        tags,
        summary: 'Revoke a share (its owner) or leave it (its receiver); 10107 otherwise',
        params: shareIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => ok(await deleteShare(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/share-links',
    {
      schema: {
        tags,
        summary:
          'Make a share link of own devices (one owner per link); the token is shown once and only its SHA-256 ' +
          'is kept. 10210 when a device is not yours to share',
        body: shareLinkCreateBody,
        response: responses(shareLinkCreated, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createShareLink(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/share-links',
    {
      schema: {
        tags,
        summary: 'My share links that are not revoked (admins: everyone\u2019s)',
        querystring: shareLinkListQuery,
        response: listResponses(shareLinkItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listShareLinks(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.delete(
    '/api/share-links/:id',
    {
      schema: {
        tags,
        summary: 'Revoke a share link (its owner); shares already accepted stay. 10107 otherwise',
        params: shareLinkIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => ok(await deleteShareLink(app.deps, actorOf(req), req.params.id)),
  );

  r.get(
    '/api/share-links/:token',
    {
      schema: {
        tags,
        summary:
          'Preview a share link before accepting: owner, devices, right, expiry. 10211 unknown, revoked, ' +
          'expired or used up; 10212 your own link',
        params: shareTokenParams,
        response: responses(shareLinkPreview, ...SIGNED_IN),
      },
    },
    async (req) => ok(await previewShareLink(app.deps, actorOf(req), req.params.token)),
  );

  r.post(
    '/api/share-links/:token/accept',
    {
      schema: {
        tags,
        summary:
          'Accept a share link: its devices are shared with you (one use, counted atomically). 10211 unknown, ' +
          'revoked, expired or used up; 10212 your own link',
        params: shareTokenParams,
        response: responses(shareLinkAccepted, ...SIGNED_IN),
      },
    },
    async (req) => ok(await acceptShareLink(app.deps, actorOf(req), req.params.token)),
  );
}
