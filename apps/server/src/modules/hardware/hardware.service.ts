import { and, asc, count, desc, eq, ilike, inArray, ne, or, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import {
  HW_INFO_EXPORT_COLUMNS,
  HW_INFO_EXPORT_MAX,
  HW_VALUE_TYPES,
  type HwGroupItem,
  type HwGroupListQuery,
  type HwGroupValue,
  type HwInfoItem,
  type HwInfoQuery,
  type HwValueItem,
  type HwValueListQuery,
  type HwValueType,
  type hwGroupBody,
  type hwGroupUpdateBody,
  type hwInfoExportQuery,
  type hwValueBody,
  type hwValueUpdateBody,
} from '@cellhub/contract/hardware';
import type { DbOrTx } from '../../db/client';
import { AppError, formError } from '../../lib/app-error';
import { requireAdmin } from '../../lib/authz';
import { toCsv } from '../../lib/csv';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { visibleDevices } from '../devices/device-access';
import { devices } from '../devices/devices.table';
import { isUniqueViolation } from '../users/users.service';
import { productionTasks } from '../production/production.table';
import {
  type DeviceHardwareRow,
  deviceHardware,
  hwGroups,
  hwGroupValues,
  type HwGroupRow,
  hwValues,
  type HwValueRow,
} from './hardware.table';

// --- values --------------------------------------------------------------------------------------------------------

function toValueItem(row: HwValueRow, groups: number): HwValueItem {
  return {
    id: row.id,
    type: row.type,
    value: row.value,
    description: row.description,
    groups,
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

async function groupCounts(db: DbOrTx, valueIds: number[]): Promise<Map<number, number>> {
  if (valueIds.length === 0) return new Map();
  const rows = await db
    .select({ id: hwGroupValues.valueId, n: count() })
    .from(hwGroupValues)
    .where(inArray(hwGroupValues.valueId, valueIds))
    .groupBy(hwGroupValues.valueId);
  return new Map(rows.map((r) => [r.id, r.n]));
}

async function findValue(db: DbOrTx, id: number): Promise<HwValueRow> {
  const [row] = await db.select().from(hwValues).where(eq(hwValues.id, id));
  if (!row) throw new AppError(10107);
  return row;
}

/** 70002 when another value of `type` has the same text ignoring case (the unique index says the same). */
async function refuseDuplicate(
  db: DbOrTx,
  type: HwValueType,
  value: string,
  exceptId?: number,
): Promise<void> {
  const [dup] = await db
    .select({ id: hwValues.id })
    .from(hwValues)
    .where(
      and(
        eq(hwValues.type, type),
        eq(sql`lower(${hwValues.value})`, value.toLowerCase()),
        exceptId === undefined ? undefined : ne(hwValues.id, exceptId),
      ),
    );
  if (dup) throw new AppError(70002, undefined, `A ${type} value "${value}" exists`);
}

export async function listHwValues(
  deps: Deps,
  actor: Actor,
  query: HwValueListQuery,
): Promise<{ items: HwValueItem[]; total: number }> {
  requireAdmin(actor);
  const where = and(
    query.type ? eq(hwValues.type, query.type) : undefined,
    query.keyword
      ? or(
          ilike(hwValues.value, likeKeyword(query.keyword)),
          ilike(hwValues.description, likeKeyword(query.keyword)),
        )
      : undefined,
  );
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(hwValues)
      .where(where)
      .orderBy(asc(hwValues.type), asc(hwValues.value), asc(hwValues.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(hwValues).where(where),
  ]);
  const used = await groupCounts(
    deps.db,
    rows.map((r) => r.id),
  );
  return { items: rows.map((r) => toValueItem(r, used.get(r.id) ?? 0)), total: total?.n ?? 0 };
}

export async function createHwValue(
  deps: Deps,
  actor: Actor,
  body: z.output<typeof hwValueBody>,
): Promise<HwValueItem> {
  requireAdmin(actor);
  await refuseDuplicate(deps.db, body.type, body.value);
  try {
    const row = await deps.db.transaction(async (tx) => {
      const [made] = await tx.insert(hwValues).values(body).returning();
      if (!made) throw new AppError(10109);
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'hw_value_create',
        target: `hw-value:${made.id}`,
        ip: actor.ip,
        detail: { type: made.type, value: made.value },
      });
      return made;
    });
    return toValueItem(row, 0);
  } catch (err) {
    // Two admins adding the same value at once: the index decides, the loser hears 70002.
    if (isUniqueViolation(err)) throw new AppError(70002);
    throw err;
  }
}

export async function updateHwValue(
  deps: Deps,
  actor: Actor,
  id: number,
  body: z.output<typeof hwValueUpdateBody>,
): Promise<HwValueItem> {
  requireAdmin(actor);
  const current = await findValue(deps.db, id);
  const type = body.type ?? current.type;
  const value = body.value ?? current.value;
  await refuseDuplicate(deps.db, type, value, id);
  const used = (await groupCounts(deps.db, [id])).get(id) ?? 0;
  // A group holds one value per type: moving a used value to another type could give a group two of one type.
  if (type !== current.type && used > 0)
    throw new AppError(
      10110,
      undefined,
      `The value is used by ${used} hardware group(s); its type cannot change`,
    );
  try {
    const row = await deps.db.transaction(async (tx) => {
      const [changed] = await tx
        .update(hwValues)
        .set({ type, value, description: body.description ?? current.description })
        .where(eq(hwValues.id, id))
        .returning();
      if (!changed) throw new AppError(10110);
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'hw_value_update',
        target: `hw-value:${id}`,
        ip: actor.ip,
        detail: { type: changed.type, value: changed.value },
      });
      return changed;
    });
    return toValueItem(row, used);
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError(70002);
    throw err;
  }
}

