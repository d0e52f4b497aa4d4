import { and, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import { eventUp } from '@cellhub/contract/protocol';
import {
  type DeviceEventItem,
  type DeviceEventsQuery,
  eventParamsSchema,
  modelEvent,
  type ThingModel,
} from '@cellhub/contract/thing-model';
import type { z } from 'zod';
import type { Actor, Deps } from '../../lib/deps';
import { Rejection } from '../../lib/rejection';
import { accessibleDevice } from '../devices/device-access';
import type { DeviceRef } from '../devices/device-ref';
import { products } from '../products/products.table';
import { deviceEvents } from './device-events.table';
import { productEvents } from './thing-model.table';
import { readModel } from './thing-model.service';

/**
 * Thing model events on devices: what a device reports on `P/up/event` (checked against its product's model, stored,
 * pushed to the browsers that may see the device) and the reads of whoever may view a device: its occurrences and
 * its product's model.
 */

const issues = (err: z.ZodError) =>
  err.issues.slice(0, 5).map((i) => ({ field: i.path.join('.'), message: i.message }));

/**
 * Stores one `P/up/event` message of a device (the gateway acknowledges it once this resolves). A payload that breaks
 * the schema, an event the product's thing model does not define, or parameters that do not match the event's
 * output parameters are refused with 10113: dropped, counted as invalid and written to the device log.
 */
export async function recordDeviceEvent(
  deps: Pick<Deps, 'db' | 'now' | 'events'>,
  device: DeviceRef,
  json: unknown,
): Promise<void> {
  const parsed = eventUp.safeParse(json);
  if (!parsed.success)
    throw new Rejection('event payload does not match the schema', 10113, issues(parsed.error));
  const msg = parsed.data;
  const [row] = await deps.db
    .select({ level: productEvents.level, output: productEvents.output })
    .from(productEvents)
    .innerJoin(products, eq(products.id, productEvents.productId))
    .where(and(eq(products.productKey, device.productKey), eq(productEvents.key, msg.event)));
  if (!row) throw new Rejection(`the thing model has no event "${msg.event}"`, 10113);
  const definition = modelEvent.parse({
    key: msg.event,
    name: msg.event,
    level: row.level,
    output: row.output,
  });
  const params = eventParamsSchema(definition).safeParse(msg.params);
  if (!params.success)
    throw new Rejection(
      `parameters of event "${msg.event}" do not match the thing model`,
      10113,
      issues(params.error),
    );
  const ts = new Date(msg.ts ?? deps.now().getTime());
  const [stored] = await deps.db
    .insert(deviceEvents)
    .values({ deviceId: device.id, event: msg.event, level: definition.level, params: params.data, ts })
    .returning({ id: deviceEvents.id });
  await deps.events.emitDurable({
    type: 'event.recorded',
    device,
    event: msg.event,
    level: definition.level,
    params: params.data as Record<string, unknown>,
    ts: ts.getTime(),
  });
  deps.events.publish(
    {
      type: 'device.event',
      sn: device.sn,
      product_key: device.productKey,
      id: stored!.id,
      event: msg.event,
      level: definition.level,
      params: params.data,
      ts: ts.toISOString(),
    },
    { uid: device.uid },
  );
}

/** A device's event occurrences, newest first (device time), by event key and time range. */
export async function listDeviceEvents(
  deps: Deps,
  actor: Actor,
  sn: string,
  query: DeviceEventsQuery,
): Promise<{ items: DeviceEventItem[]; total: number }> {
  const device = await accessibleDevice(deps.db, actor, sn, 'view');
  const conditions: SQL[] = [eq(deviceEvents.deviceId, device.id)];
  if (query.event) conditions.push(eq(deviceEvents.event, query.event));
  if (query.from) conditions.push(gte(deviceEvents.ts, new Date(query.from)));
  if (query.to) conditions.push(lte(deviceEvents.ts, new Date(query.to)));
  const where = and(...conditions);
  const [rows, [total], names] = await Promise.all([
    deps.db
      .select()
      .from(deviceEvents)
      .where(where)
      .orderBy(desc(deviceEvents.ts), desc(deviceEvents.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(deviceEvents).where(where),
    deps.db
      .select({ key: productEvents.key, name: productEvents.name, nameUs: productEvents.nameUs })
      .from(productEvents)
      .innerJoin(products, eq(products.id, productEvents.productId))
      .where(eq(products.productKey, device.productKey)),
  ]);
  const byKey = new Map(names.map((n) => [n.key, n]));
  return {
    items: rows.map((r) => ({
      id: r.id,
      event: r.event,
      name: byKey.get(r.event)?.name ?? r.event,
      name_us: byKey.get(r.event)?.nameUs ?? '',
      level: r.level,
      params: r.params,
      ts: r.ts.toISOString(),
      received_at: r.receivedAt.toISOString(),
    })),
    total: total?.n ?? 0,
  };
}

/** The thing model of the device's product (properties, events, services), for whoever may view the device. */
export async function getDeviceThingModel(deps: Deps, actor: Actor, sn: string): Promise<ThingModel> {
  const device = await accessibleDevice(deps.db, actor, sn, 'view');
  const [product] = await deps.db
    .select({ id: products.id, productKey: products.productKey, name: products.name })
    .from(products)
    .where(eq(products.productKey, device.productKey));
  if (!product)
    return { product_key: device.productKey, product_name: '', properties: [], events: [], services: [] };
  return {
    product_key: product.productKey,
    product_name: product.name,
    ...(await readModel(deps.db, product.id)),
  };
}
