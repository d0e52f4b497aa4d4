import { and, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { PropertiesQuery, PropertyPoint, RawMessageItem } from '@cellhub/contract/devices';
import { HEX_RULE, MAX_RAW_BYTES, type PropertyValue } from '@cellhub/contract/protocol';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { accessibleDevice } from '../devices/device-access';
import { deviceProperties, devicePropertyLatest, rawMessages } from './telemetry.table';

const valueOf = (r: { num: number | null; txt: string | null; bool: boolean | null }): PropertyValue =>
  r.num ?? r.txt ?? r.bool ?? 0;

export async function latestProperties(db: DbOrTx, deviceId: number): Promise<PropertyPoint[]> {
  const rows = await db
    .select()
    .from(devicePropertyLatest)
    .where(eq(devicePropertyLatest.deviceId, deviceId))
    .orderBy(devicePropertyLatest.key);
  return rows.map((r) => ({ key: r.key, ts: r.ts.toISOString(), value: valueOf(r) }));
}

/** Latest values without `key`; history of one key (newest first) with it. */
export async function listProperties(
  deps: Deps,
  actor: Actor,
  sn: string,
  query: PropertiesQuery,
): Promise<{ items: PropertyPoint[]; total: number }> {
  const device = await accessibleDevice(deps.db, actor, sn, 'view');
  if (!query.key) {
    const items = await latestProperties(deps.db, device.id);
    return { items, total: items.length };
  }
  const conditions: SQL[] = [eq(deviceProperties.deviceId, device.id), eq(deviceProperties.key, query.key)];
  if (query.from) conditions.push(gte(deviceProperties.ts, new Date(query.from)));
  if (query.to) conditions.push(lte(deviceProperties.ts, new Date(query.to)));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(deviceProperties)
      .where(where)
      .orderBy(desc(deviceProperties.ts))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(deviceProperties).where(where),
  ]);
  return {
    items: rows.map((r) => ({ key: r.key, ts: r.ts.toISOString(), value: valueOf(r) })),
    total: total?.n ?? 0,
  };
}

/** Keeps raw bytes (up or down), cut at MAX_RAW_BYTES. */
export async function storeRaw(
  db: DbOrTx,
  deviceId: number,
  direction: 'up' | 'down',
  bytes: Buffer,
): Promise<void> {
  const truncated = bytes.length > MAX_RAW_BYTES;
  await db.insert(rawMessages).values({
    deviceId,
    direction,
    data: bytes.subarray(0, MAX_RAW_BYTES).toString('base64'),
    size: bytes.length,
    truncated,
  });
}

export async function listRaw(
  deps: Deps,
  actor: Actor,
  sn: string,
  page: { current: number; per_page: number },
): Promise<{ items: RawMessageItem[]; total: number }> {
  const device = await accessibleDevice(deps.db, actor, sn, 'view');
  const where = eq(rawMessages.deviceId, device.id);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(rawMessages)
      .where(where)
      .orderBy(desc(rawMessages.id))
      .limit(page.per_page)
      .offset((page.current - 1) * page.per_page),
    deps.db.select({ n: count() }).from(rawMessages).where(where),
  ]);
  return {
    items: rows.map((r) => ({
      id: r.id,
      direction: r.direction,
      data: r.data,
      size: r.size,
      truncated: r.truncated,
      createdat: r.createdat.toISOString(),
    })),
    total: total?.n ?? 0,
  };
}

/** Decodes API input into the bytes to write to the device's serial port. */
export function decodeRaw(data: string, encoding: 'hex' | 'base64' | 'utf8'): Buffer {
  if (encoding === 'hex') {
    if (!HEX_RULE.test(data))
      throw new AppError(70003, 400, undefined, [{ field: 'data', message: 'hex_rule' }]);
    return Buffer.from(data, 'hex');
  }
  if (encoding === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) {
      throw new AppError(70003, 400, undefined, [{ field: 'data', message: 'base64_rule' }]);
    }
    return Buffer.from(data, 'base64');
  }
  return Buffer.from(data, 'utf8');
}

/** Writes bytes to P/down/raw of an online device and keeps a copy. Offline: 20401. */
export async function sendRaw(
  deps: Deps,
  actor: Actor,
  sn: string,
  body: { data: string; encoding: 'hex' | 'base64' | 'utf8' },
): Promise<RawMessageItem> {
  const bytes = decodeRaw(body.data, body.encoding);
  if (bytes.length > MAX_RAW_BYTES) throw new AppError(50001);
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  if (!deps.link.online(sn, device.online)) throw new AppError(20401);
  await deps.link.send(device.productKey, sn, 'raw', bytes);
  const [row] = await deps.db
    .insert(rawMessages)
    .values({ deviceId: device.id, direction: 'down', data: bytes.toString('base64'), size: bytes.length })
    .returning();
  if (!row) throw new AppError(10109);
  return {
    id: row.id,
    direction: row.direction,
    data: row.data,
    size: row.size,
    truncated: row.truncated,
    createdat: row.createdat.toISOString(),
  };
}
