/** Access keys: TanStack Query hooks over /api/access-keys (docs/open-api.md). The secret lives only in a create
 * or rotate answer: it is never put in the query cache, so it is gone once the screen that shows it closes. */
import type {
  AccessKeyCreateBody,
  AccessKeyCreated,
  AccessKeyItem,
  AccessKeyRotated,
  AccessKeyUpdateBody,
  AccessKeyUsageDay,
  AccessKeyUse,
  AccessKeyVerifyChannel,
  AccessKeyVerifyCodeResult,
} from '@cellhub/contract/access-keys';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface AccessKeyListParams {
  current: number;
  per_page: number;
  keyword?: string;
}

const KEY = ['access-keys'] as const;
const base = (ak: string) => `/api/access-keys/${encodeURIComponent(ak)}`;

export function useAccessKeyList(params: AccessKeyListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<AccessKeyItem>('/api/access-keys', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useAccessKey(ak: string | undefined) {
  return useQuery({
    queryKey: [...KEY, 'one', ak],
    // Silent: a missing or foreign key is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<AccessKeyItem>(base(ak!), { silent: true }),
    enabled: ak !== undefined,
  });
}

/** Every mutation changes what the list and the key's page show. */
function useInvalidate() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: KEY });
}

export function useCreateAccessKey() {
  const invalidate = useInvalidate();
  return useMutation({
    // Silent: the form puts a refusal under its field.
    mutationFn: (body: AccessKeyCreateBody) =>
      http.post<AccessKeyCreated>('/api/access-keys', body, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useUpdateAccessKey() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ ak, body, silent }: { ak: string; body: AccessKeyUpdateBody; silent?: boolean }) =>
      http.put<AccessKeyItem>(base(ak), body, { silent }),
    onSuccess: invalidate,
  });
}

export function useRotateAccessKey() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (ak: string) => http.post<AccessKeyRotated>(`${base(ak)}/rotate`),
    onSuccess: invalidate,
  });
}

export function useDeleteAccessKey() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (ak: string) => http.delete<null>(base(ak)),
    onSuccess: invalidate,
  });
}

export function useSendVerifyCode() {
  return useMutation({
    mutationFn: ({ ak, channel }: { ak: string; channel: AccessKeyVerifyChannel }) =>
      http.post<AccessKeyVerifyCodeResult>(`${base(ak)}/verify-code`, { channel }),
  });
}

export function useVerifyAccessKey() {
  const invalidate = useInvalidate();
  return useMutation({
    // Silent: a wrong code is said under the code input.
    mutationFn: ({ ak, code }: { ak: string; code: string }) =>
      http.post<AccessKeyItem>(`${base(ak)}/verify`, { code }, { silent: true }),
    onSuccess: invalidate,
  });
}

/** `enabled`: once the key itself is here, so a missing one is not also told by a failed table. */
export function useAccessKeyUses(ak: string, params: { current: number; per_page: number }, enabled = true) {
  return useQuery({
    queryKey: [...KEY, 'uses', ak, params],
    queryFn: () => http.list<AccessKeyUse>(`${base(ak)}/uses`, { ...params }),
    placeholderData: keepPreviousData,
    enabled,
  });
}

export function useAccessKeyUsage(ak: string, enabled = true) {
  return useQuery({
    queryKey: [...KEY, 'usage', ak],
    queryFn: () => http.get<AccessKeyUsageDay[]>(`${base(ak)}/usage`, { params: { days: 30 } }),
    enabled,
  });
}
