import { eq, inArray } from 'drizzle-orm';
import type { InfoUp } from '@cellhub/contract/protocol';
import type { Deps } from '../../lib/deps';
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
