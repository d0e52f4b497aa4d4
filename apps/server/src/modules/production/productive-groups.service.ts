/**
 * Productive groups: named batches of produced devices that are shipped together (the fast out-of-stock page picks
 * one). Only stock devices (no owner) are added; a device shipped later stays listed, marked by its owner.
 */
import { and, asc, count, desc, eq, ilike, inArray, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type {
  ProductiveGroupAddLine,
  ProductiveGroupDevice,
  ProductiveGroupItem,
  productiveGroupAddBody,
  productiveGroupBody,
  productiveGroupUpdateBody,
} from '@cellhub/contract/production';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword, type PageQuery } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { devices } from '../devices/devices.table';
import {
  productionTaskDevices,
  productionTasks,
  productiveGroupDevices,
  productiveGroups,
} from './production.table';

type GroupRow = typeof productiveGroups.$inferSelect;

async function findGroup(db: DbOrTx, id: number): Promise<GroupRow> {
  const [row] = await db.select().from(productiveGroups).where(eq(productiveGroups.id, id));
  if (!row) throw new AppError(10107);
  return row;
}

async function toItems(db: DbOrTx, rows: GroupRow[]): Promise<ProductiveGroupItem[]> {
  const ids = rows.map((r) => r.id);
  const counts = ids.length
    ? await db
        .select({ id: productiveGroupDevices.groupId, n: count() })
        .from(productiveGroupDevices)
        .where(inArray(productiveGroupDevices.groupId, ids))
        .groupBy(productiveGroupDevices.groupId)
    : [];
  const n = new Map(counts.map((c) => [c.id, c.n]));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    devices: n.get(r.id) ?? 0,
    createdat: r.createdat.toISOString(),
    updatedat: r.updatedat.toISOString(),
  }));
}

export async function listProductiveGroups(
  deps: Deps,
  actor: Actor,
  query: PageQuery & { keyword?: string },
): Promise<{ items: ProductiveGroupItem[]; total: number }> {
  requireAdmin(actor);
  const where = query.keyword ? ilike(productiveGroups.name, likeKeyword(query.keyword)) : undefined;
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(productiveGroups)
      .where(where)
      .orderBy(desc(productiveGroups.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(productiveGroups).where(where),
  ]);
  return { items: await toItems(deps.db, rows), total: total?.n ?? 0 };
}

export async function getProductiveGroup(deps: Deps, actor: Actor, id: number): Promise<ProductiveGroupItem> {
  requireAdmin(actor);
  const [item] = await toItems(deps.db, [await findGroup(deps.db, id)]);
  return item!;
}

export async function createProductiveGroup(
  deps: Deps,
  actor: Actor,
  body: z.output<typeof productiveGroupBody>,
): Promise<ProductiveGroupItem> {
  requireAdmin(actor);
  const row = await deps.db.transaction(async (tx) => {
    const [made] = await tx.insert(productiveGroups).values(body).returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'productive_group_create',
      target: `productive-group:${made!.id}`,
      ip: actor.ip,
      detail: { name: made!.name },
    });
    return made!;
  });
  const [item] = await toItems(deps.db, [row]);
  return item!;
}

export async function updateProductiveGroup(
  deps: Deps,
  actor: Actor,
  id: number,
  body: z.output<typeof productiveGroupUpdateBody>,
): Promise<ProductiveGroupItem> {
  requireAdmin(actor);
  const current = await findGroup(deps.db, id);
  const row = await deps.db.transaction(async (tx) => {
    const [changed] = await tx
      .update(productiveGroups)
      .set({ name: body.name ?? current.name, description: body.description ?? current.description })
      .where(eq(productiveGroups.id, id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'productive_group_update',
      target: `productive-group:${id}`,
      ip: actor.ip,
      detail: { name: changed!.name },
    });
    return changed!;
  });
  const [item] = await toItems(deps.db, [row]);
  return item!;
}

/** The group goes; its devices stay as they are. */
export async function deleteProductiveGroup(deps: Deps, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await findGroup(deps.db, id);
  await deps.db.transaction(async (tx) => {
    await tx.delete(productiveGroups).where(eq(productiveGroups.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'productive_group_delete',
      target: `productive-group:${id}`,
      ip: actor.ip,
    });
  });
}

/**
 * Adds the devices of a task and/or sns typed by hand, one line per sn: `added`, `already` in the group,
 * `not_found` (10117) or `not_in_stock` (11014, the device has an owner).
 */
