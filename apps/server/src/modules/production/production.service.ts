import { and, asc, count, desc, eq, ilike, inArray, isNotNull, isNull, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { hwGroupLabel } from '@cellhub/contract/hardware';
import {
  type ProductionDeviceItem,
  type ProductionInfoQuery,
  type ProductionTaskItem,
  type ProductionTaskListQuery,
  type productionTaskBody,
  snsOfRule,
  type TaskLabels,
  type TaskProgress,
  type TaskState,
} from '@cellhub/contract/production';
import type { DbOrTx } from '../../db/client';
import { AppError, formError } from '../../lib/app-error';
import { requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { devices } from '../devices/devices.table';
import { insertNewDevices } from '../devices/devices.service';
import { firmwareVersions } from '../firmware/firmware.table';
import { deviceHardware, hwGroups } from '../hardware/hardware.table';
import { groupValues } from '../hardware/hardware.service';
import { syncDevicesPlatformParams } from '../platforms/platform-params.service';
import { writeDeviceLog } from '../device-log/device-log.service';
import { products } from '../products/products.table';
import {
  type ProductionTaskRow,
  productionTaskDevices,
  productionTasks,
  type StoredSnRule,
} from './production.table';

/** At most this many clashing sns are named in a refused start (the count says how many in all). */
const CLASHES_NAMED = 100;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

async function findTask(db: DbOrTx, id: number): Promise<ProductionTaskRow> {
  const [row] = await db.select().from(productionTasks).where(eq(productionTasks.id, id));
  if (!row) throw new AppError(10107);
  return row;
}

/** 71001 unless the task is in one of `states`. */
function requireState(task: ProductionTaskRow, ...states: TaskState[]): void {
  if (!states.includes(task.state))
    throw new AppError(71001, undefined, `The task is ${task.state}; this needs ${states.join(' or ')}`);
}

const snsOf = (task: ProductionTaskRow): string[] => snsOfRule(task.snRule, task.quantity, task.plannedDate);

/** Progress of tasks: devices created, tested ok or failed, mismatching their hardware group, shipped (owned). */
async function progressOf(db: DbOrTx, taskIds: number[]): Promise<Map<number, TaskProgress>> {
  const out = new Map<number, TaskProgress>();
  if (taskIds.length === 0) return out;
  const rows = await db
    .select({
      taskId: productionTaskDevices.taskId,
      created: count(),
      testedOk: sql<number>`count(*) filter (where ${deviceHardware.testOk} = true)`.mapWith(Number),
      failed: sql<number>`count(*) filter (where ${deviceHardware.testOk} = false)`.mapWith(Number),
      mismatch:
        sql<number>`count(*) filter (where jsonb_array_length(${deviceHardware.mismatch}) > 0)`.mapWith(
          Number,
        ),
      shipped: sql<number>`count(*) filter (where ${devices.uid} is not null)`.mapWith(Number),
    })
    .from(productionTaskDevices)
    .innerJoin(devices, eq(devices.id, productionTaskDevices.deviceId))
    .leftJoin(deviceHardware, eq(deviceHardware.deviceId, productionTaskDevices.deviceId))
    .where(inArray(productionTaskDevices.taskId, taskIds))
    .groupBy(productionTaskDevices.taskId);
  for (const r of rows)
    out.set(r.taskId, {
      created: r.created,
      tested_ok: r.testedOk,
      failed: r.failed,
      mismatch: r.mismatch,
      shipped: r.shipped,
    });
  return out;
}

const NO_PROGRESS: TaskProgress = { created: 0, tested_ok: 0, failed: 0, mismatch: 0, shipped: 0 };

async function toTaskItems(db: DbOrTx, rows: ProductionTaskRow[]): Promise<ProductionTaskItem[]> {
  if (rows.length === 0) return [];
  const groupIds = [...new Set(rows.map((r) => r.hwGroupId))];
  const keys = [...new Set(rows.map((r) => r.productKey))];
  const fwIds = [...new Set(rows.map((r) => r.firmwareVersionId).filter((id): id is number => id !== null))];
  const [groups, values, names, versions, progress] = await Promise.all([
    db.select({ id: hwGroups.id, name: hwGroups.name }).from(hwGroups).where(inArray(hwGroups.id, groupIds)),
    groupValues(db, groupIds),
    db
      .select({ key: products.productKey, name: products.name })
      .from(products)
      .where(inArray(products.productKey, keys)),
    fwIds.length
      ? db
          .select({ id: firmwareVersions.id, version: firmwareVersions.version })
          .from(firmwareVersions)
          .where(inArray(firmwareVersions.id, fwIds))
      : Promise.resolve([]),
    progressOf(
      db,
      rows.map((r) => r.id),
    ),
  ]);
  const groupName = new Map(groups.map((g) => [g.id, g.name]));
  const productName = new Map(names.map((n) => [n.key, n.name]));
  const version = new Map(versions.map((v) => [v.id, v.version]));
  return rows.map((r) => {
    const sns = snsOf(r);
    const name = groupName.get(r.hwGroupId) ?? '';
    return {
      id: r.id,
      name: r.name,
      product_key: r.productKey,
      product_name: productName.get(r.productKey) ?? '',
      hw_group_id: r.hwGroupId,
      hw_group_name: name,
      hw_version: hwGroupLabel({ name, values: values.get(r.hwGroupId) ?? [] }),
      quantity: r.quantity,
      sn_rule:
        r.snRule.type === 'rule'
          ? { type: 'rule', prefix: r.snRule.prefix, digits: r.snRule.digits, start: r.snRule.start }
          : { type: 'list' },
      first_sn: sns[0] ?? '',
      last_sn: sns[sns.length - 1] ?? '',
      firmware_version_id: r.firmwareVersionId,
      firmware_version: r.firmwareVersionId === null ? null : (version.get(r.firmwareVersionId) ?? null),
      planned_date: r.plannedDate,
      note: r.note,
      state: r.state,
      progress: progress.get(r.id) ?? NO_PROGRESS,
      startedat: iso(r.startedat),
      finishedat: iso(r.finishedat),
      createdat: r.createdat.toISOString(),
      updatedat: r.updatedat.toISOString(),
    };
  });
}

async function toTaskItem(db: DbOrTx, row: ProductionTaskRow): Promise<ProductionTaskItem> {
  const [item] = await toTaskItems(db, [row]);
  return item!;
}

export async function listProductionTasks(
  deps: Deps,
  actor: Actor,
  query: ProductionTaskListQuery,
): Promise<{ items: ProductionTaskItem[]; total: number }> {
  requireAdmin(actor);
  const where = and(
    query.keyword ? ilike(productionTasks.name, likeKeyword(query.keyword)) : undefined,
    query.state ? eq(productionTasks.state, query.state) : undefined,
    query.product_key ? eq(productionTasks.productKey, query.product_key) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(productionTasks)
      .where(where)
      .orderBy(desc(productionTasks.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(productionTasks).where(where),
  ]);
  return { items: await toTaskItems(deps.db, rows), total: total?.n ?? 0 };
}

export async function getProductionTask(deps: Deps, actor: Actor, id: number): Promise<ProductionTaskItem> {
  requireAdmin(actor);
  return toTaskItem(deps.db, await findTask(deps.db, id));
}

type TaskBody = z.output<typeof productionTaskBody>;

/** The task's columns from a body: the product, group and firmware version must exist and fit together. */
async function taskValues(db: DbOrTx, body: TaskBody) {
  const [product] = await db
    .select({ key: products.productKey })
    .from(products)
    .where(eq(products.productKey, body.product_key));
  if (!product) throw formError('product_key', 'no such product');
  const [group] = await db
    .select({ id: hwGroups.id })
    .from(hwGroups)
    .where(eq(hwGroups.id, body.hw_group_id));
  if (!group) throw formError('hw_group_id', 'no such hardware group');
  if (body.firmware_version_id !== null) {
    const [v] = await db
      .select({ productKey: firmwareVersions.productKey })
      .from(firmwareVersions)
      .where(eq(firmwareVersions.id, body.firmware_version_id));
    if (!v) throw new AppError(70001);
    if (v.productKey !== body.product_key) throw new AppError(71003);
  }
  const snRule: StoredSnRule =
    body.sn_rule.type === 'rule'
      ? { type: 'rule', prefix: body.sn_rule.prefix, digits: body.sn_rule.digits, start: body.sn_rule.start }
      : { type: 'list', sns: body.sn_rule.sns };
  return {
    name: body.name,
    productKey: body.product_key,
    hwGroupId: body.hw_group_id,
    quantity: snRule.type === 'list' ? snRule.sns.length : body.quantity!,
    snRule,
    firmwareVersionId: body.firmware_version_id,
    plannedDate: body.planned_date,
    note: body.note,
  };
}

export async function createProductionTask(
  deps: Deps,
  actor: Actor,
  body: TaskBody,
): Promise<ProductionTaskItem> {
  requireAdmin(actor);
  const row = await deps.db.transaction(async (tx) => {
    const [made] = await tx
      .insert(productionTasks)
      .values({ ...(await taskValues(tx, body)), createdBy: actor.uid })
      .returning();
    if (!made) throw new AppError(10109);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'production_task_create',
      target: `production-task:${made.id}`,
      ip: actor.ip,
      detail: { name: made.name, product_key: made.productKey, quantity: made.quantity },
    });
    return made;
  });
  return toTaskItem(deps.db, row);
}

/** A draft is edited as a whole (the same body as create); 71001 once started. */
export async function updateProductionTask(
  deps: Deps,
  actor: Actor,
  id: number,
  body: TaskBody,
): Promise<ProductionTaskItem> {
  requireAdmin(actor);
  const row = await deps.db.transaction(async (tx) => {
    const [task] = await tx.select().from(productionTasks).where(eq(productionTasks.id, id)).for('update');
    if (!task) throw new AppError(10107);
    requireState(task, 'draft');
    const [changed] = await tx
      .update(productionTasks)
      .set(await taskValues(tx, body))
      .where(eq(productionTasks.id, id))
      .returning();
    if (!changed) throw new AppError(10110);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'production_task_update',
      target: `production-task:${id}`,
      ip: actor.ip,
      detail: { name: changed.name, quantity: changed.quantity },
    });
    return changed;
  });
  return toTaskItem(deps.db, row);
}

