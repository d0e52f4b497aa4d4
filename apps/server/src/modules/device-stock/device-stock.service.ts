/**
 * Device admin (docs/device-stock.md): the stock (devices without an owner), ranges of new stock, fast out of stock
 * to a customer account with one shipment record, and the timeline of a device from production to its SIM.
 * Creating stock goes through the device create service; shipping sets owners through the bind path
 * (claimStockDevices), so the device log, the gateway's owner cache and the shares follow as they do for a bind.
 */
import { and, count, desc, eq, gte, ilike, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type {
  DeviceTimeline,
  ShipLine,
  ShipmentDetail,
  ShipmentItem,
  ShipmentResult,
  StockCheckLine,
  StockItem,
  StockRangeResult,
  TimelineEvent,
  shipmentBody,
  shipmentListQuery,
  stockExportQuery,
  stockListQuery,
  stockRangeBody,
} from '@cellhub/contract/device-stock';
import { rangeSns, STOCK_EXPORT_MAX } from '@cellhub/contract/device-stock';
import type { DeviceCreateLine } from '@cellhub/contract/devices';
import { SN_RULE } from '@cellhub/contract/protocol';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { toCsv } from '../../lib/csv';
import { isAdmin, requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { normalizePhone } from '../../lib/phone';
import { auditLogs } from '../audit/audit.table';
import { writeAudit } from '../audit/audit.service';
import { deviceLogs } from '../device-log/device-log.table';
import { accessibleDevice } from '../devices/device-access';
import { claimStockDevices } from '../devices/device-bind.service';
import { createDevices } from '../devices/devices.service';
import { devices, deviceSearchText } from '../devices/devices.table';
import { deviceHardware } from '../hardware/hardware.table';
import {
  productionTaskDevices,
  productionTasks,
  productiveGroupDevices,
} from '../production/production.table';
import { products } from '../products/products.table';
import { simCards } from '../sim/sim-cards.table';
import { users } from '../users/users.table';
import { deviceShipmentItems, deviceShipments } from './device-stock.table';

type ListQuery = z.output<typeof stockListQuery>;
type ExportQuery = z.output<typeof stockExportQuery>;

const DAY_MS = 86_400_000;
const dayStart = (d: string): Date => new Date(`${d}T00:00:00.000Z`);

/**
 * The stock filters as one WHERE over `devices`: no owner, plus the device list's keyword expression (the same
 * trigram-indexed sn/name/IMEI/ICCID search), product, created days, and production's task, group and test state.
 */
function stockFilter(query: ExportQuery): SQL {
  const conditions: (SQL | undefined)[] = [isNull(devices.uid)];
  if (query.keyword) conditions.push(ilike(deviceSearchText(devices), likeKeyword(query.keyword)));
  if (query.product_key) conditions.push(eq(devices.productKey, query.product_key));
  if (query.created_from) conditions.push(gte(devices.createdat, dayStart(query.created_from)));
  if (query.created_to)
    conditions.push(lt(devices.createdat, new Date(dayStart(query.created_to).getTime() + DAY_MS)));
  if (query.task_id) conditions.push(eq(productionTaskDevices.taskId, query.task_id));
  if (query.group_id) {
    conditions.push(
      sql`exists (select 1 from ${productiveGroupDevices} g where g.device_id = ${devices.id} and g.group_id = ${query.group_id})`,
    );
  }
  if (query.tested === 'untested') conditions.push(isNull(deviceHardware.testOk));
  if (query.tested === 'ok') conditions.push(eq(deviceHardware.testOk, true));
  if (query.tested === 'failed') conditions.push(eq(deviceHardware.testOk, false));
  return and(...conditions) ?? sql`true`;
}

const stockColumns = {
  id: devices.id,
  sn: devices.sn,
  name: devices.name,
  productKey: devices.productKey,
  productName: products.name,
  imei: devices.imei,
  iccid: devices.iccid,
  taskId: productionTaskDevices.taskId,
  taskName: productionTasks.name,
  testOk: deviceHardware.testOk,
  createdat: devices.createdat,
};

function stockSelect(db: DbOrTx, where: SQL) {
  return db
    .select(stockColumns)
    .from(devices)
    .leftJoin(products, eq(products.productKey, devices.productKey))
    .leftJoin(productionTaskDevices, eq(productionTaskDevices.deviceId, devices.id))
    .leftJoin(productionTasks, eq(productionTasks.id, productionTaskDevices.taskId))
    .leftJoin(deviceHardware, eq(deviceHardware.deviceId, devices.id))
    .where(where);
}

type StockRow = Awaited<ReturnType<typeof stockSelect>>[number];

const toStockItem = (r: StockRow): StockItem => ({
  id: r.id,
  sn: r.sn,
  name: r.name,
  product_key: r.productKey,
  product_name: r.productName ?? '',
  imei: r.imei,
  iccid: r.iccid,
  task_id: r.taskId,
  task_name: r.taskName,
  tested: r.testOk === null ? 'untested' : r.testOk ? 'ok' : 'failed',
  createdat: r.createdat.toISOString(),
});

/** One page of the stock, newest first (admin). */
export async function listStock(
  deps: Deps,
  actor: Actor,
  query: ListQuery,
): Promise<{ items: StockItem[]; total: number }> {
  requireAdmin(actor);
  const where = stockFilter(query);
  const [rows, [total]] = await Promise.all([
    stockSelect(deps.db, where)
      .orderBy(desc(devices.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(devices)
      .leftJoin(productionTaskDevices, eq(productionTaskDevices.deviceId, devices.id))
      .leftJoin(deviceHardware, eq(deviceHardware.deviceId, devices.id))
      .where(where),
  ]);
  return { items: rows.map(toStockItem), total: total?.n ?? 0 };
}

export const STOCK_CSV_HEADER = [
  'sn',
  'name',
  'product',
  'imei',
  'iccid',
  'task',
  'tested',
  'createdat',
] as const;

/** The stock matching the filters as CSV (admin), at most STOCK_EXPORT_MAX rows. */
export async function exportStock(deps: Deps, actor: Actor, query: ExportQuery): Promise<string> {
  requireAdmin(actor);
  const rows = await stockSelect(deps.db, stockFilter(query))
    .orderBy(desc(devices.id))
    .limit(STOCK_EXPORT_MAX);
  return toCsv(
    STOCK_CSV_HEADER,
    rows
      .map(toStockItem)
      .map((i) => [i.sn, i.name, i.product_name, i.imei, i.iccid, i.task_name, i.tested, i.createdat]),
  );
}

/**
 * New stock from a range: prefix + from..to zero-padded. Each 1,000 sns are one call of the device create service
 * (its limit and transaction), so every sn gets the create's own line (created, 20402, 20403, 10113).
 */
export async function createStockRange(
  deps: Deps,
  actor: Actor,
  body: z.output<typeof stockRangeBody>,
): Promise<StockRangeResult> {
  requireAdmin(actor);
  const sns = rangeSns(body);
  const lines: DeviceCreateLine[] = [];
  for (let i = 0; i < sns.length; i += 1000) {
    lines.push(
      ...(await createDevices(deps, actor, {
        product_key: body.product_key,
        sn: sns.slice(i, i + 1000),
        name: body.name,
        description: body.description,
        uid: null,
      })),
    );
  }
  const created = lines.filter((l) => l.code === 0).length;
  return { total: lines.length, created, failed: lines.length - created, lines };
}

interface FoundDevice {
  id: number;
  sn: string;
  uid: number | null;
  productName: string;
}

async function findBySns(db: DbOrTx, sns: string[]): Promise<Map<string, FoundDevice>> {
  const found = new Map<string, FoundDevice>();
  for (let i = 0; i < sns.length; i += 1000) {
    const rows = await db
      .select({ id: devices.id, sn: devices.sn, uid: devices.uid, productName: products.name })
      .from(devices)
      .leftJoin(products, eq(products.productKey, devices.productKey))
      .where(inArray(devices.sn, sns.slice(i, i + 1000)));
    for (const r of rows) found.set(r.sn, { ...r, productName: r.productName ?? '' });
  }
  return found;
}

/** The live check of scanned lines (admin): in stock, owned (11014), unknown (10117) or not an sn (10113). */
export async function checkStock(deps: Deps, actor: Actor, sns: string[]): Promise<StockCheckLine[]> {
  requireAdmin(actor);
  const valid = sns.filter((sn) => SN_RULE.test(sn));
  const found = await findBySns(deps.db, [...new Set(valid)]);
  return sns.map((sn) => {
    if (!SN_RULE.test(sn)) return { sn, state: 'invalid', code: 10113, product_name: '' };
    const d = found.get(sn);
    if (!d) return { sn, state: 'not_found', code: 10117, product_name: '' };
    return d.uid === null
      ? { sn, state: 'in_stock', code: 0, product_name: d.productName }
      : { sn, state: 'owned', code: 11014, product_name: d.productName };
  });
}

/**
 * The customer account of a shipment by username (case-insensitive) or phone: an unknown account answers 10107
 * (details: customer), a disabled one 10103. Both refuse the whole shipment before anything is read of the sns.
 */
async function customerAccount(db: DbOrTx, who: string): Promise<{ id: number; username: string }> {
  const [u] = await db
    .select({ id: users.id, username: users.username, disabled: users.disabled })
    .from(users)
    .where(or(sql`lower(${users.username}) = lower(${who})`, eq(users.phone, normalizePhone(who))))
    .limit(1);
  if (!u)
    throw new AppError(10107, 400, 'No such customer account', [{ field: 'customer', message: 'not_found' }]);
  if (u.disabled) {
    throw new AppError(10103, 400, 'The customer account is disabled', [
      { field: 'customer', message: 'disabled' },
    ]);
  }
  return { id: u.id, username: u.username };
}

/**
 * Fast out of stock (admin): the listed sns (and the in-stock devices of a productive group) go to the customer.
 * Every line answers for itself: one that is owned (11014), unknown (10117), not an sn or listed twice (10113) is
 * refused and the rest ship, in one transaction with their device-log rows, the shipment record and its audit row.
 */
export async function shipDevices(
  deps: Deps,
  actor: Actor,
  body: z.output<typeof shipmentBody>,
): Promise<ShipmentResult> {
  requireAdmin(actor);
  const customer = await customerAccount(deps.db, body.customer);
  const sns = [...body.sns];
  if (body.group_id !== undefined) {
    const grouped = await deps.db
      .select({ sn: devices.sn })
      .from(productiveGroupDevices)
      .innerJoin(devices, eq(devices.id, productiveGroupDevices.deviceId))
      .where(and(eq(productiveGroupDevices.groupId, body.group_id), isNull(devices.uid)))
      .orderBy(devices.sn);
    if (grouped.length === 0 && sns.length === 0) {
      throw new AppError(10107, 400, 'No such productive group, or none of its devices is in stock', [
        { field: 'group_id', message: 'not_found' },
      ]);
    }
    for (const g of grouped) if (!sns.includes(g.sn)) sns.push(g.sn);
  }
  const lines = new Map<number, ShipLine>();
  const seen = new Set<string>();
  const wanted: string[] = [];
  sns.forEach((sn, i) => {
    if (!SN_RULE.test(sn)) lines.set(i, { sn, code: 10113, result: 'invalid' });
    else if (seen.has(sn)) lines.set(i, { sn, code: 10113, result: 'duplicate' });
    else {
      seen.add(sn);
      wanted.push(sn);
    }
  });
  const found = await findBySns(deps.db, wanted);
  const candidates = wanted.map((sn) => found.get(sn)).filter((d): d is FoundDevice => d?.uid === null);

  let shipment: ShipmentItem | null = null;
  let shippedIds = new Set<number>();
  if (candidates.length > 0) {
    const result = await deps.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(deviceShipments)
        .values({
          customerUid: customer.id,
          customerName: customer.username,
          createdBy: actor.uid,
          createdByName: actor.username,
          count: 0,
          note: body.note,
        })
        .returning();
      const won = await claimStockDevices(
        tx,
        actor,
        candidates.map((d) => d.id),
        customer.id,
        { ship: row!.id, to: customer.id },
      );
      if (won.length === 0) {
        // Every device was taken meanwhile: no shipment of nothing.
        await tx.delete(deviceShipments).where(eq(deviceShipments.id, row!.id));
        return { row: null, won };
      }
      const wonSet = new Set(won);
      await tx
        .insert(deviceShipmentItems)
        .values(
          candidates
            .filter((d) => wonSet.has(d.id))
            .map((d) => ({ shipmentId: row!.id, deviceId: d.id, sn: d.sn })),
        );
      const [final] = await tx
        .update(deviceShipments)
        .set({ count: won.length })
        .where(eq(deviceShipments.id, row!.id))
        .returning();
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'device_ship',
        target: `user:${customer.id}`,
        ip: actor.ip,
        detail: {
          shipment: row!.id,
          count: won.length,
          sn: candidates
            .filter((d) => wonSet.has(d.id))
            .slice(0, 100)
            .map((d) => d.sn),
        },
      });
      return { row: final!, won };
    });
    shippedIds = new Set(result.won);
    if (result.row) shipment = toShipmentItem(result.row);
  }
  sns.forEach((sn, i) => {
    if (lines.has(i)) return;
    const d = found.get(sn);
    if (!d) lines.set(i, { sn, code: 10117, result: 'not_found' });
    else if (shippedIds.has(d.id)) lines.set(i, { sn, code: 0, result: 'shipped' });
    else lines.set(i, { sn, code: 11014, result: 'owned' });
  });
  if (shippedIds.size > 0) {
    // The gateway caches owners, the device list caches counts, the share audience caches who sees a device.
    for (const d of candidates) if (shippedIds.has(d.id)) deps.link.invalidate(d.sn);
    deps.caches.deviceCounts.clear();
    deps.events.emit({ type: 'share.changed', deviceIds: [...shippedIds] });
  }
  const out = sns.map((_, i) => lines.get(i)!);
  const shipped = out.filter((l) => l.code === 0).length;
  return { shipment, shipped, failed: out.length - shipped, lines: out };
}

