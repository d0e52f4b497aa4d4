import type { AlertHistoryItem } from '@cellhub/contract/alerts';
import type { DashboardOverview, DashboardTrend, DashboardWorkplace } from '@cellhub/contract/dashboard';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

const KEY = ['dashboard'] as const;

/** Device counts; refreshed every 30 s while the Workplace is open. */
export function useOverview() {
  return useQuery({
    queryKey: [...KEY, 'overview'],
    queryFn: () => http.get<DashboardOverview>('/api/dashboard/overview'),
    refetchInterval: 30_000,
  });
}

export function useTrend(range: 7 | 15 | 30) {
  return useQuery({
    queryKey: [...KEY, 'trend', range],
    queryFn: () => http.get<DashboardTrend>('/api/dashboard/trend', { params: { range } }),
    placeholderData: keepPreviousData,
    refetchInterval: 60_000,
  });
}

/** Local midnight of today, so "offline today" means the viewer's day. */
export function localMidnight(now = new Date()): string {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  return d.toISOString();
}

/** The operations view: one request for the four blocks, refreshed every 30 s and when the window regains focus. */
export function useWorkplace() {
  const since = localMidnight();
  return useQuery({
    queryKey: [...KEY, 'workplace', since],
    queryFn: () => http.get<DashboardWorkplace>('/api/dashboard/workplace', { params: { since } }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
    refetchOnWindowFocus: true,
  });
}

/** Acknowledges one alert (POST /api/alert/history/{id}/ack), then reloads the view. */
export function useAcknowledgeAlert() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.post<AlertHistoryItem>(`/api/alert/history/${id}/ack`),
    onSuccess: () => qc.invalidateQueries({ queryKey: [...KEY, 'workplace'] }),
  });
}
