import { randomBytes } from 'node:crypto';
import { and, asc, count, desc, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { PlatformType } from '@cellhub/contract/platforms';
import {
  type productCreateBody,
  type ProductAccess,
  type ProductDetail,
  type ProductItem,
  type ProductListQuery,
  type ProductProperty,
  type productUpdateBody,
} from '@cellhub/contract/products';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError, formError } from '../../lib/app-error';
import { ownerFilter, ownerOfNew, owns, productRight, visibleOwned } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { writeAudit } from '../audit/audit.service';
import { writeDeviceLog } from '../device-log/device-log.service';
import { visibleDevices } from '../devices/device-access';
import { devices } from '../devices/devices.table';
import { syncProductPlatformParams, validateBinding } from '../platforms/platform-params.service';
import { platforms } from '../platforms/platforms.table';
import { isUniqueViolation } from '../users/users.service';
import { productEvents, productServices } from '../thing-model/thing-model.table';
import { productProperties, type ProductPropertyRow, products, type ProductRow } from './products.table';

const secretContext = (productKey: string) => `product:${productKey}`;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

interface ProductStats {
  devices: number;
  different: number;
}
interface PlatformRef {
  name: string;
  type: PlatformType;
}

function toItem(
  p: ProductRow,
  stats: ProductStats | undefined,
  platform: PlatformRef | undefined,
): ProductItem {
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
    retention_days: p.retentionDays,
    iot_platform_id: p.iotPlatformId,
    iot_platform_name: platform?.name ?? '',
    iot_platform_type: platform?.type ?? null,
    uid: p.uid,
    device_count: stats?.devices ?? 0,
    config_version_different: stats?.different ?? 0,
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

/** Device figures per product key; `within` narrows them (to the devices a `view` caller may see). */
async function deviceStats(db: DbOrTx, keys: string[], within?: SQL): Promise<Map<string, ProductStats>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .select({
      key: devices.productKey,
      n: count(),
      different: sql<number>`count(*) filter (where ${devices.configVersionDifferent})`.mapWith(Number),
    })
    .from(devices)
    .where(and(inArray(devices.productKey, keys), within))
    .groupBy(devices.productKey);
  return new Map(rows.map((r) => [r.key, { devices: r.n, different: r.different }]));
}

async function platformRefs(db: DbOrTx, ids: (number | null)[]): Promise<Map<number, PlatformRef>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db
    .select({ id: platforms.id, name: platforms.name, type: platforms.platformType })
    .from(platforms)
    .where(inArray(platforms.id, wanted));
  return new Map(rows.map((r) => [r.id, { name: r.name, type: r.type }]));
}

export async function listProductProperties(db: DbOrTx, productId: number): Promise<ProductProperty[]> {
  const rows = await db
    .select()
    .from(productProperties)
    .where(eq(productProperties.productId, productId))
    .orderBy(asc(productProperties.position));
  return rows.map(toProperty);
}

/**
 * The product as `access` may read it: `view` (a user with a device of it) gets no secret, platform configuration or
 * default device configuration, and device figures over their own devices only, so nothing of the owner's leaks.
 */
async function toDetail(
  deps: Deps,
  p: ProductRow,
  access: ProductAccess = 'manage',
  actor?: Actor,
): Promise<ProductDetail> {
  const viewer = access === 'view' && actor !== undefined;
  const [stats, properties, refs] = await Promise.all([
    deviceStats(deps.db, [p.productKey], viewer ? visibleDevices(actor) : undefined),
    listProductProperties(deps.db, p.id),
    platformRefs(deps.db, [p.iotPlatformId]),
  ]);
  return {
    ...toItem(p, stats.get(p.productKey), p.iotPlatformId ? refs.get(p.iotPlatformId) : undefined),
    product_secret: viewer ? '' : deps.box.decrypt(p.productSecret, secretContext(p.productKey)),
    properties,
    iot_platform_config: viewer ? {} : p.iotPlatformConfig,
    device_config: viewer ? {} : p.deviceConfig,
    access: viewer ? 'view' : 'manage',
  };
}