const toShipmentItem = (r: typeof deviceShipments.$inferSelect): ShipmentItem => ({
  id: r.id,
  customer_uid: r.customerUid,
  customer: r.customerName,
  created_by: r.createdByName,
  count: r.count,
  note: r.note,
  createdat: r.createdat.toISOString(),
});

/** Shipments, newest first (admin); keyword = substring of the customer's username. */
export async function listShipments(
  deps: Deps,
  actor: Actor,
  query: z.output<typeof shipmentListQuery>,
): Promise<{ items: ShipmentItem[]; total: number }> {
  requireAdmin(actor);
  const where = query.keyword ? ilike(deviceShipments.customerName, likeKeyword(query.keyword)) : undefined;
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(deviceShipments)
      .where(where)
      .orderBy(desc(deviceShipments.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(deviceShipments).where(where),
  ]);
  return { items: rows.map(toShipmentItem), total: total?.n ?? 0 };
}

/** One shipment with its sns (admin); unknown 10107. */
export async function getShipment(deps: Deps, actor: Actor, id: number): Promise<ShipmentDetail> {
  requireAdmin(actor);
  const [row] = await deps.db.select().from(deviceShipments).where(eq(deviceShipments.id, id));
  if (!row) throw new AppError(10107);
  const items = await deps.db
    .select({ sn: deviceShipmentItems.sn, productName: products.name })
    .from(deviceShipmentItems)
    .innerJoin(devices, eq(devices.id, deviceShipmentItems.deviceId))
    .leftJoin(products, eq(products.productKey, devices.productKey))
    .where(eq(deviceShipmentItems.shipmentId, id))
    .orderBy(deviceShipmentItems.sn);
  return {
    ...toShipmentItem(row),
    devices: items.map((i) => ({ sn: i.sn, product_name: i.productName ?? '' })),
  };
}

