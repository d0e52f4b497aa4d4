import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '@cellhub/contract/common';
import {
  hwGroupBody,
  hwGroupItem,
  hwGroupListQuery,
  hwGroupUpdateBody,
  hwIdParams,
  hwInfoExportQuery,
  hwInfoItem,
  hwInfoQuery,
  hwValueBody,
  hwValueItem,
  hwValueListQuery,
  hwValueUpdateBody,
} from '@cellhub/contract/hardware';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  createHwGroup,
  createHwValue,
  deleteHwGroup,
  deleteHwValue,
  exportHwInfo,
  getHwGroup,
  listHwGroups,
  listHwInfo,
  listHwValues,
  updateHwGroup,
  updateHwValue,
} from './hardware.service';

const ADMIN = { auth: 'admin' } as const;

const csvResponse = {
  200: z.string().describe('CSV (UTF-8 with BOM)'),
  400: errorBody.describe('10113 invalid filter'),
  403: errorBody.describe('not signed in (10102)'),
  429: errorBody.describe('too many requests (10104)'),
};

/** Hardware values and groups (admin), and what devices reported about their hardware (any role, own devices). */
export async function hardwareRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['hardware'];

  r.get(
    '/api/hw/values',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Hardware values by type then value (type filter; keyword matches value and description)',
        querystring: hwValueListQuery,
        response: listResponses(hwValueItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listHwValues(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/hw/values',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Add a hardware value; the same type and value ignoring case is refused (70002)',
        body: hwValueBody,
        response: responses(hwValueItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createHwValue(app.deps, actorOf(req), req.body)),
  );

  r.put(
    '/api/hw/values/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Change a hardware value (70002 for a duplicate; a value used by a group keeps its type: 10110)',
        params: hwIdParams,
        body: hwValueUpdateBody,
        response: responses(hwValueItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateHwValue(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/hw/values/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a hardware value; refused while a hardware group uses it (10112, details.groups)',
        params: hwIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteHwValue(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.get(
    '/api/hw/groups',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Hardware groups, newest first, with their values (keyword matches the name)',
        querystring: hwGroupListQuery,
        response: listResponses(hwGroupItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listHwGroups(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/hw/groups',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Create a hardware group: a name and at most one value per type (value_ids)',
        body: hwGroupBody,
        response: responses(hwGroupItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createHwGroup(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/hw/groups/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'A hardware group with its values',
        params: hwIdParams,
        response: responses(hwGroupItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getHwGroup(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/hw/groups/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Change a hardware group; value_ids replaces its values',
        params: hwIdParams,
        body: hwGroupUpdateBody,
        response: responses(hwGroupItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateHwGroup(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/hw/groups/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a hardware group; refused while a production task builds it (10112, details.tasks)',
        params: hwIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteHwGroup(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.get(
    '/api/hw/info',
    {
      schema: {
        tags,
        summary:
          'What devices reported on up/info (hw, test), latest first: admins every device, users their own and ' +
          'shared ones; keyword matches sn or IMEI',
        querystring: hwInfoQuery,
        response: listResponses(hwInfoItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listHwInfo(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/hw/info/export',
    {
      schema: {
        tags,
        summary: 'The same records as a CSV file (at most 20,000 rows)',
        querystring: hwInfoExportQuery,
        produces: ['text/csv'],
        response: csvResponse,
      },
    },
    async (req, reply) => {
      const csv = await exportHwInfo(app.deps, actorOf(req), req.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="hw-info.csv"')
        .send(csv);
    },
  );
}
