/**
 * Device rows as the authorisation layer sees them. Depends only on tables and lib/authz.ts, so every module that
 * acts on a device (telemetry, logs, commands, configuration, alerts, OTA) imports this instead of the devices
 * service, and no service imports another in a circle.
 */
import { eq, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { type DeviceRight, deviceListFilter, requireDeviceRight } from '../../lib/authz';
import type { Actor } from '../../lib/deps';
import { type DeviceRow, devices } from './devices.table';

/**
 * The device with serial `sn` when the actor has `need` on it: 10117 (as if it did not exist) when they may not see
 * it, 10108 when they see it but may not do this. When shares land, this is where the share row is read and passed
 * to the layer as `shared`.
 */
export async function accessibleDevice(
  db: DbOrTx,
  actor: Actor,
  sn: string,
  need: Exclude<DeviceRight, 'none'> = 'view',
): Promise<DeviceRow> {
  const [row] = await db.select().from(devices).where(eq(devices.sn, sn));
  return requireDeviceRight(actor, row, need);
}

/** The devices the actor may see, as a WHERE over the unaliased `devices` table (none for admins). */
export const visibleDevices = (actor: Actor): SQL | undefined => deviceListFilter(actor, devices.uid);
