import { and, asc, count, desc, eq, ilike, inArray, isNull, ne, or, type SQL, sql } from 'drizzle-orm';
import {
  checkVariable,
  type DeviceTemplateInfo,
  type SlaveItem,
  type slaveBody,
  type slaveUpdateBody,
  type TemplateApplyResult,
  type templateBody,
  type TemplateDetail,
  type TemplateDeviceItem,
  type TemplateItem,
  type TemplateListQuery,
  type templateUpdateBody,
  type VariableInput,
  type VariableItem,
  type VariableProblem,
  type variableUpdateBody,
  variableBody,
  variableDefaults,
  SLAVES_MAX,
  VARIABLES_MAX,
} from '@cellhub/contract/data-templates';
import type { DeviceConfig } from '@cellhub/contract/device-config';
import type { PropertyLabel } from '@cellhub/contract/devices';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { findVisibleOwned, ownerFilter, ownerOfNew, owns } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { putDeviceConfig } from '../device-config/device-config.service';
import { accessibleDevice, visibleDevices } from '../devices/device-access';
import { devices } from '../devices/devices.table';
import { products } from '../products/products.table';
import { users } from '../users/users.table';
import {
  type DataTemplateRow,
  type DataTemplateSlaveRow,
  type DataTemplateVariableRow,
  dataTemplateSlaves,
  dataTemplates,
  dataTemplateVariables,
  deviceDataTemplates,
  productDataTemplates,
} from './data-templates.table';

/**
 * Data templates (issue 16): a user's Modbus slaves and variables. Templates are owned rows (lib/authz.ts: the
 * owner or an admin; anyone else gets 10107 as for a missing one). A template is applied to devices the actor may
 * control, or as the default of a product the actor manages; its variables then are the device's properties
 * (`templatePropertyLabels`), and in `dtu` mode its JSON form travels in the device configuration (`modbus`).
 */

const NOT_FOUND = 10107;

// --- shapes -------------------------------------------------------------------------------------------------------

function toVariableItem(v: DataTemplateVariableRow): VariableItem {
  return {
    id: v.id,
    slave_id: v.slaveId,
    name: v.name,
    tag: v.tag,
    unit: v.unit,
    register_type: v.registerType,
    register_address: v.registerAddress,
    data_format: v.dataFormat,
    byte_order: v.byteOrder,
    decimals: v.decimals,
    access: v.access,
    capture_formula: v.captureFormula,
    control_formula: v.controlFormula,
    report_method: v.reportMethod,
    sampling_cycle_s: v.samplingCycleS,
    function_code: v.functionCode,
    position: v.position,
  };
}

function toSlaveItem(s: DataTemplateSlaveRow, vars: DataTemplateVariableRow[]): SlaveItem {
  return {
    id: s.id,
    template_id: s.templateId,
    name: s.name,
    address: s.address,
    serial_port: s.serialPort,
    position: s.position,
    variables: vars.map(toVariableItem),
  };
}

interface Counts {
  slaves: number;
  variables: number;
  devices: number;
}

function toItem(t: DataTemplateRow, owner: string, c: Counts): TemplateItem {
  return {
    id: t.id,
    uid: t.uid,
    owner,
    name: t.name,
    type: t.type,
    remark: t.remark,
    collect_mode: t.collectMode,
    slave_count: c.slaves,
    variable_count: c.variables,
    device_count: c.devices,
    createdat: t.createdat.toISOString(),
    updatedat: t.updatedat.toISOString(),
  };
}

async function countsOf(db: DbOrTx, ids: number[]): Promise<Map<number, Counts>> {
  const out = new Map<number, Counts>(ids.map((id) => [id, { slaves: 0, variables: 0, devices: 0 }]));
  if (ids.length === 0) return out;
  const [s, v, d] = await Promise.all([
    db
      .select({ id: dataTemplateSlaves.templateId, n: count() })
      .from(dataTemplateSlaves)
      .where(inArray(dataTemplateSlaves.templateId, ids))
      .groupBy(dataTemplateSlaves.templateId),
    db
      .select({ id: dataTemplateVariables.templateId, n: count() })
      .from(dataTemplateVariables)
      .where(inArray(dataTemplateVariables.templateId, ids))
      .groupBy(dataTemplateVariables.templateId),
    db
      .select({ id: deviceDataTemplates.templateId, n: count() })
      .from(deviceDataTemplates)
      .where(inArray(deviceDataTemplates.templateId, ids))
      .groupBy(deviceDataTemplates.templateId),
  ]);
  for (const r of s) out.get(r.id)!.slaves = r.n;
  for (const r of v) out.get(r.id)!.variables = r.n;
  for (const r of d) out.get(r.id)!.devices = r.n;
  return out;
}

async function ownerName(db: DbOrTx, uid: number): Promise<string> {
  const [u] = await db.select({ name: users.username }).from(users).where(eq(users.id, uid));
  return u?.name ?? '';
}

/** Problems as the seed's code of the first one, with each problem in `details`. */
function refuse(problems: { code: number; field: string; reason: string }[]): never {
  throw new AppError(
    problems[0]?.code ?? 10113,
    400,
    undefined,
    problems.map((p) => ({ field: p.field, message: p.reason })),
  );
}

// --- templates ----------------------------------------------------------------------------------------------------

/** The template when the actor owns it (or is an admin); 10107 otherwise, as for a missing one. */
export async function visibleTemplate(
  db: DbOrTx,
  actor: Actor,
  id: number,
  forUpdate = false,
): Promise<DataTemplateRow> {
  return findVisibleOwned(db, actor, dataTemplates, id, NOT_FOUND, forUpdate);
}

