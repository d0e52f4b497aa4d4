import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  deviceTemplateBody,
  deviceTemplateInfo,
  productTemplateBody,
  slaveBody,
  slaveItem,
  slaveParams,
  slaveUpdateBody,
  templateApplyBody,
  templateApplyResult,
  templateBody,
  templateCopyBody,
  templateDetail,
  templateDeviceItem,
  templateDevicesQuery,
  templateIdParams,
  templateItem,
  templateListQuery,
  templateUpdateBody,
  variableBody,
  variableImportResult,
  variableItem,
  variableParams,
  variableUpdateBody,
} from '@cellhub/contract/data-templates';
import { snParams } from '@cellhub/contract/devices';
import { productKeyParams } from '@cellhub/contract/products';
import { AppError } from '../../lib/app-error';
import { receiveFileBuffer } from '../../lib/multipart-upload';
import { contentDisposition } from '../../lib/file-download';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { MAX_IMPORT_BYTES, readVariableSheet, writeVariableSheet } from './data-templates.sheet';
import {
  applyToDevices,
  clearDeviceTemplate,
  clearProductTemplate,
  copyTemplate,
  createSlave,
  createTemplate,
  createVariable,
  deleteSlave,
  deleteTemplate,
  deleteVariable,
  deviceTemplate,
  exportRows,
  getTemplate,
  importVariables,
  listTemplates,
  setDeviceTemplate,
  setProductTemplate,
  templateDevices,
  updateSlave,
  updateTemplate,
  updateVariable,
  visibleTemplate,
} from './data-templates.service';

const USER = { auth: 'user' } as const;
const VARIABLE_RULES =
  '80003 register address outside 1-65535 (for every register the value spans), 80004 invalid capture or control ' +
  'formula (details give the reason and position), 80005 data format, byte order, function code or access that ' +
  'does not fit the register type, 80006 tag already in the template';

