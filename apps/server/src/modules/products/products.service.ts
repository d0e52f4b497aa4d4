import { randomBytes } from 'node:crypto';
import { and, asc, count, desc, eq, ilike, inArray, or, type SQL } from 'drizzle-orm';
import {
  type productCreateBody,
  type ProductDetail,
  type ProductItem,
  type ProductListQuery,
  type ProductProperty,
  type productUpdateBody,
} from '@cellhub/contract/products';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { writeAudit } from '../audit/audit.service';
import { devices } from '../devices/devices.table';
import { isUniqueViolation } from '../users/users.service';
import { productProperties, type ProductPropertyRow, products, type ProductRow } from './products.table';

const secretContext = (productKey: string) => `product:${productKey}`;

/** Users see their own products; admins all. Anything else answers like a missing product. */
const visibleTo = (actor: Actor): SQL | undefined =>
  actor.role === 'admin' ? undefined : eq(products.uid, actor.uid);

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function toItem(p: ProductRow, deviceCount: number): ProductItem {
  return {
    id: p.id,
    name: p.name,
    product_key: p.productKey,
    nodetype: p.nodetype,
    protocol: p.protocol,
    dataformat: p.dataformat,
    product_code: p.productCode,
    description: p.description,
    mqtt_interval: p.mqttInterval,
    property_interval: p.propertyInterval,
    config_post_size: p.configPostSize,
    uid: p.uid,
    device_count: deviceCount,
    createdat: p.createdat.toISOString(),
    updatedat: p.updatedat.toISOString(),
  };
}

const toProperty = (r: ProductPropertyRow): ProductProperty => ({
  key: r.key,
  name: r.name,
  name_us: r.nameUs,
  charttype: r.charttype,
  datatype: r.datatype,
  unit: r.unit,
  cycles: r.cycles,
});

async function deviceCounts(db: DbOrTx, keys: string[]): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .select({ key: devices.productKey, n: count() })
    .from(devices)
    .where(inArray(devices.productKey, keys))
    .groupBy(devices.productKey);
  return new Map(rows.map((r) => [r.key, r.n]));
}

export async function listProductProperties(db: DbOrTx, productId: number): Promise<ProductProperty[]> {
  const rows = await db
    .select()
    .from(productProperties)
    .where(eq(productProperties.productId, productId))
    .orderBy(asc(productProperties.position));
  return rows.map(toProperty);
}

async function toDetail(deps: Deps, p: ProductRow): Promise<ProductDetail> {
  const [counts, properties] = await Promise.all([
    deviceCounts(deps.db, [p.productKey]),
    listProductProperties(deps.db, p.id),
  ]);
  return {
    ...toItem(p, counts.get(p.productKey) ?? 0),
    product_secret: deps.box.decrypt(p.productSecret, secretContext(p.productKey)),
    properties,
  };
}

/** The product row if the actor may see it, else 10107 (the same answer as "does not exist"). */
export async function visibleProduct(deps: Deps, actor: Actor, productKey: string): Promise<ProductRow> {
  const [row] = await deps.db
    .select()
    .from(products)
    .where(and(eq(products.productKey, productKey), visibleTo(actor)));
  if (!row) throw new AppError(10107);
  return row;
}

export async function findProductByKey(db: DbOrTx, productKey: string): Promise<ProductRow | undefined> {
  const [row] = await db.select().from(products).where(eq(products.productKey, productKey));
  return row;
}

/** The registration secret of a product, decrypted (dynamic registration). */
export const productSecretOf = (deps: Deps, p: ProductRow): string =>
  deps.box.decrypt(p.productSecret, secretContext(p.productKey));

const newProductKey = () => `pk${randomBytes(8).toString('hex')}`;