export async function listTemplates(
  deps: Deps,
  actor: Actor,
  query: TemplateListQuery,
): Promise<{ items: TemplateItem[]; total: number }> {
  const filters: (SQL | undefined)[] = [ownerFilter(actor, dataTemplates.uid)];
  if (query.keyword) {
    const k = likeKeyword(query.keyword);
    filters.push(or(ilike(dataTemplates.name, k), ilike(dataTemplates.remark, k)));
  }
  if (query.type) filters.push(eq(dataTemplates.type, query.type));
  const where = and(...filters);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ t: dataTemplates, owner: users.username })
      .from(dataTemplates)
      .leftJoin(users, eq(users.id, dataTemplates.uid))
      .where(where)
      .orderBy(desc(dataTemplates.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(dataTemplates).where(where),
  ]);
  const counts = await countsOf(
    deps.db,
    rows.map((r) => r.t.id),
  );
  return {
    items: rows.map((r) => toItem(r.t, r.owner ?? '', counts.get(r.t.id)!)),
    total: total?.n ?? 0,
  };
}

async function slavesOf(db: DbOrTx, templateId: number): Promise<SlaveItem[]> {
  const [slaves, vars] = await Promise.all([
    db
      .select()
      .from(dataTemplateSlaves)
      .where(eq(dataTemplateSlaves.templateId, templateId))
      .orderBy(asc(dataTemplateSlaves.position), asc(dataTemplateSlaves.id)),
    db
      .select()
      .from(dataTemplateVariables)
      .where(eq(dataTemplateVariables.templateId, templateId))
      .orderBy(asc(dataTemplateVariables.position), asc(dataTemplateVariables.id)),
  ]);
  return slaves.map((s) =>
    toSlaveItem(
      s,
      vars.filter((v) => v.slaveId === s.id),
    ),
  );
}

async function detailOf(db: DbOrTx, t: DataTemplateRow): Promise<TemplateDetail> {
  const [counts, owner, slaves, prods] = await Promise.all([
    countsOf(db, [t.id]),
    ownerName(db, t.uid),
    slavesOf(db, t.id),
    db
      .select({ product_key: products.productKey, name: products.name })
      .from(productDataTemplates)
      .innerJoin(products, eq(products.id, productDataTemplates.productId))
      .where(eq(productDataTemplates.templateId, t.id))
      .orderBy(asc(products.id)),
  ]);
  return { ...toItem(t, owner, counts.get(t.id)!), slaves, products: prods };
}

export async function getTemplate(deps: Deps, actor: Actor, id: number): Promise<TemplateDetail> {
  return detailOf(deps.db, await visibleTemplate(deps.db, actor, id));
}

export async function createTemplate(
  deps: Deps,
  actor: Actor,
  body: z.output<typeof templateBody>,
): Promise<TemplateDetail> {
  const [row] = await deps.db
    .insert(dataTemplates)
    .values({
      uid: ownerOfNew(actor),
      name: body.name,
      type: body.type,
      remark: body.remark,
      collectMode: body.collect_mode,
    })
    .returning();
  if (!row) throw new AppError(10109);
  return detailOf(deps.db, row);
}

export async function updateTemplate(
  deps: Deps,
  actor: Actor,
  id: number,
  body: z.output<typeof templateUpdateBody>,
): Promise<TemplateDetail> {
  await visibleTemplate(deps.db, actor, id);
  const [row] = await deps.db
    .update(dataTemplates)
    .set({
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.type !== undefined ? { type: body.type } : {}),
      ...(body.remark !== undefined ? { remark: body.remark } : {}),
      ...(body.collect_mode !== undefined ? { collectMode: body.collect_mode } : {}),
    })
    .where(eq(dataTemplates.id, id))
    .returning();
  if (!row) throw new AppError(NOT_FOUND);
  await pushToDevices(deps, actor, id);
  return detailOf(deps.db, row);
}

/** 80009 while a device or a product uses the template. */
export async function deleteTemplate(deps: Deps, actor: Actor, id: number): Promise<void> {
  await deps.db.transaction(async (tx) => {
    await visibleTemplate(tx, actor, id, true);
    const [d] = await tx
      .select({ n: count() })
      .from(deviceDataTemplates)
      .where(eq(deviceDataTemplates.templateId, id));
    const [p] = await tx
      .select({ n: count() })
      .from(productDataTemplates)
      .where(eq(productDataTemplates.templateId, id));
    if ((d?.n ?? 0) > 0 || (p?.n ?? 0) > 0)
      throw new AppError(80009, 400, undefined, { devices: d?.n ?? 0, products: p?.n ?? 0 });
    await tx.delete(dataTemplates).where(eq(dataTemplates.id, id));
  });
}

