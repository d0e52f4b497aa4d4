import type {
  ConfigApply,
  ConfigApplySummary,
  ConfigTemplateBody,
  ConfigTemplateItem,
  ConfigTemplateUpdateBody,
} from '@cellhub/contract/config-templates';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface TemplateListParams {
  current: number;
  per_page: number;
  keyword?: string;
}

const KEY = ['config-templates'] as const;

export function useTemplateList(params: TemplateListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<ConfigTemplateItem>('/api/config-templates', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useTemplate(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'one', id],
    // Silent: a missing or foreign record is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<ConfigTemplateItem>(`/api/config-templates/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

export function useSaveTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: ConfigTemplateBody | ConfigTemplateUpdateBody }) =>
      id === undefined
        ? http.post<ConfigTemplateItem>('/api/config-templates', body)
        : http.put<ConfigTemplateItem>(`/api/config-templates/${id}`, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/config-templates/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

export function useApplyTemplate(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (sns: string[]) => http.post<ConfigApply>(`/api/config-templates/${id}/apply`, { sns }),
    onSuccess: (apply) => {
      queryClient.setQueryData([...KEY, 'apply', id, apply.id], apply);
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: [...KEY, 'applies', id] }),
        queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] }),
      ]);
    },
  });
}

export function useApplyList(id: number | undefined, current: number) {
  return useQuery({
    queryKey: [...KEY, 'applies', id, current],
    queryFn: () =>
      http.list<ConfigApplySummary>(`/api/config-templates/${id}/applies`, { current, per_page: 10 }),
    enabled: id !== undefined,
    placeholderData: keepPreviousData,
  });
}

export function useApply(id: number | undefined, applyId: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'apply', id, applyId],
    queryFn: () => http.get<ConfigApply>(`/api/config-templates/${id}/applies/${applyId}`),
    enabled: id !== undefined && applyId !== undefined,
    // Events make updates immediate; this catches a device that synced before the page subscribed.
    refetchInterval: (query) =>
      query.state.data?.results.some((r) => r.status === 'pending') ? 4000 : false,
  });
}

export function useRefreshApply() {
  const queryClient = useQueryClient();
  return (id: number) => queryClient.invalidateQueries({ queryKey: [...KEY, 'apply', id] });
}
