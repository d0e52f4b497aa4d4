/** Device list, create, import, bind and unbind: TanStack Query hooks over /api/devices. */
import type {
  DeviceBindBody,
  DeviceCreateLine,
  DeviceDetail,
  DeviceImportResult,
  DeviceListEnvelope,
  DeviceListItem,
} from '@cellhub/contract/devices';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http, type ListResult } from '../../lib/request';

export interface DeviceFilter {
  keyword?: string;
  product_key?: string;
  online?: '0' | '1';
}

export interface DeviceListParams extends DeviceFilter {
  current: number;
  per_page: number;
}

/** What the device list answers beside its rows: the property names and units of the page's products. */
export type DeviceListExtra = Pick<DeviceListEnvelope, 'property_defs'>;
export type PropertyDefsWire = DeviceListEnvelope['property_defs'];

export const DEVICES_KEY = ['devices'] as const;
export const deviceListKey = (params: DeviceListParams) => [...DEVICES_KEY, 'list', params] as const;

export function useDeviceList(params: DeviceListParams) {
  return useQuery({
    queryKey: deviceListKey(params),
    queryFn: () => http.list<DeviceListItem, DeviceListExtra>('/api/devices', { ...params }),
    placeholderData: keepPreviousData,
  });
}

/** Export reads the filtered list in pages of this size, up to EXPORT_LIMIT rows. */
export const EXPORT_PAGE = 1000;
export const EXPORT_LIMIT = 10_000;

/**
 * Reads the filtered list for an export. `total` is how many match; `totalExact` is false when the server stopped
 * counting (a large fleet): then `total` is a lower bound.
 */
export async function fetchForExport(
  filter: DeviceFilter,
  onProgress?: (loaded: number, total: number) => void,
): Promise<{ rows: DeviceListItem[]; total: number; totalExact: boolean; defs: PropertyDefsWire }> {
  const rows: DeviceListItem[] = [];
  const defs: PropertyDefsWire = {};
  let total = 0;
  let totalExact = true;
  for (let current = 1; rows.length < EXPORT_LIMIT; current++) {
    const page: ListResult<DeviceListItem, DeviceListExtra> = await http.list<
      DeviceListItem,
      DeviceListExtra
    >('/api/devices', { ...filter, current, per_page: EXPORT_PAGE });
    total = page.total;
    totalExact = page.totalExact !== false;
    rows.push(...page.data);
    Object.assign(defs, page.extra?.property_defs);
    onProgress?.(rows.length, Math.min(total, EXPORT_LIMIT));
    if (page.data.length < EXPORT_PAGE || (totalExact && rows.length >= total)) break;
  }
  return { rows: rows.slice(0, EXPORT_LIMIT), total, totalExact, defs };
}

export function useCreateDevices() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { product_key: string; sn: string; name?: string; description?: string }) =>
      http.post<DeviceCreateLine[]>('/api/devices', body),
    onSuccess: () => qc.invalidateQueries({ queryKey: DEVICES_KEY }),
  });
}

export function useImportDevices() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({
      productKey,
      updateOnly,
      file,
    }: {
      productKey: string;
      updateOnly: boolean;
      file: File;
    }) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return http.post<DeviceImportResult>('/api/devices/import', form, {
        params: { product_key: productKey, update_only: updateOnly ? '1' : '0' },
      });
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: DEVICES_KEY }),
  });
}

export function useBindDevice() {
  const qc = useQueryClient();
  return useMutation({
    // Silent: the bind page says a wrong sn or secret beside the fields, and toasts only other refusals.
    mutationFn: (body: DeviceBindBody) =>
      http.post<DeviceDetail>('/api/devices/bind', body, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: DEVICES_KEY }),
  });
}

export function useUnbindDevice() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (sn: string) => http.post<null>(`/api/devices/${encodeURIComponent(sn)}/unbind`),
    onSuccess: () => qc.invalidateQueries({ queryKey: DEVICES_KEY }),
  });
}

export function useDeleteDevice() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (sn: string) => http.delete<null>(`/api/devices/${encodeURIComponent(sn)}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: DEVICES_KEY }),
  });
}