/** A copy of the template with its slaves and variables, owned by the actor, named "<name> copy" unless named. */
export async function copyTemplate(
  deps: Deps,
  actor: Actor,
  id: number,
  name: string | undefined,
): Promise<TemplateDetail> {
  const src = await visibleTemplate(deps.db, actor, id);
  const made = await deps.db.transaction(async (tx) => {
    const [t] = await tx
      .insert(dataTemplates)
      .values({
        uid: ownerOfNew(actor),
        name: name ?? `${src.name} copy`.slice(0, 64),
        type: src.type,
        remark: src.remark,
        collectMode: src.collectMode,
      })
      .returning();
    if (!t) throw new AppError(10109);
    const slaves = await tx
      .select()
      .from(dataTemplateSlaves)
      .where(eq(dataTemplateSlaves.templateId, id))
      .orderBy(asc(dataTemplateSlaves.id));
    const vars = await tx
      .select()
      .from(dataTemplateVariables)
      .where(eq(dataTemplateVariables.templateId, id))
      .orderBy(asc(dataTemplateVariables.id));
    for (const s of slaves) {
      const [ns] = await tx
        .insert(dataTemplateSlaves)
        .values({
          templateId: t.id,
          name: s.name,
          address: s.address,
          serialPort: s.serialPort,
          position: s.position,
        })
        .returning();
      const mine = vars.filter((v) => v.slaveId === s.id);
      if (ns && mine.length > 0) {
        await tx.insert(dataTemplateVariables).values(
          mine.map(({ id: _id, createdat: _c, updatedat: _u, ...v }) => ({
            ...v,
            templateId: t.id,
            slaveId: ns.id,
          })),
        );
      }
    }
    return t;
  });
  return detailOf(deps.db, made);
}

// --- slaves -------------------------------------------------------------------------------------------------------

async function slaveOf(db: DbOrTx, templateId: number, slaveId: number): Promise<DataTemplateSlaveRow> {
  const [s] = await db
    .select()
    .from(dataTemplateSlaves)
    .where(and(eq(dataTemplateSlaves.id, slaveId), eq(dataTemplateSlaves.templateId, templateId)));
  if (!s) throw new AppError(NOT_FOUND);
  return s;
}

export async function createSlave(
  deps: Deps,
  actor: Actor,
  templateId: number,
  body: z.output<typeof slaveBody>,
): Promise<SlaveItem> {
  await visibleTemplate(deps.db, actor, templateId);
  const [n] = await deps.db
    .select({ n: count() })
    .from(dataTemplateSlaves)
    .where(eq(dataTemplateSlaves.templateId, templateId));
  if ((n?.n ?? 0) >= SLAVES_MAX)
    refuse([{ code: 10113, field: 'slaves', reason: `at most ${SLAVES_MAX} slaves` }]);
  const [row] = await deps.db
    .insert(dataTemplateSlaves)
    .values({
      templateId,
      name: body.name,
      address: body.address,
      serialPort: body.serial_port,
      position: body.position ?? n?.n ?? 0,
    })
    .returning();
  if (!row) throw new AppError(10109);
  await touch(deps.db, templateId);
  await pushToDevices(deps, actor, templateId);
  return toSlaveItem(row, []);
}

export async function updateSlave(
  deps: Deps,
  actor: Actor,
  templateId: number,
  slaveId: number,
  body: z.output<typeof slaveUpdateBody>,
): Promise<SlaveItem> {
  await visibleTemplate(deps.db, actor, templateId);
  await slaveOf(deps.db, templateId, slaveId);
  const [row] = await deps.db
    .update(dataTemplateSlaves)
    .set({
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.address !== undefined ? { address: body.address } : {}),
      ...(body.serial_port !== undefined ? { serialPort: body.serial_port } : {}),
      ...(body.position !== undefined ? { position: body.position } : {}),
    })
    .where(eq(dataTemplateSlaves.id, slaveId))
    .returning();
  if (!row) throw new AppError(NOT_FOUND);
  await touch(deps.db, templateId);
  await pushToDevices(deps, actor, templateId);
  const vars = await deps.db
    .select()
    .from(dataTemplateVariables)
    .where(eq(dataTemplateVariables.slaveId, slaveId))
    .orderBy(asc(dataTemplateVariables.position), asc(dataTemplateVariables.id));
  return toSlaveItem(row, vars);
}

/** Removing a slave of an applied template must leave it complete (80002 when it was the last slave). */
export async function deleteSlave(
  deps: Deps,
  actor: Actor,
  templateId: number,
  slaveId: number,
): Promise<void> {
  await visibleTemplate(deps.db, actor, templateId);
  await slaveOf(deps.db, templateId, slaveId);
  if (await isApplied(deps.db, templateId)) {
    const [n] = await deps.db
      .select({ n: count() })
      .from(dataTemplateSlaves)
      .where(eq(dataTemplateSlaves.templateId, templateId));
    if ((n?.n ?? 0) <= 1) throw new AppError(80002);
  }
  await deps.db.delete(dataTemplateSlaves).where(eq(dataTemplateSlaves.id, slaveId));
  await touch(deps.db, templateId);
  await pushToDevices(deps, actor, templateId);
}

async function touch(db: DbOrTx, templateId: number): Promise<void> {
  await db.update(dataTemplates).set({ updatedat: new Date() }).where(eq(dataTemplates.id, templateId));
}

// --- variables ----------------------------------------------------------------------------------------------------

/** The stored columns of a checked variable body (defaults filled), or the problems (80003-80006, 10113). */
function variableColumns(v: VariableInput) {
  const problems: VariableProblem[] = checkVariable(v);
  if (problems.length > 0) refuse(problems);
  const d = variableDefaults(v);
  return {
    name: v.name,
    tag: v.tag,
    unit: v.unit,
    registerType: v.register_type,
    registerAddress: v.register_address,
    dataFormat: v.data_format,
    byteOrder: v.byte_order ?? d.byte_order,
    decimals: v.decimals,
    access: v.access,
    captureFormula: v.capture_formula.trim(),
    controlFormula: v.control_formula.trim(),
    reportMethod: v.report_method,
    samplingCycleS: v.sampling_cycle_s,
    functionCode: v.function_code ?? d.function_code,
  };
}

