import type {
  ForwardDeadItem,
  ForwardRuleBody,
  ForwardRuleCreated,
  ForwardRuleItem,
  ForwardStats,
  ForwardTestResult,
} from '@cellhub/contract/forwarding';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface ForwardListParams {
  current: number;
  per_page: number;
  keyword?: string;
}

const KEY = ['forwarding'] as const;

export function useForwardList(params: ForwardListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<ForwardRuleItem>('/api/forwarding', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useForwardRule(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'one', id],
    queryFn: () => http.get<ForwardRuleItem>(`/api/forwarding/${id}`, { silent: true }),
    enabled: id !== undefined,
    refetchInterval: 10_000,
  });
}

export function useForwardStats(id: number | undefined, range: '1h' | '24h' | '7d') {
  return useQuery({
    queryKey: [...KEY, 'stats', id, range],
    queryFn: () => http.get<ForwardStats>(`/api/forwarding/${id}/stats`, { params: { range }, silent: true }),
    enabled: id !== undefined,
    refetchInterval: 10_000,
  });
}

export function useDeadLetters(id: number | undefined, current: number) {
  return useQuery({
    queryKey: [...KEY, 'dead', id, current],
    queryFn: () => http.list<ForwardDeadItem>(`/api/forwarding/${id}/dead`, { current, per_page: 10 }),
    enabled: id !== undefined,
    placeholderData: keepPreviousData,
    // As often as the counters beside it: a message that dies shows in the list when the count says it did.
    refetchInterval: 10_000,
  });
}

export function useSaveForwardRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: ForwardRuleBody }) =>
      id === undefined
        ? http.post<ForwardRuleCreated>('/api/forwarding', body, { silent: true })
        : http.put<ForwardRuleItem>(`/api/forwarding/${id}`, body, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteForwardRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/forwarding/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useForwardEnabled() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, enabled }: { id: number; enabled: boolean }) =>
      http.put<ForwardRuleItem>(`/api/forwarding/${id}/enabled`, { enabled }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useRotateSecret() {
  return useMutation({
    mutationFn: (id: number) => http.post<{ secret: string }>(`/api/forwarding/${id}/secret`, {}),
  });
}

export function useTestSend() {
  return useMutation({
    mutationFn: ({ id, kind }: { id: number; kind: ForwardRuleItem['kinds'][number] }) =>
      http.post<ForwardTestResult>(`/api/forwarding/${id}/test`, { kind }, { silent: true }),
  });
}

export function useReplay() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ids }: { id: number; ids?: number[] }) =>
      http.post<{ replayed: number }>(`/api/forwarding/${id}/dead/replay`, ids ? { ids } : {}),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}
