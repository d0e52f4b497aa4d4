/** Folds a live device event into the detail the page shows, so it updates without refetching. */
import type { DeviceDetail } from '@cellhub/contract/devices';
import type { DeviceEvent } from '@cellhub/contract/realtime';

/** `P/up/info` fields that the detail shows; anything else a device sends is ignored here. */
const INFO_FIELDS = new Set<keyof DeviceDetail>([
  'fw_version',
  'hw_version',
  'bootloader_version',
  'imei',
  'imsi',
  'iccid',
  'phone',
  'ipaddress',
  'rssi',
  'csq',
  'signal_strength',
  'cellular_mode',
  'band',
  'pci',
  'cell_id',
  'latitude',
  'longitude',
  'uplink',
  'login_protocol',
]);

export function applyDeviceEvent(d: DeviceDetail, e: DeviceEvent): DeviceDetail {
  if (e.sn !== d.sn) return d;
  switch (e.type) {
    case 'device.online':
      return {
        ...d,
        online: e.online,
        lastcommunicationat: e.at,
        // As the server: only the first connect while owned activates (a stock device's factory test does not).
        activatedat: d.activatedat ?? (e.online === 1 && d.uid != null ? e.at : null),
      };
    case 'device.info': {
      const next: Record<string, unknown> = { ...d };
      for (const [k, v] of Object.entries(e.fields))
        if (INFO_FIELDS.has(k as keyof DeviceDetail)) next[k] = v;
      return next as DeviceDetail;
    }
    case 'device.properties': {
      const props = new Map(d.properties.map((p) => [p.key, p]));
      for (const [key, value] of Object.entries(e.values)) {
        const old = props.get(key);
        // A buffered batch may arrive after newer values: keep the newest.
        if (!old || old.ts <= e.ts) props.set(key, { key, ts: e.ts, value });
      }
      return {
        ...d,
        properties: [...props.values()].sort((a, b) => a.key.localeCompare(b.key)),
      };
    }
    case 'device.config':
      return {
        ...d,
        config_version: e.config_version,
        expect_config_version: e.expect_config_version,
        config_version_different: e.config_version_different,
      };
    default:
      return d;
  }
}