/** The product row if the actor may see it (own, or any for admins), else 10107 as if it did not exist. */
export async function visibleProduct(deps: Deps, actor: Actor, productKey: string): Promise<ProductRow> {
  return visibleOwned(actor, await findProductByKey(deps.db, productKey), 10107);
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
  const binding = await validateBinding(deps, input.iot_platform_id, input.iot_platform_config);
  let row: ProductRow | undefined;
  try {
    row = await deps.db.transaction(async (tx) => {
      const [created] = await tx
        .insert(products)
        .values({
          name: input.name,
          productKey,
          productSecret: deps.box.encrypt(secret, secretContext(productKey)),
          uid: ownerOfNew(actor),
          nodetype: input.nodetype,
          protocol: input.protocol,
          dataformat: input.dataformat,
          productCode: input.product_code,
          description: input.description,
          mqttInterval: input.mqtt_interval,
          propertyInterval: input.property_interval,
          configPostSize: input.config_post_size,
          retentionDays: input.retention_days,
          iotPlatformId: input.iot_platform_id,
          iotPlatformConfig: binding,
          deviceConfig: input.device_config,
        })
        .returning();
      if (!created) throw new AppError(10109);
      await replaceProperties(tx, created.id, input.properties);
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'product_create',
        target: `product:${productKey}`,
        ip: actor.ip,
        detail: { name: input.name, iot_platform_id: input.iot_platform_id },
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
  const conditions: (SQL | undefined)[] = [ownerFilter(actor, products.uid)];
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
  const [stats, refs] = await Promise.all([
    deviceStats(
      deps.db,
      rows.map((r) => r.productKey),
    ),
    platformRefs(
      deps.db,
      rows.map((r) => r.iotPlatformId),
    ),
  ]);
  return {
    items: rows.map((r) =>
      toItem(r, stats.get(r.productKey), r.iotPlatformId ? refs.get(r.iotPlatformId) : undefined),
    ),
    total: total?.n ?? 0,
  };
}

/**
 * One product: in full for its owner and admins; read-only (`access: 'view'`) for a user who may view a device of
 * it; 10107 for anyone else, as if it did not exist.
 */
export async function getProduct(deps: Deps, actor: Actor, productKey: string): Promise<ProductDetail> {
  const row = await findProductByKey(deps.db, productKey);
  const viewsADevice =
    row !== undefined && !owns(actor, row) && (await viewsDeviceOf(deps.db, actor, productKey));
  const right = productRight(actor, row, viewsADevice);
  if (!row || right === 'none') throw new AppError(10107);
  return toDetail(deps, row, right, actor);
}

/** Whether the actor may view at least one device of the product (the layer's device rule, as a list filter). */
async function viewsDeviceOf(db: DbOrTx, actor: Actor, productKey: string): Promise<boolean> {
  const [row] = await db
    .select({ sn: devices.sn })
    .from(devices)
    .where(and(eq(devices.productKey, productKey), visibleDevices(actor)))
    .limit(1);
  return row !== undefined;
}

export async function updateProduct(
  deps: Deps,
  actor: Actor,
  productKey: string,
  input: z.infer<typeof productUpdateBody>,
): Promise<ProductDetail> {
  const product = await visibleProduct(deps, actor, productKey);
  const platformId = input.iot_platform_id === undefined ? product.iotPlatformId : input.iot_platform_id;
  const bindingTouched = input.iot_platform_id !== undefined || input.iot_platform_config !== undefined;
  const binding = bindingTouched
    ? await validateBinding(
        deps,
        platformId,
        input.iot_platform_config ?? (platformId === product.iotPlatformId ? product.iotPlatformConfig : {}),
      )
    : undefined;
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
        retentionDays: input.retention_days,
        iotPlatformId: bindingTouched ? platformId : undefined,
        iotPlatformConfig: binding,
        deviceConfig: input.device_config,
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
  if (
    bindingTouched &&
    (row.iotPlatformId !== product.iotPlatformId ||
      JSON.stringify(row.iotPlatformConfig) !== JSON.stringify(product.iotPlatformConfig))
  ) {
    await writeDeviceLog(deps.db, ...(await syncProductPlatformParams(deps, row)).log);
  }
  return toDetail(deps, row);
}

/** A product with devices cannot be deleted (10112): its devices would lose their topics. */
export async function deleteProduct(deps: Deps, actor: Actor, productKey: string): Promise<void> {
  const product = await visibleProduct(deps, actor, productKey);
  const stats = await deviceStats(deps.db, [productKey]);
  const deviceCount = stats.get(productKey)?.devices ?? 0;
  if (deviceCount > 0) {
    throw new AppError(10112, 400, `This product still has ${deviceCount} device(s); delete them first`, {
      device_count: deviceCount,
    });
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

/**
 * A new registration secret. Devices already registered keep working (they sign in with their own secret); only
 * dynamic registration with the old product secret stops.
 */
export async function rotateProductSecret(
  deps: Deps,
  actor: Actor,
  productKey: string,
): Promise<ProductDetail> {
  const product = await visibleProduct(deps, actor, productKey);
  const secret = randomBytes(24).toString('base64url');
  const row = await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(products)
      .set({ productSecret: deps.box.encrypt(secret, secretContext(productKey)) })
      .where(eq(products.id, product.id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'product_secret_rotate',
      target: `product:${productKey}`,
      ip: actor.ip,
    });
    return updated ?? product;
  });
  return toDetail(deps, row);
}

const MAX_PROPERTIES = 200;

async function saveProperties(
  deps: Deps,
  actor: Actor,
  product: ProductRow,
  list: ProductProperty[],
  detail: Record<string, unknown>,
): Promise<ProductDetail> {
  await deps.db.transaction(async (tx) => {
    await replaceProperties(tx, product.id, list);
    await tx.update(products).set({ updatedat: new Date() }).where(eq(products.id, product.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'product_update',
      target: `product:${product.productKey}`,
      ip: actor.ip,
      detail,
    });
  });
  return toDetail(deps, product);
}

/**
 * A property key is an identifier of the product's thing model: it may not be the key of one of its events or
 * services either (70002, `details: [{field: "key", message: "event_key" | "service_key"}]`).
 */
async function refuseModelKey(db: DbOrTx, productId: number, key: string): Promise<void> {
  const [event] = await db
    .select({ key: productEvents.key })
    .from(productEvents)
    .where(and(eq(productEvents.productId, productId), eq(productEvents.key, key)));
  if (event) {
    throw new AppError(70002, 400, 'An event of the thing model has this key', [
      { field: 'key', message: 'event_key' },
    ]);
  }
  const [service] = await db
    .select({ key: productServices.key })
    .from(productServices)
    .where(and(eq(productServices.productId, productId), eq(productServices.key, key)));
  if (service) {
    throw new AppError(70002, 400, 'A service of the thing model has this key', [
      { field: 'key', message: 'service_key' },
    ]);
  }
}

/** Adds one property; 70002 when the key exists (as a property, or as an event or service of the thing model). */
export async function addProductProperty(
  deps: Deps,
  actor: Actor,
  productKey: string,
  property: ProductProperty,
): Promise<ProductDetail> {
  const product = await visibleProduct(deps, actor, productKey);
  const list = await listProductProperties(deps.db, product.id);
  if (list.some((p) => p.key === property.key)) {
    throw new AppError(70002, 400, 'A property with this key exists', [{ field: 'key', message: 'exists' }]);
  }
  await refuseModelKey(deps.db, product.id, property.key);
  if (list.length >= MAX_PROPERTIES) throw formError('key', `at most ${MAX_PROPERTIES} properties`);
  return saveProperties(deps, actor, product, [...list, property], { property_add: property.key });
}

/** Changes one property in place (its key too); 10107 when it does not exist, 70002 when the new key is taken. */
export async function updateProductProperty(
  deps: Deps,
  actor: Actor,
  productKey: string,
  key: string,
  property: ProductProperty,
): Promise<ProductDetail> {
  const product = await visibleProduct(deps, actor, productKey);
  const list = await listProductProperties(deps.db, product.id);
  const index = list.findIndex((p) => p.key === key);
  if (index < 0) throw new AppError(10107);
  if (property.key !== key && list.some((p) => p.key === property.key)) {
    throw new AppError(70002, 400, 'A property with this key exists', [{ field: 'key', message: 'exists' }]);
  }
  if (property.key !== key) await refuseModelKey(deps.db, product.id, property.key);
  const next = list.map((p, i) => (i === index ? property : p));
  return saveProperties(deps, actor, product, next, { property_update: key });
}

export async function deleteProductProperty(
  deps: Deps,
  actor: Actor,
  productKey: string,
  key: string,
): Promise<ProductDetail> {
  const product = await visibleProduct(deps, actor, productKey);
  const list = await listProductProperties(deps.db, product.id);
  if (!list.some((p) => p.key === key)) throw new AppError(10107);
  return saveProperties(
    deps,
    actor,
    product,
    list.filter((p) => p.key !== key),
    { property_delete: key },
  );
}