/** 10112 naming the groups when the value is part of one; the groups must drop it first. */
export async function deleteHwValue(deps: Deps, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await findValue(deps.db, id);
  await deps.db.transaction(async (tx) => {
    const users = await tx
      .select({ id: hwGroups.id, name: hwGroups.name })
      .from(hwGroupValues)
      .innerJoin(hwGroups, eq(hwGroups.id, hwGroupValues.groupId))
      .where(eq(hwGroupValues.valueId, id))
      .orderBy(asc(hwGroups.id))
      .for('update');
    if (users.length > 0)
      throw new AppError(
        10112,
        undefined,
        `The value is used by hardware group(s): ${users.map((g) => g.name).join(', ')}`,
        { groups: users },
      );
    await tx.delete(hwValues).where(eq(hwValues.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'hw_value_delete',
      target: `hw-value:${id}`,
      ip: actor.ip,
    });
  });
}

// --- groups --------------------------------------------------------------------------------------------------------

const TYPE_ORDER = new Map(HW_VALUE_TYPES.map((t, i) => [t, i]));

/** The values of each group, in the order of HW_VALUE_TYPES. */
export async function groupValues(db: DbOrTx, groupIds: number[]): Promise<Map<number, HwGroupValue[]>> {
  const out = new Map<number, HwGroupValue[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return out;
  const rows = await db
    .select({ groupId: hwGroupValues.groupId, id: hwValues.id, type: hwValues.type, value: hwValues.value })
    .from(hwGroupValues)
    .innerJoin(hwValues, eq(hwValues.id, hwGroupValues.valueId))
    .where(inArray(hwGroupValues.groupId, groupIds));
  for (const r of rows) out.get(r.groupId)?.push({ id: r.id, type: r.type, value: r.value });
  for (const list of out.values()) list.sort((a, b) => TYPE_ORDER.get(a.type)! - TYPE_ORDER.get(b.type)!);
  return out;
}

async function taskCounts(db: DbOrTx, groupIds: number[]): Promise<Map<number, number>> {
  if (groupIds.length === 0) return new Map();
  const rows = await db
    .select({ id: productionTasks.hwGroupId, n: count() })
    .from(productionTasks)
    .where(inArray(productionTasks.hwGroupId, groupIds))
    .groupBy(productionTasks.hwGroupId);
  return new Map(rows.map((r) => [r.id, r.n]));
}

async function toGroupItems(db: DbOrTx, rows: HwGroupRow[]): Promise<HwGroupItem[]> {
  const ids = rows.map((r) => r.id);
  const [values, tasks] = await Promise.all([groupValues(db, ids), taskCounts(db, ids)]);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    values: values.get(r.id) ?? [],
    tasks: tasks.get(r.id) ?? 0,
    createdat: r.createdat.toISOString(),
    updatedat: r.updatedat.toISOString(),
  }));
}