/** 80006 when another variable of the template holds `tag`. */
async function requireFreeTag(db: DbOrTx, templateId: number, tag: string, except?: number): Promise<void> {
  const [hit] = await db
    .select({ id: dataTemplateVariables.id })
    .from(dataTemplateVariables)
    .where(
      and(
        eq(dataTemplateVariables.templateId, templateId),
        eq(dataTemplateVariables.tag, tag),
        except !== undefined ? ne(dataTemplateVariables.id, except) : undefined,
      ),
    );
  if (hit) throw new AppError(80006, 400, undefined, [{ field: 'tag', message: 'duplicate_tag' }]);
}

const isUniqueViolation = (err: unknown): boolean => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23505' || e.cause?.code === '23505';
};

async function insertVariable(
  db: DbOrTx,
  templateId: number,
  slaveId: number,
  body: VariableInput,
): Promise<DataTemplateVariableRow> {
  const cols = variableColumns(body);
  await requireFreeTag(db, templateId, body.tag);
  const [n] = await db
    .select({ n: count() })
    .from(dataTemplateVariables)
    .where(eq(dataTemplateVariables.templateId, templateId));
  if ((n?.n ?? 0) >= VARIABLES_MAX)
    refuse([{ code: 10113, field: 'variables', reason: `at most ${VARIABLES_MAX} variables` }]);
  try {
    const [row] = await db
      .insert(dataTemplateVariables)
      .values({ ...cols, templateId, slaveId, position: body.position ?? n?.n ?? 0 })
      .returning();
    if (!row) throw new AppError(10109);
    return row;
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError(80006, 400, undefined, [{ field: 'tag', message: 'duplicate_tag' }]);
    throw err;
  }
}

export async function createVariable(
  deps: Deps,
  actor: Actor,
  templateId: number,
  slaveId: number,
  body: VariableInput,
): Promise<VariableItem> {
  await visibleTemplate(deps.db, actor, templateId);
  await slaveOf(deps.db, templateId, slaveId);
  const row = await insertVariable(deps.db, templateId, slaveId, body);
  await touch(deps.db, templateId);
  await pushToDevices(deps, actor, templateId);
  return toVariableItem(row);
}

async function variableOf(db: DbOrTx, templateId: number, varId: number): Promise<DataTemplateVariableRow> {
  const [v] = await db
    .select()
    .from(dataTemplateVariables)
    .where(and(eq(dataTemplateVariables.id, varId), eq(dataTemplateVariables.templateId, templateId)));
  if (!v) throw new AppError(NOT_FOUND);
  return v;
}

const toBody = (v: DataTemplateVariableRow): VariableInput => toVariableItem(v);

export async function updateVariable(
  deps: Deps,
  actor: Actor,
  templateId: number,
  varId: number,
  body: z.output<typeof variableUpdateBody>,
): Promise<VariableItem> {
  await visibleTemplate(deps.db, actor, templateId);
  const current = await variableOf(deps.db, templateId, varId);
  const { slave_id: slaveId, ...patch } = body;
  if (slaveId !== undefined) await slaveOf(deps.db, templateId, slaveId);
  // A changed format without a byte order takes the format's default order (and function code).
  const base = toBody(current);
  if (patch.data_format !== undefined && patch.byte_order === undefined) base.byte_order = undefined;
  if ((patch.register_type !== undefined || patch.access !== undefined) && patch.function_code === undefined)
    base.function_code = undefined;
  const merged: VariableInput = { ...base };
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (merged as Record<string, unknown>)[k] = v;
  const cols = variableColumns(merged);
  if (merged.tag !== current.tag) await requireFreeTag(deps.db, templateId, merged.tag, varId);
  let row: DataTemplateVariableRow | undefined;
  try {
    [row] = await deps.db
      .update(dataTemplateVariables)
      .set({
        ...cols,
        ...(slaveId !== undefined ? { slaveId } : {}),
        ...(merged.position !== undefined ? { position: merged.position } : {}),
      })
      .where(eq(dataTemplateVariables.id, varId))
      .returning();
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError(80006, 400, undefined, [{ field: 'tag', message: 'duplicate_tag' }]);
    throw err;
  }
  if (!row) throw new AppError(NOT_FOUND);
  await touch(deps.db, templateId);
  await pushToDevices(deps, actor, templateId);
  return toVariableItem(row);
}

/** Removing a slave's last variable of an applied template would leave it incomplete: 80001. */
export async function deleteVariable(
  deps: Deps,
  actor: Actor,
  templateId: number,
  varId: number,
): Promise<void> {
  await visibleTemplate(deps.db, actor, templateId);
  const v = await variableOf(deps.db, templateId, varId);
  if (await isApplied(deps.db, templateId)) {
    const [n] = await deps.db
      .select({ n: count() })
      .from(dataTemplateVariables)
      .where(eq(dataTemplateVariables.slaveId, v.slaveId));
    if ((n?.n ?? 0) <= 1) throw new AppError(80001);
  }
  await deps.db.delete(dataTemplateVariables).where(eq(dataTemplateVariables.id, varId));
  await touch(deps.db, templateId);
  await pushToDevices(deps, actor, templateId);
}

// --- import / export ----------------------------------------------------------------------------------------------

/** A sheet row as text cells by column key, with its line number. */
export interface SheetRow {
  row: number;
  values: Record<string, string>;
}

