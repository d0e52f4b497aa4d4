import { randomBytes } from 'node:crypto';
import { and, count, desc, eq, ilike, inArray, or, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  type deviceCreateBody,
  type DeviceCreateLine,
  type DeviceDetail,
  type DeviceItem,
  type DeviceListItem,
  type DeviceListQuery,
  type deviceUpdateBody,
} from '@cellhub/contract/devices';
import { type PropertyValue, SN_RULE } from '@cellhub/contract/protocol';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { writeDeviceLog } from '../device-log/device-log.service';
import { products } from '../products/products.table';
import { visibleProduct } from '../products/products.service';
import { deviceProperties, devicePropertyLatest } from '../telemetry/telemetry.table';
import { latestProperties } from '../telemetry/telemetry.service';
import { users } from '../users/users.table';
import { writeAudit } from '../audit/audit.service';
import { syncDevicesPlatformParams } from '../platforms/platform-params.service';
import { type DeviceRow, devices } from './devices.table';

export const deviceSecretContext = (sn: string) => `device:${sn}`;
/** 32 random characters (192 bits), the MQTT password of PROTOCOL.md. */
export const newDeviceSecret = (): string => randomBytes(24).toString('base64url');

const visibleTo = (actor: Actor): SQL | undefined =>
  actor.role === 'admin' ? undefined : eq(devices.uid, actor.uid);

/** The device if the actor may see it; otherwise 10117, exactly as if it did not exist. */
export async function visibleDevice(deps: Deps, actor: Actor, sn: string): Promise<DeviceRow> {
  const [row] = await deps.db
    .select()
    .from(devices)
    .where(and(eq(devices.sn, sn), visibleTo(actor)));
  if (!row) throw new AppError(10117);
  return row;
}

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

export async function createDevices(
  deps: Deps,
  actor: Actor,
  input: z.infer<typeof deviceCreateBody>,
): Promise<DeviceCreateLine[]> {
  const product = await visibleProduct(deps, actor, input.product_key);
  let owner: number | null = actor.uid;
  if (actor.role === 'admin') {
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
    if (!SN_RULE.test(sn)) lines.set(sn, { sn, code: 10113, result: 'invalid' });
    else wanted.push(sn);
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
      // A concurrent create of the same sn loses the race quietly and is reported as "exists".
      const inserted = await tx
        .insert(devices)
        .values(
          fresh.map((sn) => ({
            sn,
            productKey: product.productKey,
            uid: owner,
            name: input.name ?? '',
            description: input.description ?? '',
            secret: deps.box.encrypt(newDeviceSecret(), deviceSecretContext(sn)),
          })),
        )
        .onConflictDoNothing()
        .returning({ id: devices.id, sn: devices.sn });
      for (const row of inserted) {
        lines.set(row.sn, { sn: row.sn, code: 0, result: 'created' });
        createdIds.push(row.id);
      }
      await writeDeviceLog(
        tx,
        ...inserted.map((row) => ({
          deviceId: row.id,
          event: 'created' as const,
          detail: { by: actor.username, uid: owner },
        })),
      );
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'device_create',
        target: `product:${product.productKey}`,
        ip: actor.ip,
        detail: { sn: inserted.map((r) => r.sn), uid: owner },
      });
    });
  }
  // New devices of a product bound to a cloud platform get their iot_platform_param at once.
  if (createdIds.length) await syncDevicesPlatformParams(deps, product.productKey, createdIds);
  return input.sn
    .filter((sn, i) => input.sn.indexOf(sn) === i)
    .map((sn) => lines.get(sn) ?? { sn, code: 20402, result: 'exists' as const });
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function listDevices(
  deps: Deps,
  actor: Actor,
  query: DeviceListQuery,
): Promise<{ items: DeviceListItem[]; total: number }> {
  const conditions: (SQL | undefined)[] = [visibleTo(actor)];
  if (query.keyword) {
    const like = `%${escapeLike(query.keyword)}%`;
    conditions.push(
      or(
        ilike(devices.sn, like),
        ilike(devices.name, like),
        ilike(devices.imei, like),
        ilike(devices.iccid, like),
      ),
    );
  }
  if (query.product_key) conditions.push(eq(devices.productKey, query.product_key));
  if (query.online) conditions.push(eq(devices.online, Number(query.online)));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ d: devices, productName: products.name, owner: users.username })
      .from(devices)
      .innerJoin(products, eq(products.productKey, devices.productKey))
      .leftJoin(users, eq(users.id, devices.uid))
      .where(where)
      .orderBy(desc(devices.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(devices).where(where),
  ]);
  // One indexed lookup for the whole page: the latest-value table is keyed by (device_id, key).
  const latest = rows.length
    ? await deps.db
        .select()
        .from(devicePropertyLatest)
        .where(
          inArray(
            devicePropertyLatest.deviceId,
            rows.map((r) => r.d.id),
          ),
        )
    : [];
  const values = new Map<number, Record<string, PropertyValue>>();
  for (const l of latest) {
    const v = values.get(l.deviceId) ?? {};
    v[l.key] = l.num ?? l.txt ?? l.bool ?? 0;
    values.set(l.deviceId, v);
  }
  return {
    items: rows.map((r) => ({
      ...toDeviceItem(r.d, r.productName),
      owner: r.owner,
      last_values: values.get(r.d.id) ?? {},
    })),
    total: total?.n ?? 0,
  };
}

async function productName(db: DbOrTx, productKey: string): Promise<string> {
  const [p] = await db
    .select({ name: products.name })
    .from(products)
    .where(eq(products.productKey, productKey));
  return p?.name ?? '';
}

export async function getDevice(deps: Deps, actor: Actor, sn: string): Promise<DeviceDetail> {
  const d = await visibleDevice(deps, actor, sn);
  const [name, properties] = await Promise.all([
    productName(deps.db, d.productKey),
    latestProperties(deps.db, d.id),
  ]);
  return {
    ...toDeviceItem(d, name),
    secret: deps.box.decrypt(d.secret, deviceSecretContext(d.sn)),
    iot_platform_param: d.iotPlatformParam,
    properties,
  };
}

export async function updateDevice(
  deps: Deps,
  actor: Actor,
  sn: string,
  input: z.infer<typeof deviceUpdateBody>,
): Promise<DeviceDetail> {
  const d = await visibleDevice(deps, actor, sn);
  if (input.uid !== undefined && actor.role !== 'admin') throw new AppError(10108);
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
  const viewer =
    input.uid !== undefined && actor.role !== 'admin' ? actor : { ...actor, role: 'admin' as const };
  return getDevice(deps, viewer, sn);
}

export async function deleteDevice(deps: Deps, actor: Actor, sn: string): Promise<void> {
  const d = await visibleDevice(deps, actor, sn);
  await deps.db.transaction(async (tx) => {
    await tx.delete(deviceProperties).where(eq(deviceProperties.deviceId, d.id));
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
}