export async function findHwGroup(db: DbOrTx, id: number): Promise<HwGroupRow> {
  const [row] = await db.select().from(hwGroups).where(eq(hwGroups.id, id));
  if (!row) throw new AppError(10107);
  return row;
}

/** The values as group rows: each must exist (10113 on value_ids) and at most one per type. */
async function checkedValues(db: DbOrTx, ids: number[]): Promise<{ type: HwValueType; valueId: number }[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: hwValues.id, type: hwValues.type })
    .from(hwValues)
    .where(inArray(hwValues.id, ids));
  if (rows.length !== ids.length) throw formError('value_ids', 'no such hardware value');
  const types = new Set(rows.map((r) => r.type));
  if (types.size !== rows.length) throw formError('value_ids', 'at most one value per type');
  return rows.map((r) => ({ type: r.type, valueId: r.id }));
}

export async function listHwGroups(
  deps: Deps,
  actor: Actor,
  query: HwGroupListQuery,
): Promise<{ items: HwGroupItem[]; total: number }> {
  requireAdmin(actor);
  const where = query.keyword ? ilike(hwGroups.name, likeKeyword(query.keyword)) : undefined;
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(hwGroups)
      .where(where)
      .orderBy(desc(hwGroups.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(hwGroups).where(where),
  ]);
  return { items: await toGroupItems(deps.db, rows), total: total?.n ?? 0 };
}

export async function getHwGroup(deps: Deps, actor: Actor, id: number): Promise<HwGroupItem> {
  requireAdmin(actor);
  const [item] = await toGroupItems(deps.db, [await findHwGroup(deps.db, id)]);
  return item!;
}

export async function createHwGroup(
  deps: Deps,
  actor: Actor,
  body: z.output<typeof hwGroupBody>,
): Promise<HwGroupItem> {
  requireAdmin(actor);
  const row = await deps.db.transaction(async (tx) => {
    const values = await checkedValues(tx, body.value_ids);
    const [made] = await tx
      .insert(hwGroups)
      .values({ name: body.name, description: body.description })
      .returning();
    if (!made) throw new AppError(10109);
    if (values.length) await tx.insert(hwGroupValues).values(values.map((v) => ({ ...v, groupId: made.id })));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'hw_group_create',
      target: `hw-group:${made.id}`,
      ip: actor.ip,
      detail: { name: made.name, value_ids: body.value_ids },
    });
    return made;
  });
  const [item] = await toGroupItems(deps.db, [row]);
  return item!;
}

export async function updateHwGroup(
  deps: Deps,
  actor: Actor,
  id: number,
  body: z.output<typeof hwGroupUpdateBody>,
): Promise<HwGroupItem> {
  requireAdmin(actor);
  const current = await findHwGroup(deps.db, id);
  const row = await deps.db.transaction(async (tx) => {
    const [changed] = await tx
      .update(hwGroups)
      .set({ name: body.name ?? current.name, description: body.description ?? current.description })
      .where(eq(hwGroups.id, id))
      .returning();
    if (!changed) throw new AppError(10110);
    if (body.value_ids) {
      const values = await checkedValues(tx, body.value_ids);
      await tx.delete(hwGroupValues).where(eq(hwGroupValues.groupId, id));
      if (values.length) await tx.insert(hwGroupValues).values(values.map((v) => ({ ...v, groupId: id })));
    }
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'hw_group_update',
      target: `hw-group:${id}`,
      ip: actor.ip,
      detail: { name: changed.name, ...(body.value_ids ? { value_ids: body.value_ids } : {}) },
    });
    return changed;
  });
  const [item] = await toGroupItems(deps.db, [row]);
  return item!;
}

