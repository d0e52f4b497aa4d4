import type {
  ScriptBody,
  ScriptDetail,
  ScriptItem,
  ScriptTestBody,
  ScriptTestResult,
  ScriptUpdateBody,
  ScriptVersionItem,
} from '@cellhub/contract/scripts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface ScriptListParams {
  current: number;
  per_page: number;
  keyword?: string;
  product_key?: string;
  state?: 'enabled' | 'disabled';
  scope?: 'shared' | 'product';
}

const KEY = ['scripts'] as const;

export function useScriptList(params: ScriptListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<ScriptItem>('/api/scripts', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useScript(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'one', id],
    // Silent: a missing script is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<ScriptDetail>(`/api/scripts/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

export function useScriptVersions(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'versions', id],
    queryFn: () => http.list<ScriptVersionItem>(`/api/scripts/${id}/versions`),
    enabled: id !== undefined,
  });
}

export function useSaveScript() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: ScriptBody | ScriptUpdateBody }) =>
      id === undefined
        ? http.post<ScriptDetail>('/api/scripts', body, { silent: true })
        : http.put<ScriptDetail>(`/api/scripts/${id}`, body, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteScript() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/scripts/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useScriptState() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, enabled }: { id: number; enabled: boolean }) =>
      http.put<ScriptDetail>(`/api/scripts/${id}/state`, { enabled }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useRestoreVersion(id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (version: number) =>
      http.post<ScriptDetail>(`/api/scripts/${id}/versions/${version}/restore`, {}),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useBindScript(id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (productKey: string) =>
      http.put<ScriptDetail>(`/api/scripts/${id}/binding`, { product_key: productKey }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

/** Runs a source on a sample (nothing stored). */
export function useTestRun() {
  return useMutation({
    mutationFn: (body: Partial<ScriptTestBody> & { source: string }) =>
      http.post<ScriptTestResult>('/api/scripts/test-run', body),
  });
}
