/** Queries and mutations of the device detail page (TanStack Query over the request layer). */
import type { DeviceConfig } from '@cellhub/contract/device-config';
import type {
  CommandBody,
  CommandItem,
  DeviceConfigState,
  DeviceDetail,
  DeviceLogEvent,
  DeviceLogItem,
} from '@cellhub/contract/devices';
import type { ProductDetail } from '@cellhub/contract/products';
import type { PropertySeries, SeriesRange } from '@cellhub/contract/property-series';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

const enc = encodeURIComponent;

export const detailKeys = {
  all: (sn: string) => ['device-detail', sn] as const,
  device: (sn: string) => ['device-detail', sn, 'device'] as const,
  config: (sn: string) => ['device-detail', sn, 'config'] as const,
  commands: (sn: string) => ['device-detail', sn, 'commands'] as const,
  logs: (sn: string) => ['device-detail', sn, 'logs'] as const,
  series: (sn: string) => ['device-detail', sn, 'series'] as const,
};

export function useDeviceDetail(sn: string) {
  return useQuery({
    queryKey: detailKeys.device(sn),
    queryFn: () => http.get<DeviceDetail>(`/api/devices/${enc(sn)}`, { silent: true }),
    retry: false,
  });
}

/** The product's property definitions (names and units); a device page without them still shows the keys. */
export function useProductProperties(productKey: string | undefined) {
  return useQuery({
    queryKey: ['device-detail', 'product', productKey],
    queryFn: () => http.get<ProductDetail>(`/api/products/${enc(productKey!)}`, { silent: true }),
    enabled: !!productKey,
    retry: false,
    staleTime: 60_000,
    select: (p) => p.properties,
  });
}

export function useDeviceConfig(sn: string) {
  return useQuery({
    queryKey: detailKeys.config(sn),
    queryFn: () => http.get<DeviceConfigState>(`/api/devices/${enc(sn)}/config`),
  });
}

export function useSaveDeviceConfig(sn: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (config: DeviceConfig) =>
      http.put<DeviceConfigState>(`/api/devices/${enc(sn)}/config`, { config }, { silent: true }),
    onSuccess: (state) => {
      qc.setQueryData(detailKeys.config(sn), state);
      void qc.invalidateQueries({ queryKey: detailKeys.logs(sn) });
    },
  });
}

export function useCommands(sn: string, page: { current: number; per_page: number }) {
  return useQuery({
    queryKey: [...detailKeys.commands(sn), page],
    queryFn: () => http.list<CommandItem>(`/api/devices/${enc(sn)}/commands`, { ...page }),
    placeholderData: keepPreviousData,
  });
}

export function useSendCommand(sn: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: CommandBody) =>
      http.post<CommandItem>(`/api/devices/${enc(sn)}/commands`, body, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: detailKeys.commands(sn) }),
  });
}

/** Withdraws a pending (queued) command; a refusal (20404: no longer pending) is toasted by the request layer. */
export function useCancelCommand(sn: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      http.post<CommandItem>(`/api/devices/${enc(sn)}/commands/${enc(id)}/cancel`, undefined),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: detailKeys.commands(sn) });
      void qc.invalidateQueries({ queryKey: detailKeys.logs(sn) });
    },
  });
}

export function useDeviceLogs(
  sn: string,
  params: { current: number; per_page: number; event?: DeviceLogEvent },
) {
  return useQuery({
    queryKey: [...detailKeys.logs(sn), params],
    queryFn: () => http.list<DeviceLogItem>(`/api/devices/${enc(sn)}/logs`, { ...params }),
    placeholderData: keepPreviousData,
  });
}

/** The cache entry of one chart, which live readings update in place (properties-panel.tsx). */
export const seriesKey = (sn: string, key: string | undefined, range: SeriesRange) =>
  [...detailKeys.series(sn), key, range] as const;

export function usePropertySeries(sn: string, key: string | undefined, range: SeriesRange) {
  return useQuery({
    queryKey: seriesKey(sn, key, range),
    queryFn: () =>
      http.get<PropertySeries>(`/api/devices/${enc(sn)}/properties/series`, {
        params: { key: key!, range },
      }),
    enabled: !!key,
    placeholderData: keepPreviousData,
    // Live readings are folded in as they arrive; the occasional fetch makes the buckets exact again (the live
    // stream merges a device's reports of a quarter second, and misses what came while the socket was down).
    refetchInterval: 5 * 60_000,
  });
}
