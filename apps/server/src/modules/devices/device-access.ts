/**
 * Device rows as the authorisation layer sees them. Depends only on tables and lib/authz.ts, so every module that
 * acts on a device (telemetry, logs, commands, configuration, alerts, OTA) imports this instead of the devices
 * service, and no service imports another in a circle.
 */
import { and, eq, gt, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import {
  type DeviceAccessRow,
  type DeviceRight,
  deviceListFilter,
  requireDeviceRight,
} from '../../lib/authz';
import type { Actor } from '../../lib/deps';
import { deviceShares } from '../shares/shares.table';
import { users } from '../users/users.table';
import { type DeviceRow, devices } from './devices.table';

/** A live share row: no expiry, or one still ahead of the database clock (as `deviceListFilter` says). */
export const liveShareRow = (): SQL =>
  or(isNull(deviceShares.expiresAt), gt(deviceShares.expiresAt, sql`now()`))!;

/**
 * Devices with the actor's live share on each (from its current owner) in one statement: `{ device, shared }`, where
 * `shared` is null without a share. Add the `where`; the authorisation layer decides from the pair.
 */
export function withActorShare(db: DbOrTx, actor: Actor) {
  return db
    .select({ device: devices, shared: deviceShares.right })
    .from(devices)
    .leftJoin(
      deviceShares,
      and(
        eq(deviceShares.deviceId, devices.id),
        eq(deviceShares.granteeUid, actor.uid),
        eq(deviceShares.ownerUid, devices.uid),
        liveShareRow(),
      ),
    );
}

/**
 * The device with serial `sn` when the actor has `need` on it: 10117 (as if it did not exist) when they may not see
 * it, 10108 when they see it but may not do this. The live share of the actor on the device (from its current
 * owner) is read in the same statement and passed to the layer as `shared`.
 */
export async function accessibleDevice(
  db: DbOrTx,
  actor: Actor,
  sn: string,
  need: Exclude<DeviceRight, 'none'> = 'view',
): Promise<DeviceRow & DeviceAccessRow> {
  const [row] = await withActorShare(db, actor).where(eq(devices.sn, sn));
  const device = row ? { ...row.device, ...(row.shared ? { shared: row.shared } : {}) } : undefined;
  return requireDeviceRight(actor, device, need);
}

/** The devices the actor may see (own and shared with them), as a WHERE over the unaliased `devices` table. */
export const visibleDevices = (actor: Actor): SQL | undefined =>
  deviceListFilter(actor, devices.uid, devices.id);

/** The share mark of the device list and detail (`share` field): the right, the owner's name and the expiry. */
export interface ShareMark {
  right: 'view' | 'control';
  owner: string;
  expires_at: string | null;
}

/**
 * The live shares the actor holds on these devices, by device id: what the list and detail show as `share`.
 * Devices the actor owns have none (a share is always from another owner).
 */
export async function shareMarks(
  db: DbOrTx,
  actor: Actor,
  deviceIds: number[],
): Promise<Map<number, ShareMark>> {
  const out = new Map<number, ShareMark>();
  if (deviceIds.length === 0) return out;
  const rows = await db
    .select({
      deviceId: deviceShares.deviceId,
      right: deviceShares.right,
      expiresAt: deviceShares.expiresAt,
      owner: users.username,
    })
    .from(deviceShares)
    .innerJoin(devices, and(eq(devices.id, deviceShares.deviceId), eq(devices.uid, deviceShares.ownerUid)))
    .innerJoin(users, eq(users.id, deviceShares.ownerUid))
    .where(
      and(eq(deviceShares.granteeUid, actor.uid), inArray(deviceShares.deviceId, deviceIds), liveShareRow()),
    );
  for (const r of rows)
    out.set(r.deviceId, {
      right: r.right,
      owner: r.owner,
      expires_at: r.expiresAt ? r.expiresAt.toISOString() : null,
    });
  return out;
}
