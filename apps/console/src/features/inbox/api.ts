import type { InboxCategory, InboxItem, InboxUnread } from '@cellhub/contract/inbox';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

const KEY = ['inbox'] as const;
export const INBOX_PAGE = 10;

/** Unread counts for the bell's badge and the tabs: every 30 s and when the window regains focus. */
export function useUnread() {
  return useQuery({
    queryKey: [...KEY, 'unread'],
    queryFn: () => http.get<InboxUnread>('/api/inbox/unread'),
    refetchInterval: 30_000,
    refetchOnWindowFocus: true,
  });
}

/** One tab's messages, newest first, a page at a time ("load more"). */
export function useMessages(category: InboxCategory, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: [...KEY, 'list', category],
    enabled,
    initialPageParam: 1,
    queryFn: ({ pageParam }) =>
      http.list<InboxItem>('/api/inbox', { category, current: pageParam, per_page: INBOX_PAGE }),
    getNextPageParam: (last, pages) =>
      pages.reduce((n, p) => n + p.data.length, 0) < last.total ? pages.length + 1 : undefined,
    refetchInterval: 30_000,
  });
}

export function useMarkRead() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.post<InboxItem>(`/api/inbox/${id}/read`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

/** Marks every unread message of a tab read. */
export function useMarkAllRead() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (category: InboxCategory) =>
      http.post<{ read: number }>('/api/inbox/read', { category }).then((r) => r.read),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}
