import type {
  AlertCodeSent,
  AlertConfigBody,
  AlertConfigItem,
  AlertContactBody,
  AlertContactItem,
  AlertHistoryItem,
  AlertHistoryStatus,
  AlertTriggerBody,
  AlertTriggerItem,
  AlertVerifyChannel,
} from '@cellhub/contract/alerts';
import type { DeviceItem } from '@cellhub/contract/devices';
import type { ProductDetail } from '@cellhub/contract/products';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';
import { fetchDeviceTemplate, withTemplateProperties } from '../data-templates/device-properties';

const KEY = ['alerts'] as const;
const enc = encodeURIComponent;

export interface TriggerListParams {
  current: number;
  per_page: number;
  keyword?: string;
  type?: number;
  enable?: number;
}

export interface HistoryListParams {
  current: number;
  per_page: number;
  status?: AlertHistoryStatus;
  acknowledged?: number;
  trigger_id?: number;
}

export interface SimpleListParams {
  current: number;
  per_page: number;
  keyword?: string;
}

/** The state column follows the devices: read again every 5 s while the list is open. */
export function useTriggerList(params: TriggerListParams) {
  return useQuery({
    queryKey: [...KEY, 'triggers', params],
    queryFn: () => http.list<AlertTriggerItem>('/api/alert/triggers', { ...params }),
    placeholderData: keepPreviousData,
    refetchInterval: 5000,
    staleTime: 0,
  });
}

export function useTrigger(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'trigger', id],
    // Silent: a missing or foreign record is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<AlertTriggerItem>(`/api/alert/triggers/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

/** Alerts change without the page doing anything: the list is read again every 5 s while it is open. */
export function useHistoryList(params: HistoryListParams) {
  return useQuery({
    queryKey: [...KEY, 'history', params],
    queryFn: () => http.list<AlertHistoryItem>('/api/alert/history', { ...params }),
    placeholderData: keepPreviousData,
    refetchInterval: 5000,
    staleTime: 0,
  });
}

export function useConfigList(params: SimpleListParams) {
  return useQuery({
    queryKey: [...KEY, 'configs', params],
    queryFn: () => http.list<AlertConfigItem>('/api/alert/configs', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useConfig(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'config', id],
    queryFn: () => http.get<AlertConfigItem>(`/api/alert/configs/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

export function useContactList(params: SimpleListParams) {
  return useQuery({
    queryKey: [...KEY, 'contacts', params],
    queryFn: () => http.list<AlertContactItem>('/api/alert/contacts', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useContact(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'contact', id],
    queryFn: () => http.get<AlertContactItem>(`/api/alert/contacts/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

/** Options of the pickers: the first 100 (contacts and triggers are few per user). */
export function useContactOptions() {
  return useQuery({
    queryKey: [...KEY, 'contact-options'],
    queryFn: () => http.list<AlertContactItem>('/api/alert/contacts', { current: 1, per_page: 100 }),
  });
}

export function useTriggerOptions() {
  return useQuery({
    queryKey: [...KEY, 'trigger-options'],
    queryFn: () => http.list<AlertTriggerItem>('/api/alert/triggers', { current: 1, per_page: 100 }),
  });
}

export function useDeviceOptions(keyword: string) {
  return useQuery({
    queryKey: ['alert-device-options', keyword],
    queryFn: () =>
      http.list<DeviceItem>('/api/devices', { current: 1, per_page: 50, keyword: keyword || undefined }),
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });
}

/** The properties of the selected device's product (the trigger form's property picker). */
export function useDeviceProperties(sn: string | undefined) {
  return useQuery({
    queryKey: ['alert-device-properties', sn],
    queryFn: async () => {
      const device = await http.get<DeviceItem>(`/api/devices/${enc(sn ?? '')}`, { silent: true });
      const product = await http.get<ProductDetail>(`/api/products/${enc(device.product_key)}`, {
        silent: true,
      });
      // A data template's variables are the device's properties too (after the product's).
      const template = await fetchDeviceTemplate(device.sn).catch(() => null);
      return withTemplateProperties(product.properties, template ?? undefined) ?? [];
    },
    enabled: !!sn,
    staleTime: 30_000,
  });
}

function useInvalidate() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: KEY });
}

/** Form pages show the seed's codes next to their fields, so saves are silent. */
export function useSaveTrigger() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: AlertTriggerBody }) =>
      id
        ? http.put<AlertTriggerItem>(`/api/alert/triggers/${id}`, body, { silent: true })
        : http.post<AlertTriggerItem>('/api/alert/triggers', body, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useSetTriggerEnable() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, enable }: { id: number; enable: 0 | 1 }) =>
      http.put<AlertTriggerItem>(`/api/alert/triggers/${id}/enable`, { enable }),
    onSuccess: invalidate,
  });
}

export function useDeleteTrigger() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/alert/triggers/${id}`),
    onSuccess: invalidate,
  });
}

export function useSaveConfig() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: AlertConfigBody }) =>
      id
        ? http.put<AlertConfigItem>(`/api/alert/configs/${id}`, body, { silent: true })
        : http.post<AlertConfigItem>('/api/alert/configs', body, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useDeleteConfig() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/alert/configs/${id}`),
    onSuccess: invalidate,
  });
}

export function useSaveContact() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: AlertContactBody }) =>
      id
        ? http.put<AlertContactItem>(`/api/alert/contacts/${id}`, body, { silent: true })
        : http.post<AlertContactItem>('/api/alert/contacts', body, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useDeleteContact() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/alert/contacts/${id}`),
    onSuccess: invalidate,
  });
}

/** Toasts its own failures (20117, 429 ...): the code field has nothing to mark. */
export function useSendContactCode() {
  return useMutation({
    mutationFn: ({ id, channel }: { id: number; channel: AlertVerifyChannel }) =>
      http.post<AlertCodeSent>(`/api/alert/contacts/${id}/code`, { channel }),
  });
}

export function useVerifyContact() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, channel, code }: { id: number; channel: AlertVerifyChannel; code: string }) =>
      http.post<AlertContactItem>(`/api/alert/contacts/${id}/verify`, { channel, code }, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useAcknowledge() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (ids: number[]) =>
      ids.length === 1
        ? http.post<AlertHistoryItem>(`/api/alert/history/${ids[0]}/ack`).then(() => 1)
        : http.post<{ acknowledged: number }>('/api/alert/history/ack', { ids }).then((r) => r.acknowledged),
    onSuccess: invalidate,
  });
}
