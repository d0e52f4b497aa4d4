import { randomBytes } from 'node:crypto';
import { and, eq, ilike, inArray, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import {
  type deviceCreateBody,
  deviceLineReason,
  type DeviceCreateLine,
  type DeviceDetail,
  deviceItem,
  type DeviceItem,
  type DeviceListItem,
  type DeviceListQuery,
  type deviceUpdateBody,
  type PropertyLabel,
} from '@cellhub/contract/devices';
import { type PropertyValue, SN_RULE } from '@cellhub/contract/protocol';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { likeKeyword } from '../../lib/paging';
import type { Actor, Deps } from '../../lib/deps';
import { writeDeviceLog } from '../device-log/device-log.service';
import { productProperties, products } from '../products/products.table';
import {
  adoptProductDefault,
  mergeLabels,
  templatePropertyLabels,
} from '../data-templates/data-templates.service';
import { visibleProduct } from '../products/products.service';
import { deviceProperties, devicePropertyHourly } from '../telemetry/telemetry.table';
import { latestProperties } from '../telemetry/telemetry.service';
import { users } from '../users/users.table';
import { writeAudit } from '../audit/audit.service';
import { canManage, isAdmin, requireAdmin, requireScope } from '../../lib/authz';
import { syncDevicesPlatformParams } from '../platforms/platform-params.service';
import { accessibleDevice, shareMarks, visibleDevices } from './device-access';
import { type DeviceRow, devices, deviceSearchText } from './devices.table';

export const deviceSecretContext = (sn: string) => `device:${sn}`;
/** 32 random characters (192 bits), the MQTT password of PROTOCOL.md. */
export const newDeviceSecret = (): string => randomBytes(24).toString('base64url');

export async function findDeviceBySn(db: DbOrTx, sn: string): Promise<DeviceRow | undefined> {
  const [row] = await db.select().from(devices).where(eq(devices.sn, sn));
  return row;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toDeviceItem(d: DeviceRow, productName: string): DeviceItem {
  return {
    id: d.id,
    sn: d.sn,
    uid: d.uid,
    name: d.name,
    product_key: d.productKey,
    product_name: productName,
    imsi: d.imsi,
    iccid: d.iccid,
    imei: d.imei,
    ipaddress: d.ipaddress,
    protocol: d.protocol,
    phone: d.phone,
    address: d.address,
    rssi: d.rssi,
    csq: d.csq,
    status: d.status,
    hw_version: d.hwVersion,
    fw_version: d.fwVersion,
    online: d.online === 1 ? 1 : 0,
    config_version: d.configVersion,
    expect_config_version: d.expectConfigVersion,
    config_version_different: d.configVersionDifferent,
    activatedat: iso(d.activatedat),
    lastcommunicationat: iso(d.lastcommunicationat),
    latitude: d.latitude,
    longitude: d.longitude,
    description: d.description,
    uplink: d.uplink,
    login_protocol: d.loginProtocol,
    bootloader_version: d.bootloaderVersion,
    cellular_mode: d.cellularMode,
    signal_strength: d.signalStrength,
    band: d.band,
    pci: d.pci,
    cell_id: d.cellId,
    disabled: d.disabled,
    rejected_count: d.rejectedCount,
    createdat: d.createdat.toISOString(),
    updatedat: d.updatedat.toISOString(),
  };
}

/**
 * Inserts new devices of one product with generated secrets and their `created` device-log rows, inside the
 * caller's transaction; an sn that exists meanwhile is skipped quietly (the caller reports it). The one create path
 * of devices: the create route, and production tasks (modules/production) that create stock devices in their own
 * transaction with the task's state change. `log` adds to the log rows' detail.
 */
export async function insertNewDevices(
  tx: DbOrTx,
  deps: Pick<Deps, 'box'>,
  actor: Pick<Actor, 'username'>,
  input: {
    productKey: string;
    uid: number | null;
    sns: string[];
    name?: string;
    description?: string;
    log?: Record<string, unknown>;
  },
): Promise<{ id: number; sn: string }[]> {
  const inserted: { id: number; sn: string }[] = [];
  for (let i = 0; i < input.sns.length; i += 1000) {
    inserted.push(
      ...(await tx
        .insert(devices)
        .values(
          input.sns.slice(i, i + 1000).map((sn) => ({
            sn,
            productKey: input.productKey,
            uid: input.uid,
            name: input.name ?? '',
            description: input.description ?? '',
            secret: deps.box.encrypt(newDeviceSecret(), deviceSecretContext(sn)),
          })),
        )
        // A concurrent create of the same sn loses the race quietly and is reported as "exists".
        .onConflictDoNothing()
        .returning({ id: devices.id, sn: devices.sn })),
    );
  }
  await adoptProductDefault(
    tx,
    input.productKey,
    inserted.map((r) => r.id),
  );
  await writeDeviceLog(
    tx,
    ...inserted.map((row) => ({
      deviceId: row.id,
      event: 'created' as const,
      detail: { by: actor.username, uid: input.uid, ...input.log },
    })),
  );
  return inserted;
}

export async function createDevices(
  deps: Deps,
  actor: Actor,
  input: z.infer<typeof deviceCreateBody>,
): Promise<DeviceCreateLine[]> {
  requireScope(actor, 'devices:write');
  const product = await visibleProduct(deps, actor, input.product_key);
  let owner: number | null = actor.uid;
  if (isAdmin(actor)) {
    owner = input.uid ?? null;
    if (owner !== null) {
      const [u] = await deps.db.select({ id: users.id }).from(users).where(eq(users.id, owner));
      if (!u) throw new AppError(10113, 400, undefined, [{ field: 'uid', message: 'no such user' }]);
    }
  } else if (input.uid !== undefined && input.uid !== actor.uid) {
    throw new AppError(10108);
  }

  const lines = new Map<string, DeviceCreateLine>();
  const wanted: string[] = [];
  for (const sn of input.sn) {
    if (lines.has(sn) || wanted.includes(sn)) continue;
    if (!SN_RULE.test(sn)) {
      lines.set(sn, { sn, code: 10113, result: 'invalid', ...deviceLineReason('sn', 'sn_rule') });
    } else wanted.push(sn);
  }
  const existing = wanted.length
    ? await deps.db
        .select({ sn: devices.sn, productKey: devices.productKey })
        .from(devices)
        .where(inArray(devices.sn, wanted))
    : [];
  for (const e of existing) {
    lines.set(
      e.sn,
      e.productKey === product.productKey
        ? { sn: e.sn, code: 20402, result: 'exists' }
        : { sn: e.sn, code: 20403, result: 'wrong_product' },
    );
  }
  const fresh = wanted.filter((sn) => !lines.has(sn));
  const createdIds: number[] = [];
  if (fresh.length) {
    await deps.db.transaction(async (tx) => {
      const inserted = await insertNewDevices(tx, deps, actor, {
        productKey: product.productKey,
        uid: owner,
        sns: fresh,
        name: input.name,
        description: input.description,
      });
      for (const row of inserted) {
        lines.set(row.sn, { sn: row.sn, code: 0, result: 'created' });
        createdIds.push(row.id);
      }
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'device_create',
        target: `product:${product.productKey}`,
        ip: actor.ip,
        detail: { sn: inserted.map((r) => r.sn), uid: owner },
      });
    });
  }
  // New devices are known to the gateway now (and to a broker holding credentials, docs/external-brokers.md).
  for (const [sn, line] of lines) if (line.result === 'created') deps.link.invalidate(sn);
  // New devices of a product bound to a cloud platform get their iot_platform_param at once.
  if (createdIds.length) {
    await writeDeviceLog(deps.db, ...(await syncDevicesPlatformParams(deps, product.productKey, createdIds)));
  }
  return input.sn
    .filter((sn, i) => input.sn.indexOf(sn) === i)
    .map((sn) => lines.get(sn) ?? { sn, code: 20402, result: 'exists' as const });
}