const INT_CELL = /^[-+]?\d{1,10}$/;

/** A sheet row as a variable body (numbers from text), or the zod issues as 10113 problems. */
function rowBody(
  values: Record<string, string>,
): { body: VariableInput } | { problem: { code: number; message: string } } {
  const num = (k: string) => {
    const s = values[k]?.trim();
    if (s === undefined || s === '') return undefined;
    return INT_CELL.test(s) ? Number(s) : Number.NaN;
  };
  const str = (k: string) => {
    const s = values[k];
    return s === undefined || s.trim() === '' ? undefined : s.trim();
  };
  const raw = {
    name: str('name'),
    tag: str('tag'),
    unit: str('unit'),
    register_type: str('register_type'),
    register_address: num('register_address'),
    data_format: str('data_format'),
    byte_order: str('byte_order'),
    decimals: num('decimals'),
    access: str('access'),
    capture_formula: str('capture_formula'),
    control_formula: str('control_formula'),
    report_method: str('report_method'),
    sampling_cycle_s: num('sampling_cycle_s'),
    function_code: num('function_code'),
  };
  const parsed = variableBody.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return {
      problem: { code: 10113, message: `${first?.path.join('.') || 'row'}: ${first?.message ?? 'invalid'}` },
    };
  }
  return { body: parsed.data };
}

/**
 * Imports variables into a slave, one result per row: a row whose tag is already in this slave updates that
 * variable, a new tag is created, a tag of another slave is 80006; any other problem is the row's code (80003-80005,
 * 10113) and the other rows still go in.
 */
export async function importVariables(
  deps: Deps,
  actor: Actor,
  templateId: number,
  slaveId: number,
  rows: SheetRow[],
) {
  await visibleTemplate(deps.db, actor, templateId);
  await slaveOf(deps.db, templateId, slaveId);
  const result = {
    created: 0,
    updated: 0,
    failed: 0,
    rows: [] as {
      row: number;
      tag: string;
      ok: boolean;
      action?: 'created' | 'updated';
      code?: number;
      message?: string;
    }[],
  };
  const seen = new Set<string>();
  for (const r of rows) {
    const tag = (r.values.tag ?? '').trim();
    const fail = (code: number, message: string) => {
      result.failed++;
      result.rows.push({ row: r.row, tag, ok: false, code, message });
    };
    const b = rowBody(r.values);
    if ('problem' in b) {
      fail(b.problem.code, b.problem.message);
      continue;
    }
    if (seen.has(b.body.tag)) {
      fail(80006, 'tag repeated in the file');
      continue;
    }
    seen.add(b.body.tag);
    try {
      const [existing] = await deps.db
        .select()
        .from(dataTemplateVariables)
        .where(
          and(eq(dataTemplateVariables.templateId, templateId), eq(dataTemplateVariables.tag, b.body.tag)),
        );
      if (existing && existing.slaveId !== slaveId) {
        fail(80006, 'tag used by another slave');
        continue;
      }
      if (existing) {
        const cols = variableColumns(b.body);
        await deps.db
          .update(dataTemplateVariables)
          .set(cols)
          .where(eq(dataTemplateVariables.id, existing.id));
        result.updated++;
        result.rows.push({ row: r.row, tag, ok: true, action: 'updated' });
      } else {
        await insertVariable(deps.db, templateId, slaveId, b.body);
        result.created++;
        result.rows.push({ row: r.row, tag, ok: true, action: 'created' });
      }
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const details = err.details as { field: string; message: string }[] | undefined;
      fail(err.code, details?.[0] ? `${details[0].field}: ${details[0].message}` : err.message);
    }
  }
  if (result.created + result.updated > 0) {
    await touch(deps.db, templateId);
    await pushToDevices(deps, actor, templateId);
  }
  return result;
}

/** The variables of a slave (or of every slave when none is named) as sheet rows, for the Excel export. */
export async function exportRows(
  deps: Deps,
  actor: Actor,
  templateId: number,
  slaveId: number | undefined,
): Promise<{ template: DataTemplateRow; rows: VariableItem[] }> {
  const template = await visibleTemplate(deps.db, actor, templateId);
  if (slaveId !== undefined) await slaveOf(deps.db, templateId, slaveId);
  const vars = await deps.db
    .select()
    .from(dataTemplateVariables)
    .where(
      and(
        eq(dataTemplateVariables.templateId, templateId),
        slaveId !== undefined ? eq(dataTemplateVariables.slaveId, slaveId) : undefined,
      ),
    )
    .orderBy(
      asc(dataTemplateVariables.slaveId),
      asc(dataTemplateVariables.position),
      asc(dataTemplateVariables.id),
    );
  return { template, rows: vars.map(toVariableItem) };
}

// --- applying -----------------------------------------------------------------------------------------------------

async function isApplied(db: DbOrTx, templateId: number): Promise<boolean> {
  const [d] = await db
    .select({ id: deviceDataTemplates.deviceId })
    .from(deviceDataTemplates)
    .where(eq(deviceDataTemplates.templateId, templateId))
    .limit(1);
  if (d) return true;
  const [p] = await db
    .select({ id: productDataTemplates.productId })
    .from(productDataTemplates)
    .where(eq(productDataTemplates.templateId, templateId))
    .limit(1);
  return !!p;
}

