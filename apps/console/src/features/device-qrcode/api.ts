import type { PublicDevice } from '@cellhub/contract/devices';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../lib/request';

/** Public: no token needed. A scanned label keeps itself current while the page stays open. */
export function usePublicDevice(sn: string | undefined) {
  return useQuery({
    queryKey: ['public-device', sn],
    queryFn: () => http.get<PublicDevice>(`/api/public/devices/${encodeURIComponent(sn!)}`, { silent: true }),
    enabled: !!sn,
    retry: false,
    refetchInterval: 30_000,
  });
}
