import type {
  GatewayBindBody,
  GatewayBindResult,
  GatewayCandidate,
  GatewayRuleBody,
  GatewayRuleDetail,
  GatewayRuleItem,
  GatewayRuleUpdateBody,
} from '@cellhub/contract/gateway-rules';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface GatewayRuleListParams {
  current: number;
  per_page: number;
  keyword?: string;
}

const KEY = ['gateway-rules'] as const;

export function useGatewayRuleList(params: GatewayRuleListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<GatewayRuleItem>('/api/gateway-rules', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useGatewayRule(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'one', id],
    // Silent: a missing rule is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<GatewayRuleDetail>(`/api/gateway-rules/${id}`, { silent: true }),
    enabled: id !== undefined,
    // Sub-devices come and go with their gateway: the table follows without a reload.
    refetchInterval: 10_000,
  });
}

/** Devices a picker offers: gateway-type devices without a rule, or sub-devices bound to no gateway. */
export function useGatewayCandidates(nodetype: 'gateway' | 'sub_device', keyword: string, enabled = true) {
  return useQuery({
    queryKey: [...KEY, 'candidates', nodetype, keyword],
    queryFn: () =>
      http.get<GatewayCandidate[]>('/api/gateway-rules/candidates', {
        params: { nodetype, keyword: keyword || undefined },
      }),
    placeholderData: keepPreviousData,
    enabled,
    staleTime: 5_000,
  });
}

export function useCreateGatewayRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: GatewayRuleBody) =>
      http.post<GatewayRuleDetail>('/api/gateway-rules', body, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useRenameGatewayRule(id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: GatewayRuleUpdateBody) =>
      http.put<GatewayRuleDetail>(`/api/gateway-rules/${id}`, body, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteGatewayRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/gateway-rules/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useBindSubDevices(id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: GatewayBindBody) =>
      http.post<GatewayBindResult>(`/api/gateway-rules/${id}/bind`, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useUnbindSubDevices(id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (sns: string[]) => http.post<GatewayBindResult>(`/api/gateway-rules/${id}/unbind`, { sns }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}