/** A template is complete when it has slaves (80002) and each slave has variables (80001): only then is it applied. */
async function requireComplete(db: DbOrTx, templateId: number): Promise<SlaveItem[]> {
  const slaves = await slavesOf(db, templateId);
  if (slaves.length === 0) throw new AppError(80002);
  const empty = slaves.find((s) => s.variables.length === 0);
  if (empty)
    throw new AppError(80001, 400, undefined, [{ field: `slaves.${empty.id}`, message: empty.name }]);
  return slaves;
}

/**
 * The template in the JSON form a DTU polls by (docs/device-protocol.md "Modbus polling"): the device
 * configuration's `modbus` group.
 */
export function dtuConfigOf(t: DataTemplateRow, slaves: SlaveItem[]) {
  return {
    template_id: t.id,
    type: t.type,
    slaves: slaves.map((s) => ({
      name: s.name,
      address: s.address,
      port: s.serial_port,
      variables: s.variables.map((v) => ({
        tag: v.tag,
        register_type: v.register_type,
        register: v.register_address,
        function_code: v.function_code,
        format: v.data_format,
        byte_order: v.byte_order,
        decimals: v.decimals,
        access: v.access,
        capture: v.capture_formula,
        control: v.control_formula,
        report: v.report_method,
        cycle_s: v.sampling_cycle_s,
      })),
    })),
  };
}

/**
 * Sets the device's expected configuration's `modbus` group to the template's DTU form (or removes it), through the
 * device-config path: version bumped and sent at once when online. Only devices whose configuration changes.
 */
async function pushDeviceConfig(deps: Deps, actor: Actor, sn: string, modbus: unknown): Promise<void> {
  const [d] = await deps.db.select({ expect: devices.expectConfig }).from(devices).where(eq(devices.sn, sn));
  if (!d) return;
  const current = d.expect as DeviceConfig & { modbus?: unknown };
  if (modbus === undefined && current.modbus === undefined) return;
  if (modbus !== undefined && JSON.stringify(current.modbus) === JSON.stringify(modbus)) return;
  const { modbus: _old, ...rest } = current;
  await putDeviceConfig(deps, actor, sn, modbus === undefined ? rest : { ...rest, modbus });
}

/**
 * After a change of the template: the devices it is applied to, and those running by it as their product's default
 * (`dtu` mode), get the new form.
 */
async function pushToDevices(deps: Deps, actor: Actor, templateId: number): Promise<void> {
  const [t] = await deps.db.select().from(dataTemplates).where(eq(dataTemplates.id, templateId));
  if (!t) return;
  const own = await deps.db
    .select({ sn: devices.sn })
    .from(deviceDataTemplates)
    .innerJoin(devices, eq(devices.id, deviceDataTemplates.deviceId))
    .where(eq(deviceDataTemplates.templateId, templateId));
  // And the devices that run by it as their product's default (no template of their own).
  const byDefault = await deps.db
    .select({ sn: devices.sn })
    .from(productDataTemplates)
    .innerJoin(products, eq(products.id, productDataTemplates.productId))
    .innerJoin(devices, eq(devices.productKey, products.productKey))
    .leftJoin(deviceDataTemplates, eq(deviceDataTemplates.deviceId, devices.id))
    .where(and(eq(productDataTemplates.templateId, templateId), isNull(deviceDataTemplates.deviceId)));
  const rows = [...own, ...byDefault];
  if (rows.length === 0) return;
  const slaves = await slavesOf(deps.db, templateId);
  const complete = slaves.length > 0 && slaves.every((s) => s.variables.length > 0);
  const form = t.collectMode === 'dtu' && complete ? dtuConfigOf(t, slaves) : undefined;
  for (const r of rows) {
    try {
      await pushDeviceConfig(deps, actor, r.sn, form);
    } catch (err) {
      // A device the editor may no longer control (a share ended) keeps its configuration until someone who may
      // control it applies the template again.
      if (!(err instanceof AppError) || (err.code !== 10117 && err.code !== 10108)) throw err;
    }
  }
}

/**
 * Applies the template to one device the actor may control (their own or a control-share; 10108 for a view-share,
 * 10117 when not visible). The template must be visible to the actor and complete.
 */
async function applyOne(
  deps: Deps,
  actor: Actor,
  t: DataTemplateRow,
  slaves: SlaveItem[],
  sn: string,
): Promise<void> {
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  await deps.db
    .insert(deviceDataTemplates)
    .values({ deviceId: device.id, templateId: t.id, appliedBy: actor.uid })
    .onConflictDoUpdate({
      target: deviceDataTemplates.deviceId,
      set: { templateId: t.id, appliedBy: actor.uid, createdat: new Date() },
    });
  await pushDeviceConfig(deps, actor, sn, t.collectMode === 'dtu' ? dtuConfigOf(t, slaves) : undefined);
}

export async function applyToDevices(
  deps: Deps,
  actor: Actor,
  templateId: number,
  sns: string[],
): Promise<TemplateApplyResult[]> {
  const t = await visibleTemplate(deps.db, actor, templateId);
  const slaves = await requireComplete(deps.db, templateId);
  const out: TemplateApplyResult[] = [];
  for (const sn of [...new Set(sns)]) {
    try {
      await applyOne(deps, actor, t, slaves, sn);
      out.push({ sn, ok: true });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      out.push({ sn, ok: false, code: err.code, message: err.message });
    }
  }
  return out;
}

export async function setDeviceTemplate(
  deps: Deps,
  actor: Actor,
  sn: string,
  templateId: number,
): Promise<DeviceTemplateInfo> {
  // The device first: a device the actor may not control answers before anything about templates.
  await accessibleDevice(deps.db, actor, sn, 'control');
  const t = await visibleTemplate(deps.db, actor, templateId);
  const slaves = await requireComplete(deps.db, templateId);
  await applyOne(deps, actor, t, slaves, sn);
  return deviceTemplate(deps, actor, sn);
}

