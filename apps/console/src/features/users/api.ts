import type { UserCreateBody, UserListItem, UserUpdateBody } from '@cellhub/contract/auth';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface UserListParams {
  current: number;
  per_page: number;
  keyword?: string;
  disabled?: '0' | '1';
}

const KEY = ['users'] as const;

export function useUserList(params: UserListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<UserListItem>('/api/users', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useSetUserDisabled() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ uid, disabled }: { uid: number; disabled: boolean }) =>
      http.put<null>(`/api/users/${uid}/${disabled ? 'disable' : 'enable'}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

export function useResetUserPassword() {
  return useMutation({
    mutationFn: ({ uid, new_password }: { uid: number; new_password: string }) =>
      http.put<null>(`/api/users/${uid}/password`, { new_password }),
  });
}

export function useCreateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    // Silent: the form puts a taken name or phone under its field.
    mutationFn: (body: UserCreateBody) => http.post<{ uid: number }>('/api/users', body, { silent: true }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

export function useUpdateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ uid, body }: { uid: number; body: UserUpdateBody }) =>
      http.put<UserListItem>(`/api/users/${uid}`, body, { silent: true }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}
