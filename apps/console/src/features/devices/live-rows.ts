/** Applies a live device event to a page of the device list, so the table changes without a refetch. */
import type { DeviceListItem } from '@cellhub/contract/devices';
import type { DeviceEvent } from '@cellhub/contract/realtime';
import type { ListResult } from '../../lib/request';

/** Fields of a `device.info` event that are columns of the list; anything else is ignored. */
const INFO_FIELDS = new Set<string>([
  'imsi',
  'iccid',
  'imei',
  'ipaddress',
  'rssi',
  'csq',
  'signal_strength',
  'cellular_mode',
  'band',
  'pci',
  'cell_id',
  'fw_version',
  'hw_version',
  'bootloader_version',
  'login_protocol',
  'uplink',
  'latitude',
  'longitude',
]);

function patch(row: DeviceListItem, e: DeviceEvent): DeviceListItem {
  switch (e.type) {
    case 'device.online':
      return {
        ...row,
        online: e.online,
        lastcommunicationat: e.at,
      };
    case 'device.properties':
      return { ...row, last_values: { ...row.last_values, ...e.values }, lastcommunicationat: e.ts };
    case 'device.info': {
      const fields = Object.fromEntries(Object.entries(e.fields).filter(([k]) => INFO_FIELDS.has(k)));
      return { ...row, ...fields };
    }
    case 'device.config':
      return {
        ...row,
        config_version: e.config_version,
        expect_config_version: e.expect_config_version,
        config_version_different: e.config_version_different,
      };
    default:
      return row;
  }
}

/** The same object when the event is about no row of the page (React Query then re-renders nothing). */
export function applyDeviceEvent(
  list: ListResult<DeviceListItem> | undefined,
  e: DeviceEvent,
): ListResult<DeviceListItem> | undefined {
  if (!list || !list.data.some((r) => r.sn === e.sn)) return list;
  return { ...list, data: list.data.map((r) => (r.sn === e.sn ? patch(r, e) : r)) };
}