export async function clearDeviceTemplate(deps: Deps, actor: Actor, sn: string): Promise<void> {
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  await deps.db.delete(deviceDataTemplates).where(eq(deviceDataTemplates.deviceId, device.id));
  // The product's default (if any) takes over; in dtu mode its form is what the device then runs.
  const eff = await effectiveTemplates(deps.db, [device.id]);
  const id = eff.get(device.id);
  if (id !== undefined) {
    const [t] = await deps.db.select().from(dataTemplates).where(eq(dataTemplates.id, id.templateId));
    const slaves = await slavesOf(deps.db, id.templateId);
    await pushDeviceConfig(
      deps,
      actor,
      sn,
      t && t.collectMode === 'dtu' ? dtuConfigOf(t, slaves) : undefined,
    );
  } else await pushDeviceConfig(deps, actor, sn, undefined);
}

export async function deviceTemplate(deps: Deps, actor: Actor, sn: string): Promise<DeviceTemplateInfo> {
  const device = await accessibleDevice(deps.db, actor, sn, 'view');
  const eff = (await effectiveTemplates(deps.db, [device.id])).get(device.id);
  if (!eff) return null;
  const [t] = await deps.db.select().from(dataTemplates).where(eq(dataTemplates.id, eff.templateId));
  if (!t) return null;
  const vars = (await slavesOf(deps.db, t.id)).flatMap((s) => s.variables);
  return {
    template_id: t.id,
    name: t.name,
    collect_mode: t.collectMode,
    source: eff.source,
    properties: vars.map((v) => ({
      key: v.tag,
      name: v.name,
      name_us: '',
      unit: v.unit,
      datatype: v.data_format === 'bool' ? ('bool' as const) : ('number' as const),
    })),
  };
}

/** Who may set a product's default: its owner or an admin (10107 when the product is not theirs, as if missing). */
async function managedProduct(db: DbOrTx, actor: Actor, productKey: string) {
  const [p] = await db
    .select({ id: products.id, uid: products.uid, productKey: products.productKey })
    .from(products)
    .where(eq(products.productKey, productKey));
  // owns() answers false for a missing product too, so the layer decides both alike.
  if (!owns(actor, p) || !p) throw new AppError(10107);
  return p;
}

export async function setProductTemplate(
  deps: Deps,
  actor: Actor,
  productKey: string,
  templateId: number,
): Promise<void> {
  const p = await managedProduct(deps.db, actor, productKey);
  await visibleTemplate(deps.db, actor, templateId);
  await requireComplete(deps.db, templateId);
  await deps.db
    .insert(productDataTemplates)
    .values({ productId: p.id, templateId, appliedBy: actor.uid })
    .onConflictDoUpdate({
      target: productDataTemplates.productId,
      set: { templateId, appliedBy: actor.uid, createdat: new Date() },
    });
  await pushProductDefault(deps, actor, p.productKey);
}

export async function clearProductTemplate(deps: Deps, actor: Actor, productKey: string): Promise<void> {
  const p = await managedProduct(deps.db, actor, productKey);
  await deps.db.delete(productDataTemplates).where(eq(productDataTemplates.productId, p.id));
  await pushProductDefault(deps, actor, p.productKey);
}

/** The `modbus` group a device runs by under its effective template: the DTU form in `dtu` mode, else none. */
async function dtuFormOf(db: DbOrTx, templateId: number | undefined): Promise<unknown> {
  if (templateId === undefined) return undefined;
  const [t] = await db.select().from(dataTemplates).where(eq(dataTemplates.id, templateId));
  if (!t || t.collectMode !== 'dtu') return undefined;
  const slaves = await slavesOf(db, templateId);
  const complete = slaves.length > 0 && slaves.every((s) => s.variables.length > 0);
  return complete ? dtuConfigOf(t, slaves) : undefined;
}

/**
 * After a product's default was set, changed or removed: the product's devices without a template of their own
 * get the default's DTU form in their configuration (`dtu` mode), or lose the `modbus` group (`platform` mode, or
 * no default any more; the platform poller then polls them by the default). Devices the actor may not control
 * (a customer's device of a manufacturer's product) are left as they are, as template edits leave them.
 */
async function pushProductDefault(deps: Deps, actor: Actor, productKey: string): Promise<void> {
  const rows = await deps.db
    .select({ sn: devices.sn, def: productDataTemplates.templateId })
    .from(devices)
    .innerJoin(products, eq(products.productKey, devices.productKey))
    .leftJoin(productDataTemplates, eq(productDataTemplates.productId, products.id))
    .leftJoin(deviceDataTemplates, eq(deviceDataTemplates.deviceId, devices.id))
    .where(and(eq(devices.productKey, productKey), isNull(deviceDataTemplates.deviceId)));
  if (rows.length === 0) return;
  const form = await dtuFormOf(deps.db, rows[0]!.def ?? undefined);
  for (const r of rows) {
    try {
      await pushDeviceConfig(deps, actor, r.sn, form);
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 10117 && err.code !== 10108)) throw err;
    }
  }
}

/**
 * Devices just created (one product): when the product has a default template in `dtu` mode, their expected
 * configuration gets its `modbus` group with the version bumped, so each DTU is sent it when it first connects.
 * Runs in the creating transaction; in `platform` mode nothing is written (the poller reads the default itself).
 */