/** Only a draft (nothing was made from it) is deleted; a started task stays as the record of its devices. */
export async function deleteProductionTask(deps: Deps, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await deps.db.transaction(async (tx) => {
    const [task] = await tx.select().from(productionTasks).where(eq(productionTasks.id, id)).for('update');
    if (!task) throw new AppError(10107);
    requireState(task, 'draft');
    await tx.delete(productionTasks).where(eq(productionTasks.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'production_task_delete',
      target: `production-task:${id}`,
      ip: actor.ip,
      detail: { name: task.name },
    });
  });
}

/** The sns of `sns` that exist already (any product, any owner). */
async function existingSns(db: DbOrTx, sns: string[]): Promise<string[]> {
  const found: string[] = [];
  for (let i = 0; i < sns.length; i += 1000) {
    const rows = await db
      .select({ sn: devices.sn })
      .from(devices)
      .where(inArray(devices.sn, sns.slice(i, i + 1000)));
    found.push(...rows.map((r) => r.sn));
  }
  const order = new Map(sns.map((sn, i) => [sn, i]));
  return found.sort((a, b) => order.get(a)! - order.get(b)!);
}

function clashError(clashes: string[]): AppError {
  const named = clashes.slice(0, CLASHES_NAMED);
  return new AppError(
    20402,
    undefined,
    `${clashes.length} serial number(s) exist: ${named.slice(0, 10).join(', ')}${clashes.length > 10 ? ', ...' : ''}`,
    { sns: named, count: clashes.length },
  );
}

