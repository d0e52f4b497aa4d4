/** Data transmission rules: TanStack Query hooks over /api/data-transmit (docs/data-transmit.md). */
import type {
  DataTransmitBody,
  DataTransmitDetail,
  DataTransmitEvent,
  DataTransmitItem,
  TransmitCandidate,
} from '@cellhub/contract/data-transmit';
import {
  keepPreviousData,
  type QueryClient,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface DataTransmitListParams {
  current: number;
  per_page: number;
  keyword?: string;
  group?: string;
  status?: '0' | '1';
}

export const TRANSMIT_KEY = ['data-transmit'] as const;

export function useTransmitList(params: DataTransmitListParams) {
  return useQuery({
    queryKey: [...TRANSMIT_KEY, 'list', params],
    queryFn: () => http.list<DataTransmitItem>('/api/data-transmit', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useTransmitGroups() {
  return useQuery({
    queryKey: [...TRANSMIT_KEY, 'groups'],
    queryFn: () => http.get<string[]>('/api/data-transmit/groups'),
    staleTime: 10_000,
  });
}

const detailKey = (id: number | undefined) => [...TRANSMIT_KEY, 'one', id] as const;

export function useTransmitRule(id: number | undefined) {
  return useQuery({
    queryKey: detailKey(id),
    // Silent: a missing rule is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<DataTransmitDetail>(`/api/data-transmit/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

/** Devices the user may put in a rule (own ones and control shares), with the rules each is in already. */
export function useTransmitCandidates(keyword: string) {
  return useQuery({
    queryKey: [...TRANSMIT_KEY, 'devices', keyword],
    queryFn: () =>
      http.list<TransmitCandidate>('/api/data-transmit/devices', {
        current: 1,
        per_page: 50,
        keyword: keyword || undefined,
      }),
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });
}

export function useSaveTransmitRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: DataTransmitBody }) =>
      id === undefined
        ? http.post<DataTransmitItem>('/api/data-transmit', body, { silent: true })
        : http.put<DataTransmitItem>(`/api/data-transmit/${id}`, body, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: TRANSMIT_KEY }),
  });
}

export function useSetTransmitStatus() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, status }: { id: number; status: 0 | 1 }) =>
      http.put<DataTransmitItem>(`/api/data-transmit/${id}/status`, { status }),
    onSuccess: () => qc.invalidateQueries({ queryKey: TRANSMIT_KEY }),
  });
}

export function useDeleteTransmitRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/data-transmit/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: TRANSMIT_KEY }),
  });
}

/** Puts the totals of a `data-transmit.counters` message into the rule's cached detail. */
export function applyTransmitEvent(qc: QueryClient, event: DataTransmitEvent): void {
  qc.setQueryData<DataTransmitDetail>(detailKey(event.id), (old) => {
    if (!old) return old;
    const bySn = new Map(event.devices.map(({ sn, ...counters }) => [sn, counters]));
    return {
      ...old,
      devices: old.devices.map((d) => {
        const c = bySn.get(d.sn);
        return c ? { ...d, counters: c } : d;
      }),
    };
  });
}
