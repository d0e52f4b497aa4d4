/**
 * The columns of the device list (seed section 3), which of them the user shows (kept in localStorage, so the
 * choice survives sign-out and new tabs), and the plain text of a cell for exports.
 */
import type { DeviceListItem } from '@cellhub/contract/devices';
import { formatTime } from '../../lib/format-time';

export const DEVICE_COLUMNS = [
  'sn',
  'name',
  'product_name',
  'online',
  'owner',
  'last_values',
  'imei',
  'iccid',
  'imsi',
  'phone',
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
  'config_version',
  'protocol',
  'login_protocol',
  'uplink',
  'status',
  'address',
  'latlng',
  'description',
  'activatedat',
  'lastcommunicationat',
  'createdat',
  'updatedat',
] as const;
export type DeviceColumn = (typeof DEVICE_COLUMNS)[number];

export const DEFAULT_COLUMNS: readonly DeviceColumn[] = [
  'sn',
  'name',
  'product_name',
  'online',
  'owner',
  'last_values',
  'imei',
  'iccid',
  'rssi',
  'fw_version',
  'lastcommunicationat',
];

/** Only admins see whose device it is. */
export const ADMIN_COLUMNS: readonly DeviceColumn[] = ['owner'];

export const COLUMNS_STORAGE_KEY = 'cellhub.device-list.columns';

const isColumn = (v: unknown): v is DeviceColumn =>
  typeof v === 'string' && (DEVICE_COLUMNS as readonly string[]).includes(v);

export function loadColumns(storage: Storage = localStorage): DeviceColumn[] {
  try {
    const raw: unknown = JSON.parse(storage.getItem(COLUMNS_STORAGE_KEY) ?? 'null');
    if (Array.isArray(raw)) {
      const cols = raw.filter(isColumn);
      if (cols.length > 0) return cols;
    }
  } catch {
    // A damaged value falls back to the defaults.
  }
  return [...DEFAULT_COLUMNS];
}

/** Saved in the table's order, whatever order they were ticked in. */
export function saveColumns(cols: readonly DeviceColumn[], storage: Storage = localStorage): DeviceColumn[] {
  const ordered = DEVICE_COLUMNS.filter((c) => cols.includes(c));
  storage.setItem(COLUMNS_STORAGE_KEY, JSON.stringify(ordered));
  return ordered;
}

export const formatValues = (values: DeviceListItem['last_values']): string =>
  Object.entries(values)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ');

/** A cell as text, for CSV and Excel. `onlineText` names the two states in the active language. */
export function cellText(
  row: DeviceListItem,
  col: DeviceColumn,
  onlineText: (online: 0 | 1) => string,
): string {
  switch (col) {
    case 'online':
      return onlineText(row.online);
    case 'last_values':
      return formatValues(row.last_values);
    case 'latlng':
      return row.latitude !== null && row.longitude !== null ? `${row.latitude},${row.longitude}` : '';
    case 'config_version':
      return `${row.config_version}/${row.expect_config_version}`;
    case 'activatedat':
    case 'lastcommunicationat':
    case 'createdat':
    case 'updatedat':
      return formatTime(row[col]);
    default: {
      const v = row[col];
      return v === null || v === undefined ? '' : String(v);
    }
  }
}
