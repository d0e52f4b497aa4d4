import { and, count, desc, eq, ilike, inArray, or, type SQL } from 'drizzle-orm';
import type {
  FeaturePanel,
  ProductFeatureItem,
  ProductFeatureListQuery,
  productFeatureBody,
} from '@cellhub/contract/product-features';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { products } from '../products/products.table';
import { isUniqueViolation } from '../users/users.service';
import { productFeatureLinks, type ProductFeatureRow, productFeatures } from './product-features.table';

/**
 * Product features: admins define capability flags and assign them to products. `panelEnabled` is the one rule the
 * device-page areas ask: a product without features shows every panel; with features, a gated panel shows only when
 * one of them enables it.
 */

type Body = z.output<typeof productFeatureBody>;

async function productsOf(db: DbOrTx, ids: number[]) {
  if (ids.length === 0) return new Map<number, { product_key: string; name: string }[]>();
  const rows = await db
    .select({
      featureId: productFeatureLinks.featureId,
      productKey: products.productKey,
      name: products.name,
    })
    .from(productFeatureLinks)
    .innerJoin(products, eq(products.id, productFeatureLinks.productId))
    .where(inArray(productFeatureLinks.featureId, ids))
    .orderBy(products.name);
  const out = new Map<number, { product_key: string; name: string }[]>();
  for (const r of rows) {
    const list = out.get(r.featureId) ?? [];
    list.push({ product_key: r.productKey, name: r.name });
    out.set(r.featureId, list);
  }
  return out;
}

function toItem(row: ProductFeatureRow, list: { product_key: string; name: string }[]): ProductFeatureItem {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    name_us: row.nameUs,
    description: row.description,
    panels: row.panels,
    products: list,
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

export async function listProductFeatures(
  deps: Deps,
  actor: Actor,
  query: ProductFeatureListQuery,
): Promise<{ items: ProductFeatureItem[]; total: number }> {
  requireAdmin(actor);
  const filters: (SQL | undefined)[] = [];
  if (query.keyword) {
    const like = likeKeyword(query.keyword);
    filters.push(or(ilike(productFeatures.key, like), ilike(productFeatures.name, like)));
  }
  if (query.product_key) {
    filters.push(
      inArray(
        productFeatures.id,
        deps.db
          .select({ id: productFeatureLinks.featureId })
          .from(productFeatureLinks)
          .innerJoin(products, eq(products.id, productFeatureLinks.productId))
          .where(eq(products.productKey, query.product_key)),
      ),
    );
  }
  const where = and(...filters);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(productFeatures)
      .where(where)
      .orderBy(desc(productFeatures.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(productFeatures).where(where),
  ]);
  const links = await productsOf(
    deps.db,
    rows.map((r) => r.id),
  );
  return { items: rows.map((r) => toItem(r, links.get(r.id) ?? [])), total: total?.n ?? 0 };
}

async function featureById(db: DbOrTx, id: number): Promise<ProductFeatureRow> {
  const [row] = await db.select().from(productFeatures).where(eq(productFeatures.id, id));
  if (!row) throw new AppError(10107);
  return row;
}

export async function getProductFeature(deps: Deps, actor: Actor, id: number): Promise<ProductFeatureItem> {
  requireAdmin(actor);
  const row = await featureById(deps.db, id);
  return toItem(row, (await productsOf(deps.db, [id])).get(id) ?? []);
}

/** Product ids of the keys; 10107 naming the first unknown one. */
async function productIds(db: DbOrTx, keys: string[]): Promise<number[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .select({ id: products.id, key: products.productKey })
    .from(products)
    .where(inArray(products.productKey, keys));
  const missing = keys.find((k) => !rows.some((r) => r.key === k));
  if (missing)
    throw new AppError(10107, 400, `No product with product_key ${missing}`, [
      { field: 'product_keys', message: missing },
    ]);
  return rows.map((r) => r.id);
}

async function writeLinks(db: DbOrTx, featureId: number, ids: number[]): Promise<void> {
  await db.delete(productFeatureLinks).where(eq(productFeatureLinks.featureId, featureId));
  if (ids.length > 0)
    await db.insert(productFeatureLinks).values(ids.map((productId) => ({ featureId, productId })));
}

const duplicate = () =>
  new AppError(70002, 400, 'A feature with this key exists', [{ field: 'key', message: 'exists' }]);

export async function createProductFeature(
  deps: Deps,
  actor: Actor,
  body: Body,
): Promise<ProductFeatureItem> {
  requireAdmin(actor);
  try {
    const id = await deps.db.transaction(async (tx) => {
      const ids = await productIds(tx, body.product_keys);
      const [made] = await tx
        .insert(productFeatures)
        .values({
          key: body.key,
          name: body.name,
          nameUs: body.name_us,
          description: body.description,
          panels: body.panels,
        })
        .returning();
      if (!made) throw new AppError(10109);
      await writeLinks(tx, made.id, ids);
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'product_feature_create',
        target: `product-feature:${made.id}`,
        ip: actor.ip,
        detail: { key: made.key, products: body.product_keys },
      });
      return made.id;
    });
    return getProductFeature(deps, actor, id);
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate();
    throw err;
  }
}

export async function updateProductFeature(
  deps: Deps,
  actor: Actor,
  id: number,
  body: Body,
): Promise<ProductFeatureItem> {
  requireAdmin(actor);
  await featureById(deps.db, id);
  try {
    await deps.db.transaction(async (tx) => {
      const ids = await productIds(tx, body.product_keys);
      await tx
        .update(productFeatures)
        .set({
          key: body.key,
          name: body.name,
          nameUs: body.name_us,
          description: body.description,
          panels: body.panels,
          updatedat: deps.now(),
        })
        .where(eq(productFeatures.id, id));
      await writeLinks(tx, id, ids);
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'product_feature_update',
        target: `product-feature:${id}`,
        ip: actor.ip,
        detail: { key: body.key, products: body.product_keys },
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate();
    throw err;
  }
  return getProductFeature(deps, actor, id);
}

export async function deleteProductFeature(deps: Deps, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  const row = await featureById(deps.db, id);
  await deps.db.transaction(async (tx) => {
    await tx.delete(productFeatures).where(eq(productFeatures.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'product_feature_delete',
      target: `product-feature:${id}`,
      ip: actor.ip,
      detail: { key: row.key },
    });
  });
}

/**
 * Whether the product's devices show `panel`: yes when the product has no features at all (nothing was said about
 * it), otherwise only when one of its features enables the panel.
 */
export async function panelEnabled(db: DbOrTx, productId: number, panel: FeaturePanel): Promise<boolean> {
  const rows = await db
    .select({ panels: productFeatures.panels })
    .from(productFeatureLinks)
    .innerJoin(productFeatures, eq(productFeatures.id, productFeatureLinks.featureId))
    .where(eq(productFeatureLinks.productId, productId));
  return rows.length === 0 || rows.some((r) => r.panels.includes(panel));
}
