import { eq, inArray, sql } from 'drizzle-orm';
import type { InfoUp } from '@cellhub/contract/protocol';
import type { Deps } from '../../lib/deps';
import { writeDeviceLog } from '../device-log/device-log.service';
import { recordSimSwap } from '../sim/sim-cards.service';
import type { DeviceRef } from './device-ref';
import { devices } from './devices.table';

export interface ConnectInfo {
  ip: string;
  /** e.g. `mqtt/4` (3.1.1), `mqtt/5`, with `+ws` over WebSocket. */
  protocol: string;
  keepalive?: number;
  clean?: boolean;
}

/** The device row's side of a connect: online, activatedat on first connect, a log row and a live event. */
export async function markOnline(deps: Deps, device: DeviceRef, info: ConnectInfo): Promise<void> {
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    await tx
      .update(devices)
      .set({
        online: 1,
        lastcommunicationat: now,
        activatedat: sql`coalesce(${devices.activatedat}, ${now.toISOString()}::timestamptz)`,
        protocol: info.protocol,
      })
      .where(eq(devices.id, device.id));
    await writeDeviceLog(tx, { deviceId: device.id, event: 'connect', detail: { ...info } });
  });
  deps.events.publish(
    {
      type: 'device.online',
      sn: device.sn,
      product_key: device.productKey,
      online: 1,
      at: now.toISOString(),
    },
    { uid: device.uid },
  );
}

/** Offline with a reason (client close, keep-alive timeout, takeover, will, status, ...). */
export async function markOffline(
  deps: Deps,
  device: DeviceRef,
  reason: string,
  options: { setOffline: boolean } = { setOffline: true },
): Promise<void> {
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    if (options.setOffline) await tx.update(devices).set({ online: 0 }).where(eq(devices.id, device.id));
    await writeDeviceLog(tx, { deviceId: device.id, event: 'disconnect', detail: { reason } });
  });
  if (!options.setOffline) return;
  deps.events.publish(
    {
      type: 'device.online',
      sn: device.sn,
      product_key: device.productKey,
      online: 0,
      at: now.toISOString(),
      reason,
    },
    { uid: device.uid },
  );
}

const text = (v: string | number | undefined) => (v === undefined ? undefined : String(v));

/** P/up/info: the reported fields land on the device row. */
export async function applyInfo(deps: Deps, device: DeviceRef, info: InfoUp): Promise<void> {
  // SIM swap: a reported iccid that differs from the stored one is recorded first (docs/sim.md).
  if (info.iccid !== undefined) await recordSimSwap(deps.db, device.id, info.iccid, deps.now());
  await deps.db
    .update(devices)
    .set({
      fwVersion: info.fw_version,
      hwVersion: info.hw_version,
      bootloaderVersion: info.bootloader_version,
      imei: info.imei,
      imsi: info.imsi,
      iccid: info.iccid,
      phone: info.phone,
      ipaddress: info.ipaddress,
      rssi: info.rssi,
      csq: info.csq,
      signalStrength: info.signal_strength,
      cellularMode: info.cellular_mode,
      band: text(info.band),
      pci: text(info.pci),
      cellId: text(info.cell_id),
      latitude: info.latitude,
      longitude: info.longitude,
      uplink: info.uplink,
      loginProtocol: info.login_protocol,
    })
    .where(eq(devices.id, device.id));
  deps.events.publish(
    { type: 'device.info', sn: device.sn, product_key: device.productKey, fields: { ...info } },
    { uid: device.uid },
  );
}

/** One statement for every device heard from since the last call (lastcommunicationat is throttled). */
export async function touchDevices(deps: Deps, ids: number[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await deps.db.update(devices).set({ lastcommunicationat: at }).where(inArray(devices.id, ids));
}

/** Adds dropped-message counts: one statement per distinct count. */
export async function addRejected(deps: Deps, counts: Map<number, number>): Promise<void> {
  const byCount = new Map<number, number[]>();
  for (const [id, n] of counts) byCount.set(n, [...(byCount.get(n) ?? []), id]);
  for (const [n, ids] of byCount) {
    await deps.db
      .update(devices)
      .set({ rejectedCount: sql`${devices.rejectedCount} + ${n}` })
      .where(inArray(devices.id, ids));
  }
}
