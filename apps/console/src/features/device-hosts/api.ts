import type {
  DeviceHostAddress,
  DeviceHostBody,
  DeviceHostDetail,
  DeviceHostItem,
  DeviceHostUpdateBody,
} from '@cellhub/contract/device-hosts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface DeviceHostListParams {
  current: number;
  per_page: number;
  keyword?: string;
  protocol?: 'tcp' | 'udp';
}

const KEY = ['device-hosts'] as const;
/** Counters and connections live in the server's memory: the pages read them again this often. */
export const LIVE_MS = 3000;

export function useDeviceHostList(params: DeviceHostListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<DeviceHostItem>('/api/device-hosts', { ...params }),
    placeholderData: keepPreviousData,
    refetchInterval: LIVE_MS,
  });
}

export function useDeviceHost(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'one', id],
    // Silent: a missing record is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<DeviceHostDetail>(`/api/device-hosts/${id}`, { silent: true }),
    enabled: id !== undefined,
    refetchInterval: LIVE_MS,
  });
}

export function useSaveDeviceHost() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: DeviceHostBody | DeviceHostUpdateBody }) =>
      id === undefined
        ? http.post<DeviceHostItem>('/api/device-hosts', body)
        : http.put<DeviceHostItem>(`/api/device-hosts/${id}`, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteDeviceHost() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/device-hosts/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

/** The enabled hosts' addresses (any signed-in user), e.g. for a device's socket settings. */
export function useDeviceHostAddresses(enabled = true) {
  return useQuery({
    queryKey: [...KEY, 'addresses'],
    queryFn: () => http.get<DeviceHostAddress[]>('/api/device-hosts/addresses', { silent: true }),
    enabled,
    staleTime: 30_000,
  });
}
