import type { ProductItem } from '@cellhub/contract/products';
import type { ThingModel, ThingModelBody, ThingModelDiff } from '@cellhub/contract/thing-model';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

const KEY = ['thing-model'] as const;
const enc = encodeURIComponent;

/** Products to pick from (admins see every product); the first 100 are plenty for a picker. */
export function useModelProducts() {
  return useQuery({
    queryKey: [...KEY, 'products'],
    queryFn: () => http.list<ProductItem>('/api/products', { current: 1, per_page: 100 }),
    staleTime: 60_000,
  });
}

export function useThingModel(productKey: string | undefined) {
  return useQuery({
    queryKey: [...KEY, 'one', productKey],
    queryFn: () => http.get<ThingModel>(`/api/thing-models/${enc(productKey!)}`),
    enabled: !!productKey,
  });
}

export function usePreviewImport(productKey: string | undefined) {
  return useMutation({
    mutationFn: (body: ThingModelBody) =>
      http.post<ThingModelDiff>(`/api/thing-models/${enc(productKey!)}/preview`, body),
  });
}

export function useImportModel(productKey: string | undefined) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ThingModelBody) => http.put<ThingModel>(`/api/thing-models/${enc(productKey!)}`, body),
    onSuccess: (model) => qc.setQueryData([...KEY, 'one', productKey], model),
  });
}
