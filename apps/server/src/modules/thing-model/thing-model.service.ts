import { asc, eq } from 'drizzle-orm';
import { productProperty } from '@cellhub/contract/products';
import {
  diffModels,
  modelEvent,
  modelService,
  type ThingModel,
  type ThingModelDiff,
  type thingModelBody,
} from '@cellhub/contract/thing-model';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { writeAudit } from '../audit/audit.service';
import { productProperties, products } from '../products/products.table';
import { productEvents, productServices } from './thing-model.table';

/**
 * The thing model of a product: its properties (the product's property table, the same rows the product pages edit)
 * plus events and services (this module's tables). Admins read, export and import it; an import replaces all three
 * lists in one transaction. Stored values pass through the contract's schemas so exports and diffs have one shape.
 */

type Model = Pick<ThingModel, 'properties' | 'events' | 'services'>;

async function productOf(db: DbOrTx, productKey: string) {
  const [row] = await db
    .select({ id: products.id, productKey: products.productKey, name: products.name })
    .from(products)
    .where(eq(products.productKey, productKey));
  if (!row) throw new AppError(10107);
  return row;
}

export async function readModel(db: DbOrTx, productId: number): Promise<Model> {
  // One after another: `db` may be a transaction, whose one connection takes a query at a time (node-postgres
  // queues overlapping ones today and will refuse them from pg 9).
  const props = await db
    .select()
    .from(productProperties)
    .where(eq(productProperties.productId, productId))
    .orderBy(asc(productProperties.position), asc(productProperties.key));
  const events = await db
    .select()
    .from(productEvents)
    .where(eq(productEvents.productId, productId))
    .orderBy(asc(productEvents.position));
  const services = await db
    .select()
    .from(productServices)
    .where(eq(productServices.productId, productId))
    .orderBy(asc(productServices.position));
  return {
    properties: props.map((p) =>
      productProperty.parse({
        key: p.key,
        name: p.name,
        name_us: p.nameUs,
        charttype: p.charttype,
        datatype: p.datatype,
        unit: p.unit,
        cycles: p.cycles,
      }),
    ),
    events: events.map((e) =>
      modelEvent.parse({ key: e.key, name: e.name, name_us: e.nameUs, level: e.level, output: e.output }),
    ),
    services: services.map((s) =>
      modelService.parse({ key: s.key, name: s.name, name_us: s.nameUs, input: s.input, output: s.output }),
    ),
  };
}

export async function getThingModel(deps: Deps, actor: Actor, productKey: string): Promise<ThingModel> {
  requireAdmin(actor);
  const product = await productOf(deps.db, productKey);
  return {
    product_key: product.productKey,
    product_name: product.name,
    ...(await readModel(deps.db, product.id)),
  };
}

const normalise = (body: z.output<typeof thingModelBody>): Model => ({
  properties: body.properties,
  events: body.events.map((e) => modelEvent.parse(e)),
  services: body.services.map((s) => modelService.parse(s)),
});

/** What importing `body` would change, by key (nothing is written). */
export async function previewThingModel(
  deps: Deps,
  actor: Actor,
  productKey: string,
  body: z.output<typeof thingModelBody>,
): Promise<ThingModelDiff> {
  requireAdmin(actor);
  const product = await productOf(deps.db, productKey);
  return diffModels(await readModel(deps.db, product.id), normalise(body));
}

/** Replaces the product's properties, events and services with the imported model, in one transaction. */
export async function importThingModel(
  deps: Deps,
  actor: Actor,
  productKey: string,
  body: z.output<typeof thingModelBody>,
): Promise<ThingModel> {
  requireAdmin(actor);
  const product = await productOf(deps.db, productKey);
  const next = normalise(body);
  await deps.db.transaction(async (tx) => {
    const diff = diffModels(await readModel(tx, product.id), next);
    await tx.delete(productProperties).where(eq(productProperties.productId, product.id));
    await tx.delete(productEvents).where(eq(productEvents.productId, product.id));
    await tx.delete(productServices).where(eq(productServices.productId, product.id));
    if (next.properties.length > 0)
      await tx.insert(productProperties).values(
        next.properties.map((p, position) => ({
          productId: product.id,
          key: p.key,
          name: p.name,
          nameUs: p.name_us,
          charttype: p.charttype,
          datatype: p.datatype,
          unit: p.unit,
          cycles: p.cycles,
          position,
        })),
      );
    if (next.events.length > 0)
      await tx.insert(productEvents).values(
        next.events.map((e, position) => ({
          productId: product.id,
          key: e.key,
          name: e.name,
          nameUs: e.name_us,
          level: e.level,
          output: e.output,
          position,
        })),
      );
    if (next.services.length > 0)
      await tx.insert(productServices).values(
        next.services.map((s, position) => ({
          productId: product.id,
          key: s.key,
          name: s.name,
          nameUs: s.name_us,
          input: s.input,
          output: s.output,
          position,
        })),
      );
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'thing_model_import',
      target: `product:${product.productKey}`,
      ip: actor.ip,
      detail: diff,
    });
  });
  return getThingModel(deps, actor, productKey);
}
