import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  productiveGroupAddBody,
  productiveGroupAddLine,
  productiveGroupBody,
  productiveGroupDevice,
  productiveGroupDeviceQuery,
  productiveGroupItem,
  productiveGroupListQuery,
  productiveGroupRemoveBody,
  productiveGroupUpdateBody,
  productionDeviceItem,
  productionIdParams,
  productionInfoQuery,
  productionTaskBody,
  productionTaskItem,
  productionTaskListQuery,
  taskDeviceQuery,
  taskLabels,
} from '@cellhub/contract/production';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  cancelProductionTask,
  createProductionTask,
  deleteProductionTask,
  finishProductionTask,
  getProductionTask,
  listProducedDevices,
  listProductionTasks,
  startProductionTask,
  taskLabels as labelsOf,
  updateProductionTask,
} from './production.service';
import {
  addToProductiveGroup,
  createProductiveGroup,
  deleteProductiveGroup,
  getProductiveGroup,
  listProductiveGroupDevices,
  listProductiveGroups,
  removeFromProductiveGroup,
  updateProductiveGroup,
} from './productive-groups.service';

const ADMIN = { auth: 'admin' } as const;

/** Production tasks, their devices and labels, and the produced-devices records (admin). */
export async function productionRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['production'];

  r.get(
    '/api/production/tasks',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Production tasks, newest first, with progress (keyword matches the name; state, product filters)',
        querystring: productionTaskListQuery,
        response: listResponses(productionTaskItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listProductionTasks(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/production/tasks',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Plan a task (draft): product, hardware group, quantity 1..10000, sn rule (prefix + yyMMdd of the ' +
          'planned date + zero-padded sequence, or a list), optional firmware version of the product (71003)',
        body: productionTaskBody,
        response: responses(productionTaskItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createProductionTask(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/production/tasks/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'A production task with its progress',
        params: productionIdParams,
        response: responses(productionTaskItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getProductionTask(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/production/tasks/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Replace a draft task (same body as create); 71001 once started',
        params: productionIdParams,
        body: productionTaskBody,
        response: responses(productionTaskItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateProductionTask(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/production/tasks/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a draft task; 71001 once started (a started task is the record of its devices)',
        params: productionIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteProductionTask(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.post(
    '/api/production/tasks/:id/start',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Start a draft: create every device of the task in stock with generated secrets, in one transaction. ' +
          'Refused with nothing created when an sn exists (20402, details.sns and details.count)',
        params: productionIdParams,
        response: responses(productionTaskItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await startProductionTask(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/production/tasks/:id/finish',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Mark a producing task done (71001 otherwise)',
        params: productionIdParams,
        response: responses(productionTaskItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await finishProductionTask(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/production/tasks/:id/cancel',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Cancel a draft or producing task (71001 once done); devices already made stay in stock',
        params: productionIdParams,
        response: responses(productionTaskItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await cancelProductionTask(app.deps, actorOf(req), req.params.id)),
  );

  r.get(
    '/api/production/tasks/:id/labels',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: "What the task's label sheet prints: product, hardware version and every sn in order",
        params: productionIdParams,
        response: responses(taskLabels, ...SIGNED_IN),
      },
    },
    async (req) => ok(await labelsOf(app.deps, actorOf(req), req.params.id)),
  );

  r.get(
    '/api/production/tasks/:id/devices',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: "The task's devices in sn order with their factory-test state (keyword matches the sn)",
        params: productionIdParams,
        querystring: taskDeviceQuery,
        response: listResponses(productionDeviceItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listProducedDevices(app.deps, actorOf(req), {
        ...req.query,
        task_id: req.params.id,
      });
      return okList(items, total);
    },
  );

  r.get(
    '/api/production/info',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Produced devices (newest task first): task, factory test (untested, ok, failed), hardware mismatch, ' +
          'shipped; filters for each',
        querystring: productionInfoQuery,
        response: listResponses(productionDeviceItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listProducedDevices(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/production/groups',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Productive groups (batches of produced devices), newest first, with their device counts',
        querystring: productiveGroupListQuery,
        response: listResponses(productiveGroupItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listProductiveGroups(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/production/groups',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Create a productive group',
        body: productiveGroupBody,
        response: responses(productiveGroupItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createProductiveGroup(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/production/groups/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'A productive group',
        params: productionIdParams,
        response: responses(productiveGroupItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getProductiveGroup(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/production/groups/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Rename a productive group or change its description',
        params: productionIdParams,
        body: productiveGroupUpdateBody,
        response: responses(productiveGroupItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateProductiveGroup(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/production/groups/:id',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Delete a productive group (its devices stay as they are)',
        params: productionIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteProductiveGroup(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.get(
    '/api/production/groups/:id/devices',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: "The group's devices by sn, with their task and owner (null while in stock)",
        params: productionIdParams,
        querystring: productiveGroupDeviceQuery,
        response: listResponses(productiveGroupDevice, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listProductiveGroupDevices(
        app.deps,
        actorOf(req),
        req.params.id,
        req.query,
      );
      return okList(items, total);
    },
  );

  r.post(
    '/api/production/groups/:id/devices',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          "Add a task's devices (task_id) and/or sns by hand; per sn: added, already, not_found (10117) or " +
          'not_in_stock (11014, the device has an owner)',
        params: productionIdParams,
        body: productiveGroupAddBody,
        response: responses(z.array(productiveGroupAddLine), ...SIGNED_IN),
      },
    },
    async (req) => ok(await addToProductiveGroup(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.post(
    '/api/production/groups/:id/devices/remove',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Take devices out of the group',
        params: productionIdParams,
        body: productiveGroupRemoveBody,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await removeFromProductiveGroup(app.deps, actorOf(req), req.params.id, req.body.sns);
      return ok(null);
    },
  );
}