/**
 * Starts a draft: every sn of the task becomes a device in stock (no owner) with a generated secret, through the
 * devices module's insert, in one transaction with the task's move to `producing`. Nothing is created when any sn
 * exists already: 20402 with the clashing sns in `details.sns` (at most 100, `details.count` in all).
 */
export async function startProductionTask(deps: Deps, actor: Actor, id: number): Promise<ProductionTaskItem> {
  requireAdmin(actor);
  const first = await findTask(deps.db, id);
  requireState(first, 'draft');
  const sns = snsOf(first);
  const clashes = await existingSns(deps.db, sns);
  if (clashes.length) throw clashError(clashes);
  const { row, created } = await deps.db.transaction(async (tx) => {
    const [task] = await tx.select().from(productionTasks).where(eq(productionTasks.id, id)).for('update');
    if (!task) throw new AppError(10107);
    requireState(task, 'draft');
    const taskSns = snsOf(task);
    const made = await insertNewDevices(tx, deps, actor, {
      productKey: task.productKey,
      uid: null,
      sns: taskSns,
      log: { production_task: task.id },
    });
    if (made.length !== taskSns.length) {
      // Another create took some of the sns meanwhile: roll everything back and name them.
      const got = new Set(made.map((m) => m.sn));
      throw clashError(taskSns.filter((sn) => !got.has(sn)));
    }
    const position = new Map(taskSns.map((sn, i) => [sn, i]));
    for (let i = 0; i < made.length; i += 5000) {
      await tx
        .insert(productionTaskDevices)
        .values(
          made
            .slice(i, i + 5000)
            .map((m) => ({ deviceId: m.id, taskId: task.id, position: position.get(m.sn)! })),
        );
    }
    const [started] = await tx
      .update(productionTasks)
      .set({ state: 'producing', startedat: deps.now() })
      .where(eq(productionTasks.id, id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'production_task_start',
      target: `production-task:${id}`,
      ip: actor.ip,
      detail: { devices: made.length, first_sn: taskSns[0], last_sn: taskSns[taskSns.length - 1] },
    });
    return { row: started!, created: made };
  });
  // As for any create: the gateway (and a broker holding credentials) learns of them, and devices of a product
  // bound to a cloud platform get their identity there.
  for (const c of created) deps.link.invalidate(c.sn);
  if (created.length)
    await writeDeviceLog(
      deps.db,
      ...(await syncDevicesPlatformParams(
        deps,
        row.productKey,
        created.map((c) => c.id),
      )),
    );
  return toTaskItem(deps.db, row);
}