/**
 * The columns of a list row, named as the contract's item fields (they are the table's column names), with times as
 * ISO strings, so a row from the database is an item as it stands. Built once from the contract's shape (field
 * names are code constants, so the raw SQL takes no outside input).
 */
const LIST_COLUMNS = sql.raw(
  Object.keys(deviceItem.shape)
    .filter((k) => k !== 'product_name')
    .map((k) =>
      k === 'activatedat' || k === 'lastcommunicationat' || k === 'createdat' || k === 'updatedat'
        ? `to_char(d.${k} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${k}`
        : `d.${k}`,
    )
    .join(', '),
);

/** The filters of a list query as one WHERE over `devices` (unaliased): owner, keyword, product, status. */
function listFilter(actor: Actor, query: DeviceListQuery): SQL {
  const conditions: (SQL | undefined)[] = [visibleDevices(actor)];
  // One trigram-indexed expression instead of four ILIKEs (devices.table.ts).
  if (query.keyword) conditions.push(ilike(deviceSearchText(devices), likeKeyword(query.keyword)));
  if (query.product_key) conditions.push(eq(devices.productKey, query.product_key));
  if (query.online) conditions.push(eq(devices.online, Number(query.online)));
  return and(...conditions) ?? sql`true`;
}

export interface DeviceListPage {
  items: DeviceListItem[];
  total: number;
  /** False when the count stopped at its cap: `total` is then a lower bound. */
  totalExact: boolean;
  /** The property names and units of the products on the page, for `last_values`. */
  propertyDefs: Record<string, PropertyLabel[]>;
}

