import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, pageQuery } from '@cellhub/contract/common';
import {
  iccidParams,
  idParams,
  MAX_SIM_IMPORT_BYTES,
  MAX_SIM_IMPORT_ROWS,
  simCardBatchResult,
  simCardCreateBody,
  simCardDetail,
  simCardExportQuery,
  simCardItem,
  simCardListQuery,
  simCardLogDetail,
  simCardLogItem,
  simCardLogQuery,
  simCardOrderItem,
  simCardStatusBody,
  simCardUpdateBody,
  simUsageImportResult,
  simUsageQuery,
  simUsageSeries,
} from '@cellhub/contract/sim';
import { AppError } from '../../lib/app-error';
import { receiveFileBuffer } from '../../lib/multipart-upload';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  cardUsage,
  changeCardStatus,
  createCard,
  deleteCard,
  exportCards,
  getCardDetail,
  listCards,
  updateCard,
} from './sim-cards.service';
import { readTable, type TableRow } from './sim-import-file';
import {
  getCardLog,
  importCards,
  importUsage,
  listCardLogs,
  simImportColumn,
  usageImportColumn,
} from './sim-import.service';
import { cardOrders } from './sim-orders.service';

const ADMIN = { auth: 'admin' } as const;

/** One multipart file read as a table; the multipart limits (size, parts) answer 413 / 50001. */
async function uploadedTable(
  req: FastifyRequest,
  required: string,
  columnOf: (h: string) => string | undefined,
): Promise<{ filename: string; rows: TableRow[] }> {
  const { filename, buffer } = await receiveFileBuffer(req, {
    maxBytes: MAX_SIM_IMPORT_BYTES,
    tooLarge: () => new AppError(50001),
  });
  return {
    filename,
    rows: await readTable(buffer, filename, { maxRows: MAX_SIM_IMPORT_ROWS, required, columnOf }),
  };
}

const csvResponse = {
  200: z.string().describe('CSV (UTF-8 with BOM)'),
  400: errorBody.describe('10113 invalid filter'),
  403: errorBody.describe('not signed in (10102)'),
  429: errorBody.describe('too many requests (10104)'),
};

const attachment = (name: string) => `attachment; filename="${name}"`;