/** producing -> done. */
export async function finishProductionTask(
  deps: Deps,
  actor: Actor,
  id: number,
): Promise<ProductionTaskItem> {
  return moveTask(deps, actor, id, ['producing'], 'done', 'production_task_finish');
}

/** draft or producing -> cancelled; devices already made stay in stock. */
export async function cancelProductionTask(
  deps: Deps,
  actor: Actor,
  id: number,
): Promise<ProductionTaskItem> {
  return moveTask(deps, actor, id, ['draft', 'producing'], 'cancelled', 'production_task_cancel');
}

async function moveTask(
  deps: Deps,
  actor: Actor,
  id: number,
  from: TaskState[],
  to: TaskState,
  action: 'production_task_finish' | 'production_task_cancel',
): Promise<ProductionTaskItem> {
  requireAdmin(actor);
  const row = await deps.db.transaction(async (tx) => {
    const [task] = await tx.select().from(productionTasks).where(eq(productionTasks.id, id)).for('update');
    if (!task) throw new AppError(10107);
    requireState(task, ...from);
    const [moved] = await tx
      .update(productionTasks)
      .set({ state: to, finishedat: deps.now() })
      .where(eq(productionTasks.id, id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action,
      target: `production-task:${id}`,
      ip: actor.ip,
      detail: { from: task.state },
    });
    return moved!;
  });
  return toTaskItem(deps.db, row);
}

