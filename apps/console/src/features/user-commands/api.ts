import type {
  UserCommandBody,
  UserCommandItem,
  UserCommandRun,
  UserCommandRunSummary,
  UserCommandUpdateBody,
} from '@cellhub/contract/user-commands';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface UserCommandListParams {
  current: number;
  per_page: number;
  keyword?: string;
}

const KEY = ['user-commands'] as const;

export function useUserCommandList(params: UserCommandListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<UserCommandItem>('/api/user-commands', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useUserCommand(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'one', id],
    // Silent: a missing or foreign record is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<UserCommandItem>(`/api/user-commands/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

export function useSaveUserCommand() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: UserCommandBody | UserCommandUpdateBody }) =>
      id === undefined
        ? http.post<UserCommandItem>('/api/user-commands', body, { silent: true })
        : http.put<UserCommandItem>(`/api/user-commands/${id}`, body, { silent: true }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteUserCommand() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/user-commands/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

export function useSendUserCommand(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (sns: string[]) => http.post<UserCommandRun>(`/api/user-commands/${id}/send`, { sns }),
    onSuccess: (run) => {
      queryClient.setQueryData([...KEY, 'run', id, run.id], run);
      // The run count of the command and the history both changed.
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: [...KEY, 'runs', id] }),
        queryClient.invalidateQueries({ queryKey: [...KEY, 'one', id] }),
        queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] }),
      ]);
    },
  });
}

/** `enabled`: once the command itself is here, so a missing one is not also told by a failed run list. */
export function useRunList(id: number, current: number, enabled = true) {
  return useQuery({
    queryKey: [...KEY, 'runs', id, current],
    queryFn: () =>
      http.list<UserCommandRunSummary>(`/api/user-commands/${id}/runs`, { current, per_page: 10 }),
    placeholderData: keepPreviousData,
    enabled,
  });
}

export function useRun(id: number, runId: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'run', id, runId],
    queryFn: () => http.get<UserCommandRun>(`/api/user-commands/${id}/runs/${runId}`),
    enabled: runId !== undefined,
    // Events make updates immediate; this catches a reply that came before the page subscribed (fast devices
    // answer while the send request is still running) and timeouts on a dropped socket.
    refetchInterval: (query) => (query.state.data?.results.some((r) => r.status === 'sent') ? 4000 : false),
  });
}

export function useRefreshRun() {
  const queryClient = useQueryClient();
  return (id: number, runId: number) =>
    queryClient.invalidateQueries({ queryKey: [...KEY, 'run', id, runId] });
}
