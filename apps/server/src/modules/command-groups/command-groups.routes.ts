import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  commandGroupBody,
  commandGroupDetail,
  commandGroupItem,
  commandGroupListQuery,
  commandGroupUpdateBody,
  deviceCommandGroup,
  deviceGroupCommandParams,
  groupCommandBody,
  groupCommandItem,
  groupCommandParams,
  groupCommandSendBody,
  groupIdParams,
} from '@cellhub/contract/command-groups';
import { commandItem, snParams } from '@cellhub/contract/devices';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  createCommandGroup,
  createGroupCommand,
  deleteCommandGroup,
  deleteGroupCommand,
  deviceCommandGroups,
  getCommandGroup,
  getGroupCommand,
  listCommandGroups,
  sendGroupCommand,
  updateCommandGroup,
  updateGroupCommand,
} from './command-groups.service';

const ADMIN = { auth: 'admin' } as const;
const DEFINITION_RULES =
  'data: 90000 missing, 90001 blank, 70003 when the template or a parameter is invalid (hex even length without ' +
  '0x; every {{name}} defined and every parameter used; a HEX command takes int params with bytes, hex params and ' +
  'hex enums; patterns compile, at most 200 characters, no nested quantifiers or back-references); details name ' +
  'each field and reason';

/** Command groups: admins define them per product; users send them to the devices they may control. */
export async function commandGroupsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['command-groups'];

  r.get(
    '/api/command-groups',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Command groups, newest first (filter by product_key, keyword in the name)',
        querystring: commandGroupListQuery,
        response: listResponses(commandGroupItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listCommandGroups(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/command-groups',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Create a command group for a product (10107 when product_key names none)',
        body: commandGroupBody,
        response: responses(commandGroupItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createCommandGroup(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/command-groups/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'A command group with its commands',
        params: groupIdParams,
        response: responses(commandGroupDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getCommandGroup(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/command-groups/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Rename a command group or change its description (its product stays)',
        params: groupIdParams,
        body: commandGroupUpdateBody,
        response: responses(commandGroupItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateCommandGroup(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/command-groups/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a command group and its commands (sent commands stay in device histories)',
        params: groupIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteCommandGroup(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.post(
    '/api/command-groups/:id/commands',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: `Add a predefined command. ${DEFINITION_RULES}`,
        params: groupIdParams,
        body: groupCommandBody,
        response: responses(groupCommandItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createGroupCommand(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.get(
    '/api/command-groups/:id/commands/:cmdId',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'One predefined command of the group',
        params: groupCommandParams,
        response: responses(groupCommandItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getGroupCommand(app.deps, actorOf(req), req.params.id, req.params.cmdId)),
  );

  r.put(
    '/api/command-groups/:id/commands/:cmdId',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: `Replace a predefined command's definition. ${DEFINITION_RULES}`,
        params: groupCommandParams,
        body: groupCommandBody,
        response: responses(groupCommandItem, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(await updateGroupCommand(app.deps, actorOf(req), req.params.id, req.params.cmdId, req.body)),
  );

  r.delete(
    '/api/command-groups/:id/commands/:cmdId',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a predefined command',
        params: groupCommandParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteGroupCommand(app.deps, actorOf(req), req.params.id, req.params.cmdId);
      return ok(null);
    },
  );

  r.get(
    '/api/devices/:sn/command-groups',
    {
      config: { auth: 'user' },
      schema: {
        tags,
        summary:
          "The command groups of the device's product with their commands; needs the control right on the " +
          'device (10117 when it is not visible, 10108 with a view-only share)',
        params: snParams,
        response: responses(z.array(deviceCommandGroup), ...SIGNED_IN),
      },
    },
    async (req) => ok(await deviceCommandGroups(app.deps, actorOf(req), req.params.sn)),
  );

  r.post(
    '/api/devices/:sn/command-groups/commands/:cmdId/send',
    {
      config: { auth: 'user' },
      schema: {
        tags,
        summary:
          'Send a predefined command with parameter values: each is checked against its definition (90000 ' +
          'missing, 90001 blank, 70003 invalid: int out of range, bad hex, too long, no pattern match; details ' +
          'name params.<name>), rendered into the template and sent as POST /api/devices/{sn}/commands would ' +
          '(offline: 20401 or queued). The history row carries command_ref (group and command names). Needs the ' +
          'control right; 10107 when the command is not one of the product',
        params: deviceGroupCommandParams,
        body: groupCommandSendBody,
        response: responses(commandItem, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(await sendGroupCommand(app.deps, actorOf(req), req.params.sn, req.params.cmdId, req.body)),
  );
}