/** 10112 when a production task builds the group. */
export async function deleteHwGroup(deps: Deps, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await findHwGroup(deps.db, id);
  await deps.db.transaction(async (tx) => {
    const tasks = await tx
      .select({ id: productionTasks.id, name: productionTasks.name })
      .from(productionTasks)
      .where(eq(productionTasks.hwGroupId, id))
      .limit(20);
    if (tasks.length > 0)
      throw new AppError(
        10112,
        undefined,
        `The hardware group is used by production task(s): ${tasks.map((t) => t.name).join(', ')}`,
        { tasks },
      );
    await tx.delete(hwGroups).where(eq(hwGroups.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'hw_group_delete',
      target: `hw-group:${id}`,
      ip: actor.ip,
    });
  });
}

// --- what devices reported -----------------------------------------------------------------------------------------

function toInfoItem(h: DeviceHardwareRow, d: { sn: string; productKey: string; imei: string }): HwInfoItem {
  return {
    sn: d.sn,
    product_key: d.productKey,
    imei: d.imei,
    module_model: h.moduleModel,
    module_fw: h.moduleFw,
    mcu_id: h.mcuId,
    mac: h.mac,
    board_revision: h.boardRevision,
    test_ok: h.testOk,
    test_items: h.testItems,
    mismatch: h.mismatch,
    task_id: h.taskId,
    first_at: h.firstAt.toISOString(),
    last_at: h.lastAt.toISOString(),
  };
}

function infoFilter(actor: Actor, query: z.output<typeof hwInfoExportQuery>): SQL | undefined {
  return and(
    visibleDevices(actor),
    query.keyword
      ? or(ilike(devices.sn, likeKeyword(query.keyword)), ilike(devices.imei, likeKeyword(query.keyword)))
      : undefined,
    query.task_id ? eq(deviceHardware.taskId, query.task_id) : undefined,
  );
}

const infoColumns = { h: deviceHardware, sn: devices.sn, productKey: devices.productKey, imei: devices.imei };

/** What devices reported about their hardware: every device for admins, a user's own (and shared) devices. */
export async function listHwInfo(
  deps: Deps,
  actor: Actor,
  query: HwInfoQuery,
): Promise<{ items: HwInfoItem[]; total: number }> {
  const where = infoFilter(actor, query);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select(infoColumns)
      .from(deviceHardware)
      .innerJoin(devices, eq(devices.id, deviceHardware.deviceId))
      .where(where)
      .orderBy(desc(deviceHardware.lastAt), desc(deviceHardware.deviceId))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(deviceHardware)
      .innerJoin(devices, eq(devices.id, deviceHardware.deviceId))
      .where(where),
  ]);
  return { items: rows.map((r) => toInfoItem(r.h, r)), total: total?.n ?? 0 };
}

/** The same list as CSV (at most HW_INFO_EXPORT_MAX rows); test items as `name:ok|name:fail`. */
export async function exportHwInfo(
  deps: Deps,
  actor: Actor,
  query: z.output<typeof hwInfoExportQuery>,
): Promise<string> {
  const rows = await deps.db
    .select(infoColumns)
    .from(deviceHardware)
    .innerJoin(devices, eq(devices.id, deviceHardware.deviceId))
    .where(infoFilter(actor, query))
    .orderBy(desc(deviceHardware.lastAt), desc(deviceHardware.deviceId))
    .limit(HW_INFO_EXPORT_MAX);
  const header = [...HW_INFO_EXPORT_COLUMNS, 'test_items'];
  return toCsv(
    header,
    rows.map((r) => {
      const item = toInfoItem(r.h, r);
      return [
        ...HW_INFO_EXPORT_COLUMNS.map((c) => {
          const v = item[c];
          if (Array.isArray(v)) return v.join(' ');
          if (typeof v === 'boolean') return v ? 'ok' : 'failed';
          return v;
        }),
        item.test_items.map((t) => `${t.name}:${t.ok ? 'ok' : 'fail'}`).join('|'),
      ];
    }),
  );
}
