import type {
  DeviceTimeline,
  ShipmentBody,
  ShipmentDetail,
  ShipmentItem,
  ShipmentResult,
  StockCheckLine,
  StockItem,
  StockRangeBody,
  StockRangeResult,
} from '@cellhub/contract/device-stock';
import type { DeviceCreateBody, DeviceCreateLine, DeviceImportResult } from '@cellhub/contract/devices';
import type {
  ProductionTaskItem,
  ProductiveGroupDevice,
  ProductiveGroupItem,
} from '@cellhub/contract/production';
import { SHIP_MAX } from '@cellhub/contract/device-stock';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { downloadFile } from '../../lib/download-file';
import { http } from '../../lib/request';

export interface StockParams {
  current: number;
  per_page: number;
  keyword?: string;
  product_key?: string;
  created_from?: string;
  created_to?: string;
  task_id?: number;
  group_id?: number;
  tested?: 'untested' | 'ok' | 'failed';
}
export interface ShipmentParams {
  current: number;
  per_page: number;
  keyword?: string;
}

const STOCK = ['device-stock'] as const;

export function useStock(params: StockParams) {
  return useQuery({
    queryKey: [...STOCK, 'list', params],
    queryFn: () => http.list<StockItem>('/api/device-stock', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export const exportStock = (params: Omit<StockParams, 'current' | 'per_page'>) => {
  const q = new URLSearchParams(
    Object.entries(params)
      .filter(([, v]) => v !== undefined && v !== '')
      .map(([k, v]) => [k, String(v)]),
  ).toString();
  return downloadFile(`/api/device-stock/export${q ? `?${q}` : ''}`, 'device-stock.csv');
};

export function useTaskOptions() {
  return useQuery({
    queryKey: [...STOCK, 'task-options'],
    queryFn: () => http.list<ProductionTaskItem>('/api/production/tasks', { per_page: 100 }),
    staleTime: 60_000,
    select: (res) => res.data.map((p) => ({ label: p.name, value: p.id })),
  });
}

export function useGroupOptions() {
  return useQuery({
    queryKey: [...STOCK, 'group-options'],
    queryFn: () => http.list<ProductiveGroupItem>('/api/production/groups', { per_page: 100 }),
    staleTime: 30_000,
    select: (res) => res.data.map((g) => ({ label: `${g.name} (${g.devices})`, value: g.id })),
  });
}

/** The in-stock sns of a productive group, read page by page up to what one shipment takes (SHIP_MAX). */
export async function groupStockSns(id: number): Promise<string[]> {
  const out: string[] = [];
  for (let current = 1; out.length < SHIP_MAX; current += 1) {
    const page = await http.list<ProductiveGroupDevice>(`/api/production/groups/${id}/devices`, {
      current,
      per_page: 100,
    });
    out.push(...page.data.filter((d) => d.uid === null).map((d) => d.sn));
    if (current * 100 >= page.total) break;
  }
  return out.slice(0, SHIP_MAX);
}

/** Every device write here changes the stock, the device list and the shipments. */
function useInvalidate() {
  const qc = useQueryClient();
  return () =>
    Promise.all([qc.invalidateQueries({ queryKey: STOCK }), qc.invalidateQueries({ queryKey: ['devices'] })]);
}

export function useCreateRange() {
  const done = useInvalidate();
  return useMutation({
    mutationFn: (body: StockRangeBody) => http.post<StockRangeResult>('/api/device-stock/range', body),
    onSuccess: done,
  });
}

/** Several sns one per line: the device create, without an owner (an admin's devices are then in stock). */
export function useCreateSns() {
  const done = useInvalidate();
  return useMutation({
    mutationFn: (body: DeviceCreateBody) => http.post<DeviceCreateLine[]>('/api/devices', body),
    onSuccess: done,
  });
}

export function useImportStock() {
  const done = useInvalidate();
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
    onSuccess: done,
  });
}

/** The live check of scanned lines (silent: a failed check marks the line, it does not toast). */
export const checkSns = (sns: string[]) =>
  http.post<StockCheckLine[]>('/api/device-stock/check', { sns }, { silent: true });

export function useShip() {
  const done = useInvalidate();
  return useMutation({
    mutationFn: (body: ShipmentBody) => http.post<ShipmentResult>('/api/device-stock/shipments', body),
    onSuccess: done,
  });
}

export function useShipments(params: ShipmentParams) {
  return useQuery({
    queryKey: [...STOCK, 'shipments', params],
    queryFn: () => http.list<ShipmentItem>('/api/device-stock/shipments', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useShipment(id: number | undefined) {
  return useQuery({
    queryKey: [...STOCK, 'shipment', id],
    queryFn: () => http.get<ShipmentDetail>(`/api/device-stock/shipments/${id}`),
    enabled: id !== undefined,
  });
}

export function useTimeline(sn: string) {
  return useQuery({
    queryKey: ['devices', sn, 'timeline'],
    queryFn: () => http.get<DeviceTimeline>(`/api/devices/${encodeURIComponent(sn)}/timeline`),
  });
}