export async function addToProductiveGroup(
  deps: Deps,
  actor: Actor,
  id: number,
  body: z.output<typeof productiveGroupAddBody>,
): Promise<ProductiveGroupAddLine[]> {
  requireAdmin(actor);
  await findGroup(deps.db, id);
  const sns: string[] = [];
  if (body.task_id !== undefined) {
    const taskDevices = await deps.db
      .select({ sn: devices.sn })
      .from(productionTaskDevices)
      .innerJoin(devices, eq(devices.id, productionTaskDevices.deviceId))
      .where(eq(productionTaskDevices.taskId, body.task_id))
      .orderBy(asc(productionTaskDevices.position));
    sns.push(...taskDevices.map((d) => d.sn));
  }
  for (const sn of body.sns ?? []) if (!sns.includes(sn)) sns.push(sn);
  return deps.db.transaction(async (tx) => {
    const found = new Map<string, { id: number; uid: number | null }>();
    for (let i = 0; i < sns.length; i += 1000) {
      const rows = await tx
        .select({ id: devices.id, sn: devices.sn, uid: devices.uid })
        .from(devices)
        .where(inArray(devices.sn, sns.slice(i, i + 1000)));
      for (const r of rows) found.set(r.sn, r);
    }
    const ids = [...found.values()].map((d) => d.id);
    const present = new Set<number>();
    for (let i = 0; i < ids.length; i += 1000) {
      const rows = await tx
        .select({ id: productiveGroupDevices.deviceId })
        .from(productiveGroupDevices)
        .where(
          and(
            eq(productiveGroupDevices.groupId, id),
            inArray(productiveGroupDevices.deviceId, ids.slice(i, i + 1000)),
          ),
        );
      for (const r of rows) present.add(r.id);
    }
    const lines: ProductiveGroupAddLine[] = [];
    const adding: number[] = [];
    for (const sn of sns) {
      const d = found.get(sn);
      if (!d) lines.push({ sn, code: 10117, result: 'not_found' });
      else if (present.has(d.id)) lines.push({ sn, code: 0, result: 'already' });
      else if (d.uid !== null) lines.push({ sn, code: 11014, result: 'not_in_stock' });
      else {
        lines.push({ sn, code: 0, result: 'added' });
        adding.push(d.id);
      }
    }
    for (let i = 0; i < adding.length; i += 5000)
      await tx
        .insert(productiveGroupDevices)
        .values(adding.slice(i, i + 5000).map((deviceId) => ({ groupId: id, deviceId })))
        .onConflictDoNothing();
    if (adding.length)
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'productive_group_add',
        target: `productive-group:${id}`,
        ip: actor.ip,
        detail: { devices: adding.length, task_id: body.task_id ?? null },
      });
    return lines;
  });
}

export async function removeFromProductiveGroup(
  deps: Deps,
  actor: Actor,
  id: number,
  sns: string[],
): Promise<void> {
  requireAdmin(actor);
  await findGroup(deps.db, id);
  await deps.db.transaction(async (tx) => {
    const rows = await tx.select({ id: devices.id }).from(devices).where(inArray(devices.sn, sns));
    if (rows.length)
      await tx.delete(productiveGroupDevices).where(
        and(
          eq(productiveGroupDevices.groupId, id),
          inArray(
            productiveGroupDevices.deviceId,
            rows.map((r) => r.id),
          ),
        ),
      );
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'productive_group_remove',
      target: `productive-group:${id}`,
      ip: actor.ip,
      detail: { sns },
    });
  });
}

export async function listProductiveGroupDevices(
  deps: Deps,
  actor: Actor,
  id: number,
  query: PageQuery & { keyword?: string },
): Promise<{ items: ProductiveGroupDevice[]; total: number }> {
  requireAdmin(actor);
  await findGroup(deps.db, id);
  const where: SQL | undefined = and(
    eq(productiveGroupDevices.groupId, id),
    query.keyword ? ilike(devices.sn, likeKeyword(query.keyword)) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({
        sn: devices.sn,
        productKey: devices.productKey,
        uid: devices.uid,
        taskId: productionTasks.id,
        taskName: productionTasks.name,
        addedat: productiveGroupDevices.createdat,
      })
      .from(productiveGroupDevices)
      .innerJoin(devices, eq(devices.id, productiveGroupDevices.deviceId))
      .leftJoin(productionTaskDevices, eq(productionTaskDevices.deviceId, devices.id))
      .leftJoin(productionTasks, eq(productionTasks.id, productionTaskDevices.taskId))
      .where(where)
      .orderBy(asc(devices.sn))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(productiveGroupDevices)
      .innerJoin(devices, eq(devices.id, productiveGroupDevices.deviceId))
      .where(where),
  ]);
  return {
    items: rows.map((r) => ({
      sn: r.sn,
      product_key: r.productKey,
      uid: r.uid,
      task_id: r.taskId,
      task_name: r.taskName,
      addedat: r.addedat.toISOString(),
    })),
    total: total?.n ?? 0,
  };
}
