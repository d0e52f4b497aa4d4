import type {
  CommandGroupBody,
  CommandGroupDetail,
  CommandGroupItem,
  CommandGroupUpdateBody,
  GroupCommandBody,
  GroupCommandItem,
} from '@cellhub/contract/command-groups';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface CommandGroupListParams {
  current: number;
  per_page: number;
  keyword?: string;
  product_key?: string;
}

const KEY = ['command-groups'] as const;

export function useCommandGroupList(params: CommandGroupListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<CommandGroupItem>('/api/command-groups', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useCommandGroup(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'one', id],
    // Silent: a missing record is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<CommandGroupDetail>(`/api/command-groups/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

export function useSaveCommandGroup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: CommandGroupBody | CommandGroupUpdateBody }) =>
      id === undefined
        ? http.post<CommandGroupItem>('/api/command-groups', body, { silent: true })
        : http.put<CommandGroupItem>(`/api/command-groups/${id}`, body, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteCommandGroup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/command-groups/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useSaveGroupCommand(groupId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ cmdId, body }: { cmdId?: number; body: GroupCommandBody }) =>
      cmdId === undefined
        ? http.post<GroupCommandItem>(`/api/command-groups/${groupId}/commands`, body, { silent: true })
        : http.put<GroupCommandItem>(`/api/command-groups/${groupId}/commands/${cmdId}`, body, {
            silent: true,
          }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteGroupCommand(groupId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (cmdId: number) => http.delete<null>(`/api/command-groups/${groupId}/commands/${cmdId}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}
