import { timingSafeEqual } from 'node:crypto';
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { z } from 'zod';
import type { deviceBindBody, DeviceDetail } from '@cellhub/contract/devices';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { requireScope } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { writeAudit } from '../audit/audit.service';
import { writeDeviceLog } from '../device-log/device-log.service';
import { deviceSecretContext, findDeviceBySn, getDevice, newDeviceSecret } from './devices.service';
import { accessibleDevice } from './device-access';
import { devices } from './devices.table';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Gives stock devices (no owner) to `uid` inside the caller's transaction, each with its device-log row: the one
 * owner-setting path of bind and of shipping (modules/device-stock). Two claims racing for a device: the conditional
 * update lets exactly one win. Returns the ids that were still in stock. A device's shares end with its owner
 * (a share is live only while from the current owner, lib/authz.ts), so nothing else is to undo.
 */
export async function claimStockDevices(
  tx: DbOrTx,
  actor: Pick<Actor, 'username'>,
  deviceIds: number[],
  uid: number,
  detail: Record<string, unknown>,
): Promise<number[]> {
  if (deviceIds.length === 0) return [];
  const rows = await tx
    .update(devices)
    .set({ uid })
    .where(and(inArray(devices.id, deviceIds), isNull(devices.uid)))
    .returning({ id: devices.id });
  await writeDeviceLog(
    tx,
    ...rows.map((r) => ({
      deviceId: r.id,
      event: 'updated' as const,
      detail: { by: actor.username, ...detail },
    })),
  );
  return rows.map((r) => r.id);
}

/**
 * A user claims an in-stock device. The secret proves they hold the device (or its label); an unknown sn and a
 * wrong secret answer alike (10117) so the route cannot be used to probe serial numbers. Only with the right
 * secret does an owned device answer 11014.
 */
export async function bindDevice(
  deps: Deps,
  actor: Actor,
  input: z.infer<typeof deviceBindBody>,
): Promise<DeviceDetail> {
  // Anyone signed in may claim a device they hold the secret of; a scoped caller needs the right to own devices.
  requireScope(actor, 'devices:write');
  const d = await findDeviceBySn(deps.db, input.sn);
  if (!d || !sameSecret(deps.box.decrypt(d.secret, deviceSecretContext(d.sn)), input.secret)) {
    throw new AppError(10117);
  }
  if (d.uid !== null) throw new AppError(11014);
  const claimed = await deps.db.transaction(async (tx) => {
    const won = await claimStockDevices(tx, actor, [d.id], actor.uid, { bind: actor.uid });
    if (won.length === 0) return false;
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'device_bind',
      target: `device:${d.sn}`,
      ip: actor.ip,
      detail: { uid: actor.uid },
    });
    return true;
  });
  if (!claimed) throw new AppError(11014);
  // The gateway caches the owner: live events must now go to the new owner.
  deps.link.invalidate(d.sn);
  return getDevice(deps, actor, d.sn);
}

/**
 * The owner (or an admin) gives a device back to stock. Its secret is rotated, so the previous owner's copy stops
 * working, and its registration is reopened: the device fetches the new secret by dynamic registration, or it is
 * provisioned again. Its current connection, made with the old secret, is dropped.
 */
export async function unbindDevice(deps: Deps, actor: Actor, sn: string): Promise<void> {
  const d = await accessibleDevice(deps.db, actor, sn, 'owner');
  if (d.uid === null) throw new AppError(10118, 400, 'Device is not bound');
  await deps.db.transaction(async (tx) => {
    await tx
      .update(devices)
      .set({
        uid: null,
        secret: deps.box.encrypt(newDeviceSecret(), deviceSecretContext(d.sn)),
        registeredat: null,
      })
      .where(eq(devices.id, d.id));
    await writeDeviceLog(tx, {
      deviceId: d.id,
      event: 'updated',
      detail: { by: actor.username, unbind: d.uid, secret: 'rotated' },
    });
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'device_unbind',
      target: `device:${d.sn}`,
      ip: actor.ip,
      detail: { previous_uid: d.uid },
    });
  });
  deps.link.invalidate(d.sn);
  deps.link.kick(d.sn, 'unbound');
}
