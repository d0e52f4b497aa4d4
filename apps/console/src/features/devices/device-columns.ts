/**
 * The columns of the device list (seed section 3), which of them the user shows (kept in localStorage, so the
 * choice survives sign-out and new tabs), the text of a cell, and the typed rows of an export.
 */
import type { DeviceListItem } from '@cellhub/contract/devices';
import { formatTime } from '../../lib/format-time';
import type { Locale } from '../../lib/i18n';
import {
  formatValues,
  orderedKeys,
  propertyName,
  type PropertyDef,
  type PropertyDefs,
} from './property-labels';

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

/** Columns whose value is a number: exports write them as numbers (Excel numeric cells, unquoted in CSV). */
const NUMERIC_COLUMNS: ReadonlySet<DeviceColumn> = new Set(['rssi', 'csq', 'signal_strength', 'status']);

/**
 * A cell as text, for the table. `onlineText` names the two states in the active language; `values` renders the
 * latest data in the product's words (property-labels.ts).
 */
export function cellText(
  row: DeviceListItem,
  col: DeviceColumn,
  onlineText: (online: 0 | 1) => string,
  values: (row: DeviceListItem) => string = (r) => formatValues(r.last_values, undefined, 'zh-CN'),
): string {
  switch (col) {
    case 'online':
      return onlineText(row.online);
    case 'last_values':
      return values(row);
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

export type ExportCell = string | number | boolean;

export interface ExportTable {
  headers: string[];
  rows: ExportCell[][];
}

/**
 * The rows of an export in the columns shown. "Latest data" becomes one column per property (the product's name
 * and unit in the header, the bare value in the cell), so a spreadsheet can sort and sum them; numbers stay
 * numbers. Identifiers made of digits (IMEI, ICCID) stay text.
 */
export function exportTable(
  rows: readonly DeviceListItem[],
  columns: readonly DeviceColumn[],
  opts: {
    header: (col: DeviceColumn) => string;
    onlineText: (online: 0 | 1) => string;
    defs: PropertyDefs;
    lang: Locale;
  },
): ExportTable {
  // Property columns: each product's properties in its order (first product met first), then undefined keys.
  const propKeys: string[] = [];
  const propDef = new Map<string, PropertyDef>();
  if (columns.includes('last_values')) {
    const seen = new Set<string>();
    const products = [...new Set(rows.map((r) => r.product_key))];
    for (const pk of products) {
      const defs = opts.defs.get(pk) ?? [];
      const keys = new Set(
        rows.filter((r) => r.product_key === pk).flatMap((r) => Object.keys(r.last_values)),
      );
      for (const k of orderedKeys(keys, defs)) {
        if (seen.has(k)) continue;
        seen.add(k);
        propKeys.push(k);
        const def = defs.find((d) => d.key === k);
        if (def) propDef.set(k, def);
      }
    }
  }
  const propHeader = (k: string) => {
    const def = propDef.get(k);
    const name = propertyName(def, k, opts.lang);
    return def?.unit ? `${name} (${def.unit})` : name;
  };
  const headers = columns.flatMap((c) => (c === 'last_values' ? propKeys.map(propHeader) : [opts.header(c)]));
  const out = rows.map((r) =>
    columns.flatMap((c): ExportCell[] => {
      if (c === 'last_values') return propKeys.map((k) => r.last_values[k] ?? '');
      if (NUMERIC_COLUMNS.has(c)) {
        const v = r[c as 'rssi' | 'csq' | 'signal_strength' | 'status'];
        return [typeof v === 'number' ? v : ''];
      }
      return [cellText(r, c, opts.onlineText)];
    }),
  );
  return { headers, rows: out };
}