/**
 * The life of a device, oldest first: produced (its `created` log row, with the production task), tested (the
 * factory report), shipped (shipments; a shipment binds the device to its customer, so it adds a bound step), bound and unbound (audit rows), first connect (activatedat), SIM activated
 * (the card of its iccid). Whoever may view the device reads it; other people's usernames only admins.
 */
export async function deviceTimeline(deps: Deps, actor: Actor, sn: string): Promise<DeviceTimeline> {
  const d = await accessibleDevice(deps.db, actor, sn, 'view');
  const admin = isAdmin(actor);
  const [created, task, hw, shipments, audits, card] = await Promise.all([
    deps.db
      .select({ at: deviceLogs.createdat })
      .from(deviceLogs)
      .where(and(eq(deviceLogs.deviceId, d.id), eq(deviceLogs.event, 'created')))
      .orderBy(deviceLogs.id)
      .limit(1),
    deps.db
      .select({ name: productionTasks.name })
      .from(productionTaskDevices)
      .innerJoin(productionTasks, eq(productionTasks.id, productionTaskDevices.taskId))
      .where(eq(productionTaskDevices.deviceId, d.id)),
    deps.db
      .select({ at: deviceHardware.firstAt, ok: deviceHardware.testOk })
      .from(deviceHardware)
      .where(eq(deviceHardware.deviceId, d.id)),
    deps.db
      .select({
        at: deviceShipments.createdat,
        customer: deviceShipments.customerName,
        customerUid: deviceShipments.customerUid,
      })
      .from(deviceShipmentItems)
      .innerJoin(deviceShipments, eq(deviceShipments.id, deviceShipmentItems.shipmentId))
      .where(eq(deviceShipmentItems.deviceId, d.id)),
    deps.db
      .select({
        at: auditLogs.createdat,
        action: auditLogs.action,
        uid: auditLogs.uid,
        detail: auditLogs.detail,
      })
      .from(auditLogs)
      .where(
        and(
          eq(auditLogs.target, `device:${d.sn}`),
          inArray(auditLogs.action, ['device_bind', 'device_unbind']),
          // Audit rows name the sn, which a deleted and re-created device reuses: only this device's life.
          gte(auditLogs.createdat, d.createdat),
        ),
      )
      .orderBy(auditLogs.id),
    d.iccid
      ? deps.db
          .select({ at: simCards.activatedAt, iccid: simCards.iccid })
          .from(simCards)
          .where(eq(simCards.iccid, d.iccid))
          .limit(1)
      : Promise.resolve([]),
  ]);
  const events: TimelineEvent[] = [];
  const produced = created[0]?.at ?? d.createdat;
  events.push({
    event: 'produced',
    at: produced.toISOString(),
    detail: task[0] ? { task: task[0].name } : {},
  });
  if (hw[0] && hw[0].ok !== null)
    events.push({ event: 'tested', at: hw[0].at.toISOString(), detail: { ok: hw[0].ok } });
  // Shipping binds the device to the customer's account (the shipment sets the owner): it is the binding step.
  // The customer's name only to admins and to that customer (a later owner does not learn who had it before).
  for (const s of shipments) {
    const named = admin || s.customerUid === actor.uid;
    events.push({ event: 'shipped', at: s.at.toISOString(), detail: named ? { customer: s.customer } : {} });
    events.push({
      event: 'bound',
      at: s.at.toISOString(),
      detail: named ? { user: s.customer, shipment: true } : { shipment: true },
    });
  }
  const names = admin
    ? await usernames(
        deps.db,
        audits.map((a) => a.uid),
      )
    : new Map<number, string>();
  for (const a of audits) {
    const uid = a.action === 'device_bind' ? a.uid : (a.detail.previous_uid as number | null | undefined);
    const user = uid != null ? names.get(uid) : undefined;
    events.push({
      event: a.action === 'device_bind' ? 'bound' : 'unbound',
      at: a.at.toISOString(),
      detail: user ? { user } : {},
    });
  }
  if (d.activatedat) events.push({ event: 'first_connect', at: d.activatedat.toISOString(), detail: {} });
  if (card[0]?.at)
    events.push({ event: 'sim_activated', at: card[0].at.toISOString(), detail: { iccid: card[0].iccid } });
  events.sort((a, b) => a.at.localeCompare(b.at));
  return { sn: d.sn, events };
}

async function usernames(db: DbOrTx, ids: (number | null)[]): Promise<Map<number, string>> {
  const wanted = [...new Set(ids.filter((i): i is number => i !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db
    .select({ id: users.id, username: users.username })
    .from(users)
    .where(inArray(users.id, wanted));
  return new Map(rows.map((r) => [r.id, r.username]));
}
