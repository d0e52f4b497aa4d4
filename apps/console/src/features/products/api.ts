import type { DeviceItem } from '@cellhub/contract/devices';
import type { PlatformCredentialItem, PlatformOption, PlatformSyncResult } from '@cellhub/contract/platforms';
import type {
  ProductCreateBody,
  ProductDetail,
  ProductItem,
  ProductProperty,
  ProductUpdateBody,
} from '@cellhub/contract/products';
import type { ThingModel } from '@cellhub/contract/thing-model';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface ProductListParams {
  current: number;
  per_page: number;
  keyword?: string;
}

const KEY = ['products'] as const;
const enc = encodeURIComponent;

export function useProductList(params: ProductListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<ProductItem>('/api/products', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useProduct(productKey: string | undefined) {
  return useQuery({
    queryKey: [...KEY, 'detail', productKey],
    // Silent: a missing or foreign product is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<ProductDetail>(`/api/products/${enc(productKey ?? '')}`, { silent: true }),
    enabled: !!productKey,
  });
}

/** The product's thing model (admins read it), for the property add page's definitions. */
export function useProductModel(productKey: string, enabled: boolean) {
  return useQuery({
    queryKey: ['thing-model', 'one', productKey],
    queryFn: () => http.get<ThingModel>(`/api/thing-models/${enc(productKey)}`, { silent: true }),
    enabled,
    retry: false,
    staleTime: 30_000,
  });
}

export function useProductDevices(productKey: string, params: { current: number; per_page: number }) {
  return useQuery({
    queryKey: [...KEY, 'devices', productKey, params],
    queryFn: () => http.list<DeviceItem>('/api/devices', { ...params, product_key: productKey }),
    placeholderData: keepPreviousData,
  });
}

export function usePlatformOptions() {
  return useQuery({
    queryKey: ['platforms', 'options'],
    queryFn: () => http.get<PlatformOption[]>('/api/platforms/options'),
  });
}

export function usePlatformCredentials(productKey: string, params: { current: number; per_page: number }) {
  return useQuery({
    queryKey: [...KEY, 'credentials', productKey, params],
    queryFn: () =>
      http.list<PlatformCredentialItem>(`/api/products/${enc(productKey)}/platform-credentials`, {
        ...params,
      }),
    placeholderData: keepPreviousData,
  });
}

function useInvalidate() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: KEY });
}

/** Form pages show refusals next to the fields themselves. */
export function useSaveProduct() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({
      productKey,
      body,
    }: {
      productKey?: string;
      body: ProductCreateBody | ProductUpdateBody;
    }) =>
      productKey
        ? http.put<ProductDetail>(`/api/products/${enc(productKey)}`, body, { silent: true })
        : http.post<ProductDetail>('/api/products', body, { silent: true }),
    onSuccess: invalidate,
  });
}

/** Silent: a refusal (10112, devices left) is explained by the page with the count. */
export function useDeleteProduct() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (productKey: string) =>
      http.delete<null>(`/api/products/${enc(productKey)}`, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useRotateSecret() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (productKey: string) => http.post<ProductDetail>(`/api/products/${enc(productKey)}/secret`),
    onSuccess: invalidate,
  });
}

export function useSaveProperty() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({
      productKey,
      key,
      property,
    }: {
      productKey: string;
      /** The key being edited; absent to add. */
      key?: string;
      property: ProductProperty;
    }) =>
      key
        ? http.put<ProductDetail>(`/api/products/${enc(productKey)}/properties/${enc(key)}`, property, {
            silent: true,
          })
        : http.post<ProductDetail>(`/api/products/${enc(productKey)}/properties`, property, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useDeleteProperty() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ productKey, key }: { productKey: string; key: string }) =>
      http.delete<ProductDetail>(`/api/products/${enc(productKey)}/properties/${enc(key)}`),
    onSuccess: invalidate,
  });
}

export interface CredentialResult {
  sn: string;
  code: number;
  message?: string;
}

export function useSetCredentials() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({
      productKey,
      items,
    }: {
      productKey: string;
      items: { sn: string; device_name?: string; device_secret: string }[];
    }) => http.put<CredentialResult[]>(`/api/products/${enc(productKey)}/platform-credentials`, { items }),
    onSuccess: invalidate,
  });
}

export function usePlatformSync() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (productKey: string) =>
      http.post<PlatformSyncResult>(`/api/products/${enc(productKey)}/platform-sync`),
    onSuccess: invalidate,
  });
}
