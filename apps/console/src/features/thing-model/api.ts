import type { ThingModel, ThingModelBody, ThingModelDiff } from '@cellhub/contract/thing-model';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

const KEY = ['thing-model'] as const;
const enc = encodeURIComponent;

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
