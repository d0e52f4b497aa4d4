/** Remote tunnels of one device (docs/tunnels.md): TanStack Query over the request layer. */
import type { TunnelBody, TunnelItem } from '@cellhub/contract/tunnels';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

const enc = encodeURIComponent;

export const tunnelKeys = {
  all: (sn: string) => ['tunnels', sn] as const,
  list: (sn: string, page: { current: number; per_page: number }) => ['tunnels', sn, page] as const,
};

/** While a tunnel is opening or open, its status and bytes are read again every few seconds. */
export const LIVE_REFRESH_MS = 3000;

export function useTunnels(sn: string, page: { current: number; per_page: number }, enabled = true) {
  return useQuery({
    enabled,
    queryKey: tunnelKeys.list(sn, page),
    queryFn: () => http.list<TunnelItem>(`/api/devices/${enc(sn)}/tunnels`, { ...page }, { silent: true }),
    placeholderData: keepPreviousData,
    retry: false,
    refetchInterval: (q) =>
      q.state.data?.data.some((x) => x.status === 'open' || x.status === 'opening') ? LIVE_REFRESH_MS : false,
  });
}

/** Opens a tunnel; resolves once the device connected back (the request waits for it). */
export function useOpenTunnel(sn: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: TunnelBody) => http.post<TunnelItem>(`/api/devices/${enc(sn)}/tunnels`, body),
    onSettled: () => qc.invalidateQueries({ queryKey: tunnelKeys.all(sn) }),
  });
}

export function useCloseTunnel(sn: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.post<TunnelItem>(`/api/devices/${enc(sn)}/tunnels/${id}/close`),
    onSettled: () => qc.invalidateQueries({ queryKey: tunnelKeys.all(sn) }),
  });
}
