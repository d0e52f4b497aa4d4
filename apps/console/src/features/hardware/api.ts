import type {
  HwGroupBody,
  HwGroupItem,
  HwGroupUpdateBody,
  HwInfoItem,
  HwValueBody,
  HwValueItem,
  HwValueType,
  HwValueUpdateBody,
} from '@cellhub/contract/hardware';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { downloadFile } from '../../lib/download-file';
import { http } from '../../lib/request';

export interface HwValueParams {
  current: number;
  per_page: number;
  type?: HwValueType;
  keyword?: string;
}
export interface HwGroupParams {
  current: number;
  per_page: number;
  keyword?: string;
}
export interface HwInfoParams {
  current: number;
  per_page: number;
  keyword?: string;
}

const VALUES = ['hw', 'values'] as const;
const GROUPS = ['hw', 'groups'] as const;

export function useHwValues(params: HwValueParams) {
  return useQuery({
    queryKey: [...VALUES, 'list', params],
    queryFn: () => http.list<HwValueItem>('/api/hw/values', { ...params }),
    placeholderData: keepPreviousData,
  });
}

/** Every value of the catalogue for the group editor (a catalogue is a few dozen values; 100 per type at most). */
export function useHwValueOptions() {
  return useQuery({
    queryKey: [...VALUES, 'options'],
    queryFn: () => http.list<HwValueItem>('/api/hw/values', { per_page: 100 }),
    staleTime: 30_000,
  });
}

export function useSaveHwValue() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: HwValueBody | HwValueUpdateBody }) =>
      id === undefined
        ? http.post<HwValueItem>('/api/hw/values', body)
        : http.put<HwValueItem>(`/api/hw/values/${id}`, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: VALUES }),
  });
}

export function useDeleteHwValue() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/hw/values/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: VALUES }),
  });
}

export function useHwGroups(params: HwGroupParams) {
  return useQuery({
    queryKey: [...GROUPS, 'list', params],
    queryFn: () => http.list<HwGroupItem>('/api/hw/groups', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useHwGroup(id: number | undefined) {
  return useQuery({
    queryKey: [...GROUPS, 'one', id],
    queryFn: () => http.get<HwGroupItem>(`/api/hw/groups/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

export function useSaveHwGroup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: HwGroupBody | HwGroupUpdateBody }) =>
      id === undefined
        ? http.post<HwGroupItem>('/api/hw/groups', body)
        : http.put<HwGroupItem>(`/api/hw/groups/${id}`, body),
    onSuccess: () =>
      Promise.all([qc.invalidateQueries({ queryKey: GROUPS }), qc.invalidateQueries({ queryKey: VALUES })]),
  });
}

export function useDeleteHwGroup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/hw/groups/${id}`),
    onSuccess: () =>
      Promise.all([qc.invalidateQueries({ queryKey: GROUPS }), qc.invalidateQueries({ queryKey: VALUES })]),
  });
}

export function useHwInfo(params: HwInfoParams) {
  return useQuery({
    queryKey: ['hw', 'info', params],
    queryFn: () => http.list<HwInfoItem>('/api/hw/info', { ...params }),
    placeholderData: keepPreviousData,
  });
}

/** The records matching the filter as a CSV file (the server's export, at most 20,000 rows). */
export const exportHwInfo = (keyword: string | undefined) =>
  downloadFile(
    `/api/hw/info/export${keyword ? `?${new URLSearchParams({ keyword }).toString()}` : ''}`,
    'hw-info.csv',
  );
