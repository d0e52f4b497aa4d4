import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  deviceTimeline,
  shipmentBody,
  shipmentDetail,
  shipmentIdParams,
  shipmentItem,
  shipmentListQuery,
  shipmentResult,
  STOCK_EXPORT_MAX,
  STOCK_RANGE_MAX,
  stockCheckBody,
  stockCheckLine,
  stockExportQuery,
  stockItem,
  stockListQuery,
  stockRangeBody,
  stockRangeResult,
} from '@cellhub/contract/device-stock';
import { errorBody } from '@cellhub/contract/common';
import { snParams } from '@cellhub/contract/devices';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  checkStock,
  createStockRange,
  deviceTimeline as timelineOf,
  exportStock,
  getShipment,
  listShipments,
  listStock,
  shipDevices,
} from './device-stock.service';

const ADMIN = { auth: 'admin' } as const;

const csvResponse = {
  200: z.string().describe('CSV (UTF-8 with BOM)'),
  400: errorBody.describe('10113 invalid filter, 10108 not an admin'),
  403: errorBody.describe('not signed in (10102)'),
};

/** Device admin: stock, ranges, fast out of stock, shipments (admin); the device timeline (whoever views it). */
export async function deviceStockRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['device-stock'];
  // Shipping and new stock change owners and totals: cached device-list counts start over (as devices.routes.ts).
  app.addHook('onSend', async (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') app.deps.caches.deviceCounts.clear();
  });

  r.get(
    '/api/device-stock',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Devices in stock (no owner), newest first: keyword (sn, name, IMEI, ICCID), product_key, created_from / ' +
          'created_to (days, UTC), task_id, group_id, tested (untested, ok, failed)',
        querystring: stockListQuery,
        response: listResponses(stockItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listStock(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/device-stock/export',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: `The stock matching the filters as a CSV file (at most ${STOCK_EXPORT_MAX} rows)`,
        querystring: stockExportQuery,
        produces: ['text/csv'],
        response: csvResponse,
      },
    },
    async (req, reply) => {
      const csv = await exportStock(app.deps, actorOf(req), req.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="device-stock.csv"')
        .send(csv);
    },
  );

  r.post(
    '/api/device-stock/range',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          `New stock devices prefix + from..to zero-padded to digits (at most ${STOCK_RANGE_MAX}); one line per ` +
          'sn as POST /api/devices answers: created, 20402 exists, 20403 another product, 10113 invalid sn',
        body: stockRangeBody,
        response: responses(stockRangeResult, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createStockRange(app.deps, actorOf(req), req.body)),
  );

  r.post(
    '/api/device-stock/check',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Check scanned sns before shipping: in_stock (0), owned (11014), not_found (10117), invalid (10113)',
        body: stockCheckBody,
        response: responses(z.array(stockCheckLine), ...SIGNED_IN),
      },
    },
    async (req) => ok(await checkStock(app.deps, actorOf(req), req.body.sns)),
  );

  r.get(
    '/api/device-stock/shipments',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Shipments, newest first (keyword: customer username)',
        querystring: shipmentListQuery,
        response: listResponses(shipmentItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listShipments(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/device-stock/shipments',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Fast out of stock to a customer (username or phone; 10107 unknown, 10103 disabled): the sns and/or ' +
          'the in-stock devices of a productive group. Per line: shipped (0), owned (11014), not_found (10117), ' +
          'invalid or duplicate (10113); the rest ship in one transaction with one shipment record',
        body: shipmentBody,
        response: responses(shipmentResult, ...SIGNED_IN),
      },
    },
    async (req) => ok(await shipDevices(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/device-stock/shipments/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'A shipment with its sns; 10107 unknown',
        params: shipmentIdParams,
        response: responses(shipmentDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getShipment(app.deps, actorOf(req), req.params.id)),
  );

  r.get(
    '/api/devices/:sn/timeline',
    {
      schema: {
        tags: ['devices'],
        summary:
          'The life of a device, oldest first: produced, tested, shipped, bound, first_connect, sim_activated, ' +
          'unbound (whoever may view the device; 10117 otherwise)',
        params: snParams,
        response: responses(deviceTimeline, ...SIGNED_IN),
      },
    },
    async (req) => ok(await timelineOf(app.deps, actorOf(req), req.params.sn)),
  );
}
