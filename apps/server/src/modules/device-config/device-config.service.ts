import { eq, sql } from 'drizzle-orm';
import { mergeDeviceConfig } from '@cellhub/contract/config-templates';
import type { DeviceConfig } from '@cellhub/contract/device-config';
import type { DeviceConfigState } from '@cellhub/contract/devices';
import type { ConfigMessage } from '@cellhub/contract/protocol';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { writeDeviceLog } from '../device-log/device-log.service';
import { withPlatformParam } from '../platforms/platform-params.service';
import { writeAudit } from '../audit/audit.service';
import type { DeviceRef } from '../devices/device-ref';
import { accessibleDevice } from '../devices/device-access';
import { type DeviceRow, devices } from '../devices/devices.table';

const toState = (d: DeviceRow): DeviceConfigState => ({
  config: d.config,
  expect_config: d.expectConfig,
  config_version: d.configVersion,
  expect_config_version: d.expectConfigVersion,
  config_version_different: d.configVersionDifferent,
});

function publishState(deps: Deps, d: DeviceRow): void {
  deps.events.publish(
    {
      type: 'device.config',
      sn: d.sn,
      product_key: d.productKey,
      config_version: d.configVersion,
      expect_config_version: d.expectConfigVersion,
      config_version_different: d.configVersionDifferent,
    },
    { uid: d.uid },
  );
}

export async function getDeviceConfig(deps: Deps, actor: Actor, sn: string): Promise<DeviceConfigState> {
  return toState(await accessibleDevice(deps.db, actor, sn, 'view'));
}

async function sendExpected(deps: Deps, d: DeviceRow): Promise<boolean> {
  try {
    await deps.link.send(d.productKey, d.sn, 'config', {
      version: d.expectConfigVersion,
      // The third-party cloud parameters travel with every configuration (PROTOCOL.md).
      config: withPlatformParam(d, d.expectConfig),
    });
  } catch {
    // Offline or not reachable now: the device gets it on its next connect or config_get.
    return false;
  }
  await writeDeviceLog(deps.db, {
    deviceId: d.id,
    event: 'config_sent',
    detail: { version: d.expectConfigVersion },
  });
  return true;
}

/** Sets the expected configuration (bumps expect_config_version) and sends it at once when the device is online. */
export async function putDeviceConfig(
  deps: Deps,
  actor: Actor,
  sn: string,
  config: DeviceConfig,
): Promise<DeviceConfigState> {
  return changeExpectedConfig(deps, actor, sn, () => config);
}

/**
 * Merges `patch` into the device's expected configuration (a configuration template) and sends the result like
 * putDeviceConfig. The read, the merge and the write share one transaction holding the device row (SELECT ... FOR
 * UPDATE), so a concurrent edit of the same device is merged into, never overwritten.
 */
export async function mergeIntoDeviceConfig(
  deps: Deps,
  actor: Actor,
  sn: string,
  patch: DeviceConfig,
): Promise<DeviceConfigState> {
  return changeExpectedConfig(deps, actor, sn, (current) => mergeDeviceConfig(current, patch));
}

async function changeExpectedConfig(
  deps: Deps,
  actor: Actor,
  sn: string,
  next: (current: DeviceConfig) => DeviceConfig,
): Promise<DeviceConfigState> {
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  const row = await deps.db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ expectConfig: devices.expectConfig })
      .from(devices)
      .where(eq(devices.id, device.id))
      .for('update');
    if (!locked) throw new AppError(10117);
    const [updated] = await tx
      .update(devices)
      .set({
        expectConfig: next(locked.expectConfig as DeviceConfig),
        expectConfigVersion: sql`${devices.expectConfigVersion} + 1`,
        configVersionDifferent: sql`${devices.configVersion} <> ${devices.expectConfigVersion} + 1`,
      })
      .where(eq(devices.id, device.id))
      .returning();
    if (!updated) throw new AppError(10117);
    await writeDeviceLog(tx, {
      deviceId: device.id,
      event: 'config_set',
      detail: { version: updated.expectConfigVersion, by: actor.username },
    });
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'device_config',
      target: `device:${sn}`,
      ip: actor.ip,
      detail: { version: updated.expectConfigVersion },
    });
    return updated;
  });
  publishState(deps, row);
  // Online as the gateway knows it now (its connections, or the latest status message still being written), as for
  // commands: the stored flag lags behind a connect.
  const sent = deps.link.online(row.sn, row.online) ? await sendExpected(deps, row) : false;
  return { ...toState(row), sent };
}

async function loadRow(db: DbOrTx, id: number): Promise<DeviceRow | undefined> {
  const [row] = await db.select().from(devices).where(eq(devices.id, id));
  return row;
}

/** P/up/config: what the device runs now. */
export async function handleConfigReport(deps: Deps, device: DeviceRef, msg: ConfigMessage): Promise<void> {
  const row = await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(devices)
      .set({
        config: msg.config,
        configVersion: msg.version,
        configVersionDifferent: sql`${devices.expectConfigVersion} <> ${msg.version}`,
      })
      .where(eq(devices.id, device.id))
      .returning();
    await writeDeviceLog(tx, {
      deviceId: device.id,
      event: 'config_report',
      detail: { version: msg.version },
    });
    return updated;
  });
  if (row) publishState(deps, row);
}

/**
 * P/up/config_get, and on connect: sends the expected configuration when there is one and the device does not run
 * it yet (config_get always answers).
 */
export async function sendExpectedConfig(deps: Deps, device: DeviceRef, always: boolean): Promise<void> {
  const row = await loadRow(deps.db, device.id);
  if (!row || row.expectConfigVersion === 0) return;
  if (!always && !row.configVersionDifferent) return;
  await sendExpected(deps, row);
}