export async function adoptProductDefault(
  db: DbOrTx,
  productKey: string,
  deviceIds: number[],
): Promise<void> {
  if (deviceIds.length === 0) return;
  const [def] = await db
    .select({ templateId: productDataTemplates.templateId })
    .from(products)
    .innerJoin(productDataTemplates, eq(productDataTemplates.productId, products.id))
    .where(eq(products.productKey, productKey));
  const form = await dtuFormOf(db, def?.templateId);
  if (form === undefined) return;
  for (let i = 0; i < deviceIds.length; i += 1000) {
    await db
      .update(devices)
      .set({
        expectConfig: sql`${devices.expectConfig} || ${JSON.stringify({ modbus: form })}::jsonb`,
        expectConfigVersion: sql`${devices.expectConfigVersion} + 1`,
        configVersionDifferent: sql`${devices.configVersion} <> ${devices.expectConfigVersion} + 1`,
      })
      .where(inArray(devices.id, deviceIds.slice(i, i + 1000)));
  }
}

/** The devices the template is applied to that the actor may see, newest application first. */
export async function templateDevices(
  deps: Deps,
  actor: Actor,
  templateId: number,
  query: { current: number; per_page: number; keyword?: string | undefined },
): Promise<{ items: TemplateDeviceItem[]; total: number }> {
  await visibleTemplate(deps.db, actor, templateId);
  const where = and(
    eq(deviceDataTemplates.templateId, templateId),
    visibleDevices(actor),
    query.keyword
      ? or(ilike(devices.sn, likeKeyword(query.keyword)), ilike(devices.name, likeKeyword(query.keyword)))
      : undefined,
  );
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ d: devices, at: deviceDataTemplates.createdat })
      .from(deviceDataTemplates)
      .innerJoin(devices, eq(devices.id, deviceDataTemplates.deviceId))
      .where(where)
      .orderBy(desc(deviceDataTemplates.createdat), desc(devices.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(deviceDataTemplates)
      .innerJoin(devices, eq(devices.id, deviceDataTemplates.deviceId))
      .where(where),
  ]);
  return {
    items: rows.map((r) => ({
      sn: r.d.sn,
      name: r.d.name,
      product_key: r.d.productKey,
      online: r.d.online,
      appliedat: r.at.toISOString(),
    })),
    total: total?.n ?? 0,
  };
}

// --- the device's properties --------------------------------------------------------------------------------------

/** Each device's template: its own, else its product's default. */
export async function effectiveTemplates(
  db: DbOrTx,
  deviceIds: number[],
): Promise<Map<number, { templateId: number; source: 'device' | 'product' }>> {
  const out = new Map<number, { templateId: number; source: 'device' | 'product' }>();
  if (deviceIds.length === 0) return out;
  const rows = await db
    .select({
      id: devices.id,
      own: deviceDataTemplates.templateId,
      def: productDataTemplates.templateId,
    })
    .from(devices)
    .leftJoin(deviceDataTemplates, eq(deviceDataTemplates.deviceId, devices.id))
    .leftJoin(products, eq(products.productKey, devices.productKey))
    .leftJoin(productDataTemplates, eq(productDataTemplates.productId, products.id))
    .where(inArray(devices.id, deviceIds));
  for (const r of rows) {
    if (r.own !== null) out.set(r.id, { templateId: r.own, source: 'device' });
    else if (r.def !== null) out.set(r.id, { templateId: r.def, source: 'product' });
  }
  return out;
}

/**
 * The template variables of each device as property labels (key = tag, name, unit), by device id: what the device
 * list, detail, charts and alert triggers add to the product's properties. Devices without a template are absent.
 */
export async function templatePropertyLabels(
  db: DbOrTx,
  deviceIds: number[],
): Promise<Map<number, PropertyLabel[]>> {
  const out = new Map<number, PropertyLabel[]>();
  const eff = await effectiveTemplates(db, deviceIds);
  const ids = [...new Set([...eff.values()].map((e) => e.templateId))];
  if (ids.length === 0) return out;
  const vars = await db
    .select({
      templateId: dataTemplateVariables.templateId,
      tag: dataTemplateVariables.tag,
      name: dataTemplateVariables.name,
      unit: dataTemplateVariables.unit,
    })
    .from(dataTemplateVariables)
    .innerJoin(dataTemplateSlaves, eq(dataTemplateSlaves.id, dataTemplateVariables.slaveId))
    .where(inArray(dataTemplateVariables.templateId, ids))
    .orderBy(
      asc(dataTemplateSlaves.position),
      asc(dataTemplateSlaves.id),
      asc(dataTemplateVariables.position),
      asc(dataTemplateVariables.id),
    );
  const byTemplate = new Map<number, PropertyLabel[]>();
  for (const v of vars) {
    const list = byTemplate.get(v.templateId) ?? [];
    list.push({ key: v.tag, name: v.name, name_us: '', unit: v.unit });
    byTemplate.set(v.templateId, list);
  }
  for (const [deviceId, e] of eff) out.set(deviceId, byTemplate.get(e.templateId) ?? []);
  return out;
}

/** Product labels with the template's added (a product property of the same key keeps its own names). */
export function mergeLabels(
  product: PropertyLabel[],
  template: PropertyLabel[] | undefined,
): PropertyLabel[] {
  if (!template || template.length === 0) return product;
  const keys = new Set(product.map((p) => p.key));
  return [...product, ...template.filter((t) => !keys.has(t.key))];
}
