import type { DashboardOverview, DashboardTrend } from '@cellhub/contract/dashboard';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
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
