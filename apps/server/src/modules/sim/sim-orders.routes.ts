import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  balanceAccountItem,
  balanceAccountQuery,
  balanceInfo,
  balanceQuery,
  IDEMPOTENCY_KEY_RULE,
  idParams,
  ledgerItem,
  ledgerQuery,
  orderAdminActionBody,
  orderCreateBody,
  orderDetail,
  orderItem,
  orderListQuery,
  packageCreateBody,
  packageItem,
  packageListQuery,
  packageUpdateBody,
  topupBody,
} from '@cellhub/contract/sim';
import { formError } from '../../lib/app-error';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { getBalance, listAccounts, listLedger, topup } from './balance.service';
import {
  cancelOrder,
  completeOrder,
  createOrder,
  getOrder,
  listOrders,
  payOrder,
  refundOrder,
} from './sim-orders.service';
import {
  createPackage,
  deletePackage,
  getPackage,
  listPackages,
  updatePackage,
} from './sim-packages.service';

const ADMIN = { auth: 'admin' } as const;

/** The optional Idempotency-Key header: 1-64 visible ASCII characters, else 10113. */
function idempotencyKey(req: FastifyRequest): string | undefined {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || !IDEMPOTENCY_KEY_RULE.test(value))
    throw formError('Idempotency-Key', 'idempotency_key_rule');
  return value;
}

/** Data packages, orders and balances. Amounts are integer fen. */
export async function simOrdersRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  // --- packages ---

  r.get(
    '/api/packages',
    {
      schema: {
        tags: ['packages'],
        summary: 'Data packages (users: those on sale; admins: all, with how many cards and orders use each)',
        querystring: packageListQuery,
        response: listResponses(packageItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listPackages(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/packages/:id',
    {
      schema: {
        tags: ['packages'],
        summary: 'A data package (users: on sale only)',
        params: idParams,
        response: responses(packageItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getPackage(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/packages',
    {
      config: ADMIN,
      schema: {
        tags: ['packages'],
        summary: 'Create a data package (price in fen; 60007 when the code exists)',
        body: packageCreateBody,
        response: responses(packageItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createPackage(app.deps, actorOf(req), req.body)),
  );

  r.put(
    '/api/packages/:id',
    {
      config: ADMIN,
      schema: {
        tags: ['packages'],
        summary:
          'Edit a data package; while cards or orders use it, code, operator, type, validity, flow and price are locked (60001)',
        params: idParams,
        body: packageUpdateBody,
        response: responses(packageItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updatePackage(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/packages/:id',
    {
      config: ADMIN,
      schema: {
        tags: ['packages'],
        summary: 'Delete a data package no card or order uses (60001 otherwise)',
        params: idParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deletePackage(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  // --- orders ---

  r.get(
    '/api/orders',
    {
      schema: {
        tags: ['orders'],
        summary: 'Orders (users: their own; admins: all, filtered by status, kind, buyer, package, time)',
        querystring: orderListQuery,
        response: listResponses(orderItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listOrders(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/orders',
    {
      schema: {
        tags: ['orders'],
        summary:
          'Order a package for cards the caller may see (pending; `pay: true` pays at once). An Idempotency-Key ' +
          'header makes a repeat answer the same order',
        body: orderCreateBody,
        response: responses(orderDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createOrder(app.deps, actorOf(req), req.body, idempotencyKey(req))),
  );

  r.get(
    '/api/orders/:id',
    {
      schema: {
        tags: ['orders'],
        summary: 'An order with its cards (buyer or admin)',
        params: idParams,
        response: responses(orderDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getOrder(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/orders/:id/pay',
    {
      schema: {
        tags: ['orders'],
        summary:
          "Pay a pending order from the buyer's balance and extend its cards (60002 insufficient balance); paying " +
          'again answers the paid order and charges nothing',
        params: idParams,
        response: responses(orderDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await payOrder(app.deps, actorOf(req), req.params.id, idempotencyKey(req))),
  );

  r.post(
    '/api/orders/:id/cancel',
    {
      schema: {
        tags: ['orders'],
        summary: 'Cancel a pending order (buyer or admin; 60004 otherwise)',
        params: idParams,
        response: responses(orderDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await cancelOrder(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/orders/:id/refund',
    {
      config: ADMIN,
      schema: {
        tags: ['orders'],
        summary:
          "Refund a paid order: the amount back to the buyer's balance, card extensions taken back where untouched",
        params: idParams,
        body: orderAdminActionBody,
        response: responses(orderDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await refundOrder(app.deps, actorOf(req), req.params.id, req.body.note)),
  );

  r.post(
    '/api/orders/:id/complete',
    {
      config: ADMIN,
      schema: {
        tags: ['orders'],
        summary: 'Complete a pending order paid outside Cellhub: cards extended, no balance change',
        params: idParams,
        body: orderAdminActionBody,
        response: responses(orderDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await completeOrder(app.deps, actorOf(req), req.params.id, req.body.note)),
  );

  // --- balance ---

  r.get(
    '/api/balance',
    {
      schema: {
        tags: ['balance'],
        summary: "The caller's balance in fen (admins: any user's with ?uid=)",
        querystring: balanceQuery,
        response: responses(balanceInfo, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getBalance(app.deps, actorOf(req), req.query.uid)),
  );

  r.get(
    '/api/balance/ledger',
    {
      schema: {
        tags: ['balance'],
        summary: 'Every change of the balance (top-up, order, refund) with the running balance, newest first',
        querystring: ledgerQuery,
        response: listResponses(ledgerItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listLedger(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/balance/topups',
    {
      config: ADMIN,
      schema: {
        tags: ['balance'],
        summary: "Top up a user's balance (amount in fen, with a note); answers the ledger row",
        body: topupBody,
        response: responses(ledgerItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await topup(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/balance/accounts',
    {
      config: ADMIN,
      schema: {
        tags: ['balance'],
        summary: 'Users with their balances',
        querystring: balanceAccountQuery,
        response: listResponses(balanceAccountItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listAccounts(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );
}
