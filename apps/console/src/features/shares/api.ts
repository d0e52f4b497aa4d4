/** Sharing: TanStack Query hooks over /api/shares and /api/share-links (docs/sharing.md). */
import type {
  IncomingShareItem,
  OutgoingShareItem,
  ShareLinkAccepted,
  ShareLinkItem,
  ShareLinkPreview,
  ShareUpdateBody,
} from '@cellhub/contract/shares';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { SHARES_KEY } from '../../components/share-dialog/share-api';
import { http } from '../../lib/request';

export interface ShareListParams {
  current: number;
  per_page: number;
  keyword?: string;
  sn?: string;
}

export interface LinkListParams {
  current: number;
  per_page: number;
}

/** The device list and detail mark shared devices: a share that changes changes them too. */
const DEVICES_KEY = ['devices'] as const;

export function useOutgoingShares(params: ShareListParams) {
  return useQuery({
    queryKey: [...SHARES_KEY, 'outgoing', params],
    queryFn: () => http.list<OutgoingShareItem>('/api/shares/outgoing', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useIncomingShares(params: ShareListParams) {
  return useQuery({
    queryKey: [...SHARES_KEY, 'incoming', params],
    queryFn: () => http.list<IncomingShareItem>('/api/shares/incoming', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useShareLinks(params: LinkListParams) {
  return useQuery({
    queryKey: [...SHARES_KEY, 'links', params],
    queryFn: () => http.list<ShareLinkItem>('/api/share-links', { ...params }),
    placeholderData: keepPreviousData,
  });
}

function useInvalidate() {
  const qc = useQueryClient();
  return () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: SHARES_KEY }),
      qc.invalidateQueries({ queryKey: DEVICES_KEY }),
    ]);
}

/** Owner only: both fields are written (`expires_at: null` removes the expiry). */
export function useUpdateShare() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: ShareUpdateBody }) =>
      http.put<unknown>(`/api/shares/${id}`, body),
    onSuccess: invalidate,
  });
}

/** The owner revokes, or the receiver leaves: the same call. */
export function useDeleteShare() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/shares/${id}`),
    onSuccess: invalidate,
  });
}

export function useDeleteShareLink() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/share-links/${id}`),
    onSuccess: invalidate,
  });
}

/**
 * What a share link gives. Silent: the landing page tells a bad, spent or own link itself (10211, 10212) instead
 * of a toast over it.
 */
export function useShareLinkPreview(token: string | undefined) {
  return useQuery({
    queryKey: [...SHARES_KEY, 'preview', token],
    queryFn: () =>
      http.get<ShareLinkPreview>(`/api/share-links/${encodeURIComponent(token!)}`, { silent: true }),
    enabled: token !== undefined,
    staleTime: 0,
  });
}

/**
 * Accepts a link. Only what it changed is read again: reading the preview again would answer 10211 for a link
 * this use has just spent, while the page is on its way to the device list.
 */
export function useAcceptShareLink(token: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () =>
      http.post<ShareLinkAccepted>(`/api/share-links/${encodeURIComponent(token)}/accept`, undefined, {
        silent: true,
      }),
    onSuccess: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: [...SHARES_KEY, 'incoming'] }),
        qc.invalidateQueries({ queryKey: DEVICES_KEY }),
      ]),
  });
}