/** Everything the label sheet prints, in the task's sn order. */
export async function taskLabels(deps: Deps, actor: Actor, id: number): Promise<TaskLabels> {
  requireAdmin(actor);
  const [item] = await toTaskItems(deps.db, [await findTask(deps.db, id)]);
  const rows = await deps.db
    .select({ sn: devices.sn })
    .from(productionTaskDevices)
    .innerJoin(devices, eq(devices.id, productionTaskDevices.deviceId))
    .where(eq(productionTaskDevices.taskId, id))
    .orderBy(asc(productionTaskDevices.position));
  return {
    task_id: id,
    task_name: item!.name,
    product_name: item!.product_name,
    hw_version: item!.hw_version,
    sns: rows.map((r) => r.sn),
  };
}

// --- produced devices: one task's, and the records list (/productive/info) -----------------------------------------

function deviceFilter(query: Omit<ProductionInfoQuery, 'current' | 'per_page'>): SQL | undefined {
  return and(
    query.task_id ? eq(productionTaskDevices.taskId, query.task_id) : undefined,
    query.keyword ? ilike(devices.sn, likeKeyword(query.keyword)) : undefined,
    query.tested === 'untested' ? isNull(deviceHardware.testOk) : undefined,
    query.tested === 'ok' ? eq(deviceHardware.testOk, true) : undefined,
    query.tested === 'failed' ? eq(deviceHardware.testOk, false) : undefined,
    query.mismatch === '1' ? sql`jsonb_array_length(${deviceHardware.mismatch}) > 0` : undefined,
    query.mismatch === '0' ? sql`coalesce(jsonb_array_length(${deviceHardware.mismatch}), 0) = 0` : undefined,
    query.shipped === '1' ? isNotNull(devices.uid) : undefined,
    query.shipped === '0' ? isNull(devices.uid) : undefined,
  );
}

/** Produced devices with their task, factory-test state, mismatch and whether shipped; admins only. */
export async function listProducedDevices(
  deps: Deps,
  actor: Actor,
  query: ProductionInfoQuery,
): Promise<{ items: ProductionDeviceItem[]; total: number }> {
  requireAdmin(actor);
  const where = deviceFilter(query);
  const base = () =>
    deps.db
      .select({
        sn: devices.sn,
        productKey: devices.productKey,
        uid: devices.uid,
        online: devices.online,
        createdat: devices.createdat,
        taskId: productionTaskDevices.taskId,
        taskName: productionTasks.name,
        testOk: deviceHardware.testOk,
        mismatch: deviceHardware.mismatch,
        lastAt: deviceHardware.lastAt,
      })
      .from(productionTaskDevices)
      .innerJoin(devices, eq(devices.id, productionTaskDevices.deviceId))
      .innerJoin(productionTasks, eq(productionTasks.id, productionTaskDevices.taskId))
      .leftJoin(deviceHardware, eq(deviceHardware.deviceId, productionTaskDevices.deviceId));
  const [rows, [total]] = await Promise.all([
    base()
      .where(where)
      .orderBy(desc(productionTaskDevices.taskId), asc(productionTaskDevices.position))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(productionTaskDevices)
      .innerJoin(devices, eq(devices.id, productionTaskDevices.deviceId))
      .leftJoin(deviceHardware, eq(deviceHardware.deviceId, productionTaskDevices.deviceId))
      .where(where),
  ]);
  return {
    items: rows.map((r) => ({
      sn: r.sn,
      product_key: r.productKey,
      task_id: r.taskId,
      task_name: r.taskName,
      tested: r.testOk === null ? 'untested' : r.testOk ? 'ok' : 'failed',
      mismatch: r.mismatch ?? [],
      uid: r.uid,
      online: r.online,
      createdat: r.createdat.toISOString(),
      tested_at: iso(r.lastAt),
    })),
    total: total?.n ?? 0,
  };
}

/** The task that made a device (the factory test compares its report with the task's hardware group). */
export async function taskOfDevice(db: DbOrTx, deviceId: number): Promise<ProductionTaskRow | undefined> {
  const [row] = await db
    .select({ task: productionTasks })
    .from(productionTaskDevices)
    .innerJoin(productionTasks, eq(productionTasks.id, productionTaskDevices.taskId))
    .where(eq(productionTaskDevices.deviceId, deviceId));
  return row?.task;
}
