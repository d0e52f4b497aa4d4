import { and, count, desc, eq, ilike, inArray, type SQL } from 'drizzle-orm';
import {
  PLATFORM_SECRET_FIELDS,
  SECRET_MASK,
  type PlatformBodyParsed,
  type PlatformItem,
  type PlatformListQuery,
  type PlatformOption,
  type PlatformType,
} from '@cellhub/contract/platforms';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { openToSignedIn, requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { writeAudit } from '../audit/audit.service';
import { products } from '../products/products.table';
import { type PlatformRow, platforms } from './platforms.table';

const secretsContext = (id: number) => `platform:${id}`;
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Splits a platform_config into what may be stored in clear and the secret fields. */
function split(
  type: PlatformType,
  config: Record<string, unknown>,
): { plain: Record<string, unknown>; secret: Record<string, string> } {
  const plain: Record<string, unknown> = {};
  const secret: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) {
    if (PLATFORM_SECRET_FIELDS[type].includes(k)) secret[k] = typeof v === 'string' ? v : '';
    else plain[k] = v;
  }
  return { plain, secret };
}

export function platformSecrets(deps: Deps, row: PlatformRow): Record<string, string> {
  if (!row.secrets) return {};
  return JSON.parse(deps.box.decrypt(row.secrets, secretsContext(row.id))) as Record<string, string>;
}

/** The whole platform_config with its secrets, for computing device parameters. Never leaves the server. */
export function platformConfigOf(deps: Deps, row: PlatformRow): Record<string, unknown> {
  return { ...row.config, ...platformSecrets(deps, row) };
}

function masked(deps: Deps, row: PlatformRow): Record<string, unknown> {
  const secrets = platformSecrets(deps, row);
  const out: Record<string, unknown> = { ...row.config };
  for (const field of PLATFORM_SECRET_FIELDS[row.platformType])
    out[field] = secrets[field] ? SECRET_MASK : '';
  return out;
}

function toItem(deps: Deps, row: PlatformRow, productCount: number): PlatformItem {
  return {
    id: row.id,
    name: row.name,
    platform_type: row.platformType,
    platform_config: masked(deps, row),
    product_count: productCount,
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

async function productCounts(db: DbOrTx, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: products.iotPlatformId, n: count() })
    .from(products)
    .where(inArray(products.iotPlatformId, ids))
    .groupBy(products.iotPlatformId);
  return new Map(rows.map((r) => [r.id ?? 0, r.n]));
}

export async function findPlatform(db: DbOrTx, id: number): Promise<PlatformRow | undefined> {
  const [row] = await db.select().from(platforms).where(eq(platforms.id, id));
  return row;
}

async function existingPlatform(deps: Deps, id: number): Promise<PlatformRow> {
  const row = await findPlatform(deps.db, id);
  if (!row) throw new AppError(10107);
  return row;
}

export async function listPlatforms(
  deps: Deps,
  actor: Actor,
  query: PlatformListQuery,
): Promise<{ items: PlatformItem[]; total: number }> {
  requireAdmin(actor);
  const conditions: (SQL | undefined)[] = [];
  if (query.keyword) conditions.push(ilike(platforms.name, `%${escapeLike(query.keyword)}%`));
  if (query.platform_type) conditions.push(eq(platforms.platformType, query.platform_type));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(platforms)
      .where(where)
      .orderBy(desc(platforms.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(platforms).where(where),
  ]);
  const counts = await productCounts(
    deps.db,
    rows.map((r) => r.id),
  );
  return { items: rows.map((r) => toItem(deps, r, counts.get(r.id) ?? 0)), total: total?.n ?? 0 };
}

/** Names and types only, for any signed-in user binding a product. */
/** Names and types only, for binding a product: every signed-in user may read them. */
export async function listPlatformOptions(deps: Deps, actor: Actor): Promise<PlatformOption[]> {
  openToSignedIn(actor);
  const rows = await deps.db
    .select({ id: platforms.id, name: platforms.name, platform_type: platforms.platformType })
    .from(platforms)
    .orderBy(desc(platforms.id))
    .limit(500);
  return rows;
}

