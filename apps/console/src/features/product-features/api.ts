import type { ProductFeatureBody, ProductFeatureItem } from '@cellhub/contract/product-features';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface FeatureListParams {
  current: number;
  per_page: number;
  keyword?: string;
}

const KEY = ['product-features'] as const;

export function useFeatureList(params: FeatureListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<ProductFeatureItem>('/api/product-features', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useFeature(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'one', id],
    queryFn: () => http.get<ProductFeatureItem>(`/api/product-features/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

export function useSaveFeature() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: ProductFeatureBody }) =>
      id === undefined
        ? http.post<ProductFeatureItem>('/api/product-features', body, { silent: true })
        : http.put<ProductFeatureItem>(`/api/product-features/${id}`, body, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteFeature() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/product-features/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}