/**
 * One page of the devices the actor may see, newest first, in one statement: the page's ids from the
 * (owner, filter..., id) index (read backwards, so a deep page skips index entries, not rows), then those rows with
 * product name, owner and latest values as per-row subqueries (planning joins cost more than running them), and
 * the number of matches.
 *
 * Counting every match of a 100,000-device fleet on each page cost more than everything else together, so the
 * count stops at `offset + deviceListCountCap` matches: below that it is exact; at the cap `total` is that lower
 * bound and `totalExact` false (the console shows "More than 10,000 devices" and can still page on).
 */
export async function listDevices(deps: Deps, actor: Actor, query: DeviceListQuery): Promise<DeviceListPage> {
  const where = listFilter(actor, query);
  const offset = (query.current - 1) * query.per_page;
  const bound = offset + deps.config.deviceListCountCap;
  // A recent count of the same visibility and filters is reused (device-count-cache.ts); keyword counts are not.
  const counts = deps.caches.deviceCounts;
  const countKey = query.keyword
    ? undefined
    : `${isAdmin(actor) ? '*' : actor.uid}|${query.product_key ?? ''}|${query.online ?? ''}|${bound}`;
  const now = deps.now().getTime();
  const cachedCount = countKey === undefined ? undefined : counts.get(countKey, now);
  // Without a keyword the count and the page each read their own index range. A keyword's trigram search costs
  // more than the matches it finds, so it runs once: the count and the page both read its (capped) matches.
  const [head, counted, page] = query.keyword
    ? [
        sql`with m as (select id from devices where ${where} order by id desc limit ${bound + 1})`,
        sql`(select count(*)::int from m)`,
        sql`(select id from m order by id desc limit ${query.per_page} offset ${offset})`,
      ]
    : [
        sql``,
        sql`(select count(*)::int from (select 1 from devices where ${where} limit ${bound + 1}) m)`,
        sql`(select id from devices where ${where} order by id desc limit ${query.per_page} offset ${offset})`,
      ];
  const rows = rowsOf<ListRow>(
    await deps.db.execute(sql`${head}
      select ${cachedCount === undefined ? counted : sql`null::int`} as total, ${LIST_COLUMNS},
        (select p.name from products p where p.product_key = d.product_key) as product_name,
        (select u.username from users u where u.id = d.uid) as owner,
        (select json_object_agg(l.key, coalesce(to_json(l.num), to_json(l.txt), to_json(l.bool), '0'::json))
           from device_property_latest l where l.device_id = d.id) as last_values
      from ${page} page
      join devices d on d.id = page.id
      order by d.id desc`),
  );
  let total: number;
  if (rows.length > 0 && rows.length < query.per_page) {
    // The last page: the exact total, whatever a cached count says.
    total = offset + rows.length;
  } else if (cachedCount !== undefined && rows.length > 0) {
    total = Math.max(cachedCount, offset + rows.length);
  } else if (rows.length > 0) {
    total = rows[0]!.total;
  } else {
    // Past the last page (or nothing matches): the count rode on the rows, so ask for it alone.
    total =
      offset === 0
        ? 0
        : (rowsOf<{ n: number }>(await deps.db.execute(sql`${head} select ${counted} as n`))[0]?.n ?? 0);
  }
  if (countKey !== undefined && cachedCount === undefined) counts.set(countKey, total, now);
  // Each row carries the statement's `total` too; the contract's item schema leaves it out of the answer.
  for (const row of rows) row.last_values ??= {};
  const items = rows as unknown as DeviceListItem[];
  // Devices shared with the caller carry their share (right, owner, expiry).
  const others = items.filter((d) => d.uid !== actor.uid).map((d) => d.id);
  const marks = others.length > 0 && !isAdmin(actor) ? await shareMarks(deps.db, actor, others) : undefined;
  for (const d of items) d.share = marks?.get(d.id) ?? null;
  const propertyDefs = await propertyLabels(deps.db, [...new Set(items.map((d) => d.product_key))]);
  // A device with a data template (its own or its product's default) reads its variables as properties too: its
  // definitions are keyed `product_key/sn` (neither may hold a slash), the product's and the template's merged.
  const templateLabels = await templatePropertyLabels(
    deps.db,
    items.map((d) => d.id),
  );
  for (const d of items) {
    const extra = templateLabels.get(d.id);
    if (extra)
      propertyDefs[`${d.product_key}/${d.sn}`] = mergeLabels(propertyDefs[d.product_key] ?? [], extra);
  }
  return total > bound
    ? { items, total: bound, totalExact: false, propertyDefs }
    : { items, total, totalExact: true, propertyDefs };
}