/** Data templates: the owner (or an admin) edits a template; it is applied to devices the caller may control. */
export async function dataTemplatesRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['data-templates'];
  // Only the variable import reads multipart bodies.
  await app.register(multipart, { limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 5, parts: 6 } });
  // A change that may start or stop platform polling (a template applied, edited, a product's default) is read by
  // the poller on its next pass rather than after its periodic reload.
  app.addHook('onResponse', async (req, reply) => {
    if (req.method !== 'GET' && reply.statusCode < 300 && app.hasDecorator('modbusPoller'))
      app.modbusPoller.invalidate();
  });

  r.get(
    '/api/data-templates',
    {
      config: USER,
      schema: {
        tags,
        summary: "Data templates of the caller (admins: everyone's), newest first; keyword in name or remark",
        querystring: templateListQuery,
        response: listResponses(templateItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listTemplates(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/data-templates',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Create a data template',
        body: templateBody,
        response: responses(templateDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createTemplate(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/data-templates/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: "A data template with its slaves and their variables (10107 when not the caller's)",
        params: templateIdParams,
        response: responses(templateDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getTemplate(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/data-templates/:id',
    {
      config: USER,
      schema: {
        tags,
        summary:
          "Change a template's name, type, remark or collect mode (devices in dtu mode get the new form)",
        params: templateIdParams,
        body: templateUpdateBody,
        response: responses(templateDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateTemplate(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/data-templates/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Delete a template with its slaves and variables; 80009 while devices or products use it',
        params: templateIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteTemplate(app.deps, actorOf(req), req.params.id);
      return ok(null);
    },
  );

  r.post(
    '/api/data-templates/:id/copy',
    {
      config: USER,
      schema: {
        tags,
        summary: "Copy a template with its slaves and variables; the copy is the caller's",
        params: templateIdParams,
        body: templateCopyBody,
        response: responses(templateDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await copyTemplate(app.deps, actorOf(req), req.params.id, req.body.name)),
  );

  r.post(
    '/api/data-templates/:id/slaves',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Add a slave (address 1-247, serial port rs232 or rs485)',
        params: templateIdParams,
        body: slaveBody,
        response: responses(slaveItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createSlave(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.put(
    '/api/data-templates/:id/slaves/:slaveId',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Change a slave',
        params: slaveParams,
        body: slaveUpdateBody,
        response: responses(slaveItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateSlave(app.deps, actorOf(req), req.params.id, req.params.slaveId, req.body)),
  );

  r.delete(
    '/api/data-templates/:id/slaves/:slaveId',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Delete a slave and its variables; 80002 when it is the last slave of an applied template',
        params: slaveParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteSlave(app.deps, actorOf(req), req.params.id, req.params.slaveId);
      return ok(null);
    },
  );

  r.post(
    '/api/data-templates/:id/slaves/:slaveId/variables',
    {
      config: USER,
      schema: {
        tags,
        summary: `Add a variable to a slave. ${VARIABLE_RULES}`,
        params: slaveParams,
        body: variableBody,
        response: responses(variableItem, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(await createVariable(app.deps, actorOf(req), req.params.id, req.params.slaveId, req.body)),
  );

  r.put(
    '/api/data-templates/:id/variables/:varId',
    {
      config: USER,
      schema: {
        tags,
        summary: `Change a variable (slave_id moves it to another slave of the template). ${VARIABLE_RULES}`,
        params: variableParams,
        body: variableUpdateBody,
        response: responses(variableItem, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(await updateVariable(app.deps, actorOf(req), req.params.id, req.params.varId, req.body)),
  );

  r.delete(
    '/api/data-templates/:id/variables/:varId',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Delete a variable; 80001 when it is the last of its slave in an applied template',
        params: variableParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteVariable(app.deps, actorOf(req), req.params.id, req.params.varId);
      return ok(null);
    },
  );

  r.get(
    '/api/data-templates/:id/slaves/:slaveId/variables/export',
    {
      config: USER,
      schema: {
        tags,
        summary: "The slave's variables as an .xlsx sheet (first row: the column keys the import reads)",
        params: slaveParams,
        produces: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      },
    },
    async (req, reply) => {
      const { template, rows } = await exportRows(app.deps, actorOf(req), req.params.id, req.params.slaveId);
      const buf = await writeVariableSheet(rows);
      return reply
        .header('content-type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('content-disposition', contentDisposition(`${template.name}-variables.xlsx`))
        .header('cache-control', 'no-store')
        .send(buf);
    },
  );

  r.post(
    '/api/data-templates/:id/slaves/:slaveId/variables/import',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'Import variables into a slave from one multipart .xlsx file (first row: column keys or their Chinese ' +
          'or English titles as the export writes them). A tag of the slave updates it, a new tag is created; ' +
          `one result per row (${VARIABLE_RULES}; 10113 for a bad cell). 413/50001 too large, 415/50002 not xlsx`,
        consumes: ['multipart/form-data'],
        params: slaveParams,
        response: responses(variableImportResult, ...SIGNED_IN, 413),
      },
    },
    async (req) => {
      // The template first: a stranger learns nothing from how their upload would have been read.
      await visibleTemplate(app.deps.db, actorOf(req), req.params.id);
      const { filename, buffer } = await receiveFileBuffer(req, {
        maxBytes: MAX_IMPORT_BYTES,
        tooLarge: () => new AppError(50001),
      });
      const rows = await readVariableSheet(buffer, filename);
      return ok(await importVariables(app.deps, actorOf(req), req.params.id, req.params.slaveId, rows));
    },
  );

  r.get(
    '/api/data-templates/:id/devices',
    {
      config: USER,
      schema: {
        tags,
        summary: 'The devices the template is applied to (those the caller may see)',
        params: templateIdParams,
        querystring: templateDevicesQuery,
        response: listResponses(templateDeviceItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await templateDevices(app.deps, actorOf(req), req.params.id, req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/data-templates/:id/devices',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'Apply the template to devices (one result per SN: 10117 not visible, 10108 view-share only). The ' +
          'template must be complete: 80002 without slaves, 80001 a slave without variables',
        params: templateIdParams,
        body: templateApplyBody,
        response: responses(z.array(templateApplyResult), ...SIGNED_IN),
      },
    },
    async (req) => ok(await applyToDevices(app.deps, actorOf(req), req.params.id, req.body.sns)),
  );

  r.get(
    '/api/devices/:sn/data-template',
    {
      config: USER,
      schema: {
        tags,
        summary: "The device's data template: its own, else its product's default; null when none",
        params: snParams,
        response: responses(deviceTemplateInfo, ...SIGNED_IN),
      },
    },
    async (req) => ok(await deviceTemplate(app.deps, actorOf(req), req.params.sn)),
  );

  r.put(
    '/api/devices/:sn/data-template',
    {
      config: USER,
      schema: {
        tags,
        summary:
          "Apply one of the caller's templates to the device (control right needed; 80001/80002 incomplete " +
          "template). In dtu mode the device configuration's `modbus` group is set and sent",
        params: snParams,
        body: deviceTemplateBody,
        response: responses(deviceTemplateInfo, ...SIGNED_IN),
      },
    },
    async (req) => ok(await setDeviceTemplate(app.deps, actorOf(req), req.params.sn, req.body.template_id)),
  );

  r.delete(
    '/api/devices/:sn/data-template',
    {
      config: USER,
      schema: {
        tags,
        summary: "Remove the device's own template (its product's default, if any, applies again)",
        params: snParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await clearDeviceTemplate(app.deps, actorOf(req), req.params.sn);
      return ok(null);
    },
  );

  r.put(
    '/api/products/:product_key/data-template',
    {
      config: USER,
      schema: {
        tags,
        summary: "Make a template the product's default (product owner or admin; 80001/80002 incomplete)",
        params: productKeyParams,
        body: productTemplateBody,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await setProductTemplate(app.deps, actorOf(req), req.params.product_key, req.body.template_id);
      return ok(null);
    },
  );

  r.delete(
    '/api/products/:product_key/data-template',
    {
      config: USER,
      schema: {
        tags,
        summary: "Remove the product's default template",
        params: productKeyParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await clearProductTemplate(app.deps, actorOf(req), req.params.product_key);
      return ok(null);
    },
  );
}
