import type { PlatformBody, PlatformItem, PlatformType } from '@cellhub/contract/platforms';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface PlatformListParams {
  current: number;
  per_page: number;
  keyword?: string;
  platform_type?: PlatformType;
}

const KEY = ['platforms'] as const;

export function usePlatformList(params: PlatformListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<PlatformItem>('/api/platforms', { ...params }),
    placeholderData: keepPreviousData,
  });
}

/** Silent: the form puts refusals under the fields (10113 details name them). */
export function useSavePlatform() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: PlatformBody }) =>
      id
        ? http.put<PlatformItem>(`/api/platforms/${id}`, body, { silent: true })
        : http.post<PlatformItem>('/api/platforms', body, { silent: true }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

/** Silent: a refusal (10112, bound products) is explained by the page with the count. */
export function useDeletePlatform() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/platforms/${id}`, { silent: true }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}