/**
 * The names and units of the properties of `productKeys`, in each product's order. Whoever sees a device may read
 * its product's property names (lib/authz.ts productRight), so the list needs no product question of its own.
 */
async function propertyLabels(db: DbOrTx, productKeys: string[]): Promise<Record<string, PropertyLabel[]>> {
  const labels: Record<string, PropertyLabel[]> = Object.fromEntries(productKeys.map((k) => [k, []]));
  if (productKeys.length === 0) return labels;
  const rows = await db
    .select({
      productKey: products.productKey,
      key: productProperties.key,
      name: productProperties.name,
      name_us: productProperties.nameUs,
      unit: productProperties.unit,
    })
    .from(productProperties)
    .innerJoin(products, eq(products.id, productProperties.productId))
    .where(inArray(products.productKey, productKeys))
    .orderBy(productProperties.productId, productProperties.position);
  for (const { productKey, ...label } of rows) labels[productKey]?.push(label);
  return labels;
}

const rowsOf = <T>(res: unknown): T[] => (res as { rows: T[] }).rows;

/** A row of the list statement: the number of matches and an item (`last_values` null without any). */
type ListRow = Omit<DeviceListItem, 'last_values'> & {
  total: number;
  last_values: Record<string, PropertyValue> | null;
};

async function productName(db: DbOrTx, productKey: string): Promise<string> {
  const [p] = await db
    .select({ name: products.name })
    .from(products)
    .where(eq(products.productKey, productKey));
  return p?.name ?? '';
}

export async function getDevice(deps: Deps, actor: Actor, sn: string): Promise<DeviceDetail> {
  const d = await accessibleDevice(deps.db, actor, sn, 'view');
  // The secret and the platform identity are the owner's (and admins'): a share's holder reads neither.
  const manager = canManage(actor, d);
  const [name, properties, marks] = await Promise.all([
    productName(deps.db, d.productKey),
    latestProperties(deps.db, d.id),
    d.shared ? shareMarks(deps.db, actor, [d.id]) : undefined,
  ]);
  return {
    ...toDeviceItem(d, name),
    secret: manager ? deps.box.decrypt(d.secret, deviceSecretContext(d.sn)) : '',
    iot_platform_param: manager ? d.iotPlatformParam : {},
    properties,
    share: marks?.get(d.id) ?? null,
  };
}

export async function updateDevice(
  deps: Deps,
  actor: Actor,
  sn: string,
  input: z.infer<typeof deviceUpdateBody>,
): Promise<DeviceDetail> {
  const d = await accessibleDevice(deps.db, actor, sn, 'owner');
  // Handing a device to another user is administration.
  if (input.uid !== undefined) requireAdmin(actor);
  if (input.uid) {
    const [u] = await deps.db.select({ id: users.id }).from(users).where(eq(users.id, input.uid));
    if (!u) throw new AppError(10113, 400, undefined, [{ field: 'uid', message: 'no such user' }]);
  }
  await deps.db.transaction(async (tx) => {
    await tx
      .update(devices)
      .set({
        name: input.name,
        description: input.description,
        address: input.address,
        disabled: input.disabled,
        uid: input.uid,
      })
      .where(eq(devices.id, d.id));
    await writeDeviceLog(tx, { deviceId: d.id, event: 'updated', detail: { by: actor.username, ...input } });
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'device_update',
      target: `device:${sn}`,
      ip: actor.ip,
      detail: { ...input },
    });
  });
  if (input.disabled !== undefined || input.uid !== undefined) {
    // The gateway caches the owner and the disabled flag; a disabled device loses its connection now.
    deps.link.invalidate(sn);
    if (input.disabled) deps.link.kick(sn, 'disabled');
  }
  const viewer = input.uid !== undefined && !isAdmin(actor) ? actor : { ...actor, role: 'admin' as const };
  return getDevice(deps, viewer, sn);
}

export async function deleteDevice(deps: Deps, actor: Actor, sn: string): Promise<void> {
  const d = await accessibleDevice(deps.db, actor, sn, 'owner');
  await deps.db.transaction(async (tx) => {
    await tx.delete(deviceProperties).where(eq(deviceProperties.deviceId, d.id));
    await tx.delete(devicePropertyHourly).where(eq(devicePropertyHourly.deviceId, d.id));
    await tx.delete(devices).where(eq(devices.id, d.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'device_delete',
      target: `device:${sn}`,
      ip: actor.ip,
      detail: { product_key: d.productKey },
    });
  });
  deps.link.invalidate(sn);
  deps.link.kick(sn, 'deleted');
  // Its shares went with it (foreign key): the live share audience forgets them now (docs/sharing.md).
  deps.events.emit({ type: 'share.changed', deviceIds: [d.id] });
}