async function replaceProperties(db: DbOrTx, productId: number, list: ProductProperty[]): Promise<void> {
  await db.delete(productProperties).where(eq(productProperties.productId, productId));
  if (list.length === 0) return;
  await db.insert(productProperties).values(
    list.map((p, position) => ({
      productId,
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
}

export async function createProduct(
  deps: Deps,
  actor: Actor,
  input: z.infer<typeof productCreateBody>,
): Promise<ProductDetail> {
  const productKey = input.product_key ?? newProductKey();
  const secret = randomBytes(24).toString('base64url');
  let row: ProductRow | undefined;
  try {
    row = await deps.db.transaction(async (tx) => {
      const [created] = await tx
        .insert(products)
        .values({
          name: input.name,
          productKey,
          productSecret: deps.box.encrypt(secret, secretContext(productKey)),
          uid: actor.uid,
          nodetype: input.nodetype,
          protocol: input.protocol,
          dataformat: input.dataformat,
          productCode: input.product_code,
          description: input.description,
          mqttInterval: input.mqtt_interval,
          propertyInterval: input.property_interval,
          configPostSize: input.config_post_size,
        })
        .returning();
      if (!created) throw new AppError(10109);
      await replaceProperties(tx, created.id, input.properties);
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'product_create',
        target: `product:${productKey}`,
        ip: actor.ip,
        detail: { name: input.name },
      });
      return created;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError(70002, 400, 'A product with this product_key exists');
    throw err;
  }
  return toDetail(deps, row);
}

export async function listProducts(
  deps: Deps,
  actor: Actor,
  query: ProductListQuery,
): Promise<{ items: ProductItem[]; total: number }> {
  const conditions: (SQL | undefined)[] = [visibleTo(actor)];
  if (query.keyword) {
    const like = `%${escapeLike(query.keyword)}%`;
    conditions.push(or(ilike(products.name, like), ilike(products.productKey, like)));
  }
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(products)
      .where(where)
      .orderBy(desc(products.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(products).where(where),
  ]);
  const counts = await deviceCounts(
    deps.db,
    rows.map((r) => r.productKey),
  );
  return { items: rows.map((r) => toItem(r, counts.get(r.productKey) ?? 0)), total: total?.n ?? 0 };
}

export async function getProduct(deps: Deps, actor: Actor, productKey: string): Promise<ProductDetail> {
  return toDetail(deps, await visibleProduct(deps, actor, productKey));
}

export async function updateProduct(
  deps: Deps,
  actor: Actor,
  productKey: string,
  input: z.infer<typeof productUpdateBody>,
): Promise<ProductDetail> {
  const product = await visibleProduct(deps, actor, productKey);
  const row = await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(products)
      .set({
        name: input.name,
        nodetype: input.nodetype,
        protocol: input.protocol,
        dataformat: input.dataformat,
        productCode: input.product_code,
        description: input.description,
        mqttInterval: input.mqtt_interval,
        propertyInterval: input.property_interval,
        configPostSize: input.config_post_size,
      })
      .where(eq(products.id, product.id))
      .returning();
    if (input.properties) await replaceProperties(tx, product.id, input.properties);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'product_update',
      target: `product:${productKey}`,
      ip: actor.ip,
      detail: { fields: Object.keys(input) },
    });
    return updated ?? product;
  });
  return toDetail(deps, row);
}

/** A product with devices cannot be deleted (10112): its devices would lose their topics. */
export async function deleteProduct(deps: Deps, actor: Actor, productKey: string): Promise<void> {
  const product = await visibleProduct(deps, actor, productKey);
  const counts = await deviceCounts(deps.db, [productKey]);
  if ((counts.get(productKey) ?? 0) > 0) {
    throw new AppError(10112, 400, 'Delete the devices of this product first');
  }
  await deps.db.transaction(async (tx) => {
    await tx.delete(products).where(eq(products.id, product.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'product_delete',
      target: `product:${productKey}`,
      ip: actor.ip,
    });
  });
}

/** Datatype per property key of a product; empty when the product defines none (then any key is accepted). */
export async function propertyRulesOf(
  db: DbOrTx,
  productKey: string,
): Promise<Map<string, ProductProperty['datatype']>> {
  const rows = await db
    .select({ key: productProperties.key, datatype: productProperties.datatype })
    .from(productProperties)
    .innerJoin(products, eq(products.id, productProperties.productId))
    .where(eq(products.productKey, productKey));
  return new Map(rows.map((r) => [r.key, r.datatype]));
}