export async function getPlatform(deps: Deps, actor: Actor, id: number): Promise<PlatformItem> {
  requireAdmin(actor);
  const row = await existingPlatform(deps, id);
  const counts = await productCounts(deps.db, [id]);
  return toItem(deps, row, counts.get(id) ?? 0);
}

export async function createPlatform(
  deps: Deps,
  actor: Actor,
  input: PlatformBodyParsed,
): Promise<PlatformItem> {
  requireAdmin(actor);
  const { plain, secret } = split(input.platform_type, input.platform_config);
  const row = await deps.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(platforms)
      .values({ name: input.name, platformType: input.platform_type, config: plain })
      .returning();
    if (!created) throw new AppError(10109);
    const filled = Object.fromEntries(Object.entries(secret).filter(([, v]) => v && v !== SECRET_MASK));
    const [sealed] = await tx
      .update(platforms)
      .set({ secrets: deps.box.encrypt(JSON.stringify(filled), secretsContext(created.id)) })
      .where(eq(platforms.id, created.id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'platform_create',
      target: `platform:${created.id}`,
      ip: actor.ip,
      detail: { name: input.name, platform_type: input.platform_type },
    });
    return sealed ?? created;
  });
  return toItem(deps, row, 0);
}

/**
 * Replaces name and platform_config. A secret field sent as SECRET_MASK keeps its stored value, so the console can
 * send back the form it was given. The type cannot change while products are bound (their configs are per type).
 */
export async function updatePlatform(
  deps: Deps,
  actor: Actor,
  id: number,
  input: PlatformBodyParsed,
): Promise<{ item: PlatformItem; changed: boolean }> {
  requireAdmin(actor);
  const row = await existingPlatform(deps, id);
  const counts = await productCounts(deps.db, [id]);
  const bound = counts.get(id) ?? 0;
  if (input.platform_type !== row.platformType && bound > 0) {
    throw new AppError(10110, 400, 'Unbind the products of this platform before changing its type', [
      { field: 'platform_type', message: 'products are bound to this platform' },
    ]);
  }
  const old = row.platformType === input.platform_type ? platformSecrets(deps, row) : {};
  const { plain, secret } = split(input.platform_type, input.platform_config);
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries(secret)) {
    const value = v === SECRET_MASK ? (old[k] ?? '') : v;
    if (value) merged[k] = value;
  }
  const updated = await deps.db.transaction(async (tx) => {
    const [u] = await tx
      .update(platforms)
      .set({
        name: input.name,
        platformType: input.platform_type,
        config: plain,
        secrets: deps.box.encrypt(JSON.stringify(merged), secretsContext(id)),
      })
      .where(eq(platforms.id, id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'platform_update',
      target: `platform:${id}`,
      ip: actor.ip,
      detail: { name: input.name, platform_type: input.platform_type },
    });
    return u ?? row;
  });
  const changed =
    JSON.stringify(platformConfigOf(deps, row)) !== JSON.stringify(platformConfigOf(deps, updated)) ||
    row.platformType !== updated.platformType;
  return { item: toItem(deps, updated, bound), changed };
}

/** Refused (10112, details.product_count) while products are bound to it. */
export async function deletePlatform(deps: Deps, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await existingPlatform(deps, id);
  const counts = await productCounts(deps.db, [id]);
  const bound = counts.get(id) ?? 0;
  if (bound > 0) {
    throw new AppError(10112, 400, 'Unbind the products of this platform first', { product_count: bound });
  }
  await deps.db.transaction(async (tx) => {
    await tx.delete(platforms).where(eq(platforms.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'platform_delete',
      target: `platform:${id}`,
      ip: actor.ip,
    });
  });
}