/** SIM cards for users (their cards) and admins (stock, creation log, imports). */
export async function simCardsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['cards'];
  const adminTags = ['card-admin'];

  r.get(
    '/api/cards',
    {
      schema: {
        tags,
        summary:
          "The caller's SIM cards (reported by their devices or assigned to them; admins: all), with status, traffic and expiry",
        querystring: simCardListQuery,
        response: listResponses(simCardItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listCards(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/cards/export',
    {
      schema: {
        tags,
        summary: "The caller's cards matching the filters as a CSV file (at most 20,000 rows)",
        querystring: simCardExportQuery,
        produces: ['text/csv'],
        response: csvResponse,
      },
    },
    async (req, reply) => {
      const csv = await exportCards(app.deps, actorOf(req), req.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', attachment('sim-cards.csv'))
        .send(csv);
    },
  );

  r.get(
    '/api/cards/:iccid',
    {
      schema: {
        tags,
        summary:
          "A card: traffic, expiry, the device it sits in, SIM swap warnings (60003 when not the caller's)",
        params: iccidParams,
        response: responses(simCardDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getCardDetail(app.deps, actorOf(req), req.params.iccid)),
  );

  r.get(
    '/api/cards/:iccid/usage',
    {
      schema: {
        tags,
        summary: 'Usage of a card by day (default the last 30 days) or by month (default the last 12), in MB',
        params: iccidParams,
        querystring: simUsageQuery,
        response: responses(simUsageSeries, ...SIGNED_IN),
      },
    },
    async (req) => ok(await cardUsage(app.deps, actorOf(req), req.params.iccid, req.query)),
  );

  r.get(
    '/api/cards/:iccid/orders',
    {
      schema: {
        tags,
        summary: 'Package history of a card: its orders (users: their own), newest first',
        params: iccidParams,
        querystring: pageQuery,
        response: listResponses(simCardOrderItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await cardOrders(app.deps, actorOf(req), req.params.iccid, req.query);
      return okList(items, total);
    },
  );

  // --- admin ---

  r.get(
    '/api/card-admin/cards',
    {
      config: ADMIN,
      schema: {
        tags: adminTags,
        summary:
          'All cards with filters (status, operator, flag, expiring_days, provider_id, package_id, uid)',
        querystring: simCardListQuery,
        response: listResponses(simCardItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listCards(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/card-admin/cards/export',
    {
      config: ADMIN,
      schema: {
        tags: adminTags,
        summary: 'All cards matching the filters as a CSV file (at most 20,000 rows)',
        querystring: simCardExportQuery,
        produces: ['text/csv'],
        response: csvResponse,
      },
    },
    async (req, reply) => {
      const csv = await exportCards(app.deps, actorOf(req), req.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', attachment('sim-cards.csv'))
        .send(csv);
    },
  );

  r.post(
    '/api/card-admin/cards',
    {
      config: ADMIN,
      schema: {
        tags: adminTags,
        summary: 'Create one card (60006 when the ICCID exists); written to the stock creation log',
        body: simCardCreateBody,
        response: responses(simCardDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createCard(app.deps, actorOf(req), req.body)),
  );

  r.put(
    '/api/card-admin/cards/:iccid',
    {
      config: ADMIN,
      schema: {
        tags: adminTags,
        summary: 'Edit a card: identity, provider, package, assigned user; status and dates for manual cards',
        params: iccidParams,
        body: simCardUpdateBody,
        response: responses(simCardDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateCard(app.deps, actorOf(req), req.params.iccid, req.body)),
  );

  r.delete(
    '/api/card-admin/cards/:iccid',
    {
      config: ADMIN,
      schema: {
        tags: adminTags,
        summary: 'Delete a card no order references (10112 otherwise)',
        params: iccidParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteCard(app.deps, actorOf(req), req.params.iccid);
      return ok(null);
    },
  );

  r.post(
    '/api/card-admin/cards/:iccid/status',
    {
      config: ADMIN,
      schema: {
        tags: adminTags,
        summary:
          'Activate or suspend a card: remote providers through their API (60008 when the operator fails or refuses), manual cards by hand',
        params: iccidParams,
        body: simCardStatusBody,
        response: responses(simCardDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await changeCardStatus(app.deps, actorOf(req), req.params.iccid, req.body.action)),
  );

  r.post(
    '/api/card-admin/cards/batch',
    {
      config: ADMIN,
      schema: {
        tags: adminTags,
        summary:
          `Create cards from one multipart file (.csv UTF-8 or .xlsx; headers iccid, phone/msisdn, imsi, operator, ` +
          `provider, package; at most ${MAX_SIM_IMPORT_ROWS} rows, ${MAX_SIM_IMPORT_BYTES / 1024 / 1024} MB). ` +
          'Answers the stock creation log row with each refused row and its reason',
        consumes: ['multipart/form-data'],
        response: responses(simCardBatchResult, ...SIGNED_IN, 413),
      },
    },
    async (req) => {
      const { filename, rows } = await uploadedTable(req, 'iccid', simImportColumn);
      return ok(await importCards(app.deps, actorOf(req), filename, rows));
    },
  );

  r.get(
    '/api/card-admin/card-logs',
    {
      config: ADMIN,
      schema: {
        tags: adminTags,
        summary: 'Stock creation log: who created how many cards when, and how many failed',
        querystring: simCardLogQuery,
        response: listResponses(simCardLogItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listCardLogs(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/card-admin/card-logs/:id',
    {
      config: ADMIN,
      schema: {
        tags: adminTags,
        summary: 'One creation log row with its refused rows (row, iccid, reason) and the ICCIDs created',
        params: idParams,
        response: responses(simCardLogDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getCardLog(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/card-admin/usage/import',
    {
      config: ADMIN,
      schema: {
        tags: adminTags,
        summary:
          'Import daily usage from one multipart file (.csv/.xlsx; headers iccid, date YYYY-MM-DD, used_mb); a row ' +
          "replaces that card's figure for that day",
        consumes: ['multipart/form-data'],
        response: responses(simUsageImportResult, ...SIGNED_IN, 413),
      },
    },
    async (req) => {
      const { filename, rows } = await uploadedTable(req, 'iccid', usageImportColumn);
      return ok(await importUsage(app.deps, actorOf(req), filename, rows));
    },
  );
}
