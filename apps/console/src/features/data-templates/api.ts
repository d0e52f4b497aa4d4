import type {
  SlaveBody,
  SlaveItem,
  TemplateApplyResult,
  TemplateBody,
  TemplateDetail,
  TemplateDeviceItem,
  TemplateItem,
  TemplateUpdateBody,
  VariableBody,
  VariableImportResult,
  VariableItem,
} from '@cellhub/contract/data-templates';
import type { DeviceListItem } from '@cellhub/contract/devices';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { downloadFile } from '../../lib/download-file';
import { http } from '../../lib/request';

export interface TemplateListParams {
  current: number;
  per_page: number;
  keyword?: string;
  type?: string;
}

const KEY = ['data-templates'] as const;

export function useTemplateList(params: TemplateListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<TemplateItem>('/api/data-templates', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useTemplate(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'one', id],
    queryFn: () => http.get<TemplateDetail>(`/api/data-templates/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

export function useTemplateDevices(id: number, params: { current: number; per_page: number }) {
  return useQuery({
    queryKey: [...KEY, 'devices', id, params],
    queryFn: () => http.list<TemplateDeviceItem>(`/api/data-templates/${id}/devices`, { ...params }),
    placeholderData: keepPreviousData,
  });
}

/** Creates (no id) or changes a template; form refusals are shown beside the fields, so silent. */
export function useSaveTemplate() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: TemplateBody | TemplateUpdateBody }) =>
      id === undefined
        ? http.post<TemplateDetail>('/api/data-templates', body)
        : http.put<TemplateDetail>(`/api/data-templates/${id}`, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useCopyTemplate() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.post<TemplateDetail>(`/api/data-templates/${id}/copy`, {}),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteTemplate() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/data-templates/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useSaveSlave(templateId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ slaveId, body }: { slaveId?: number; body: SlaveBody }) =>
      slaveId === undefined
        ? http.post<SlaveItem>(`/api/data-templates/${templateId}/slaves`, body)
        : http.put<SlaveItem>(`/api/data-templates/${templateId}/slaves/${slaveId}`, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteSlave(templateId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (slaveId: number) => http.delete<null>(`/api/data-templates/${templateId}/slaves/${slaveId}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useSaveVariable(templateId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ slaveId, varId, body }: { slaveId: number; varId?: number; body: VariableBody }) =>
      varId === undefined
        ? http.post<VariableItem>(`/api/data-templates/${templateId}/slaves/${slaveId}/variables`, body, {
            silent: true,
          })
        : http.put<VariableItem>(`/api/data-templates/${templateId}/variables/${varId}`, body, {
            silent: true,
          }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteVariable(templateId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (varId: number) => http.delete<null>(`/api/data-templates/${templateId}/variables/${varId}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useImportVariables(templateId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ slaveId, file }: { slaveId: number; file: File }) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return http.post<VariableImportResult>(
        `/api/data-templates/${templateId}/slaves/${slaveId}/variables/import`,
        form,
      );
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export const exportVariables = (templateId: number, slaveId: number, name: string) =>
  downloadFile(
    `/api/data-templates/${templateId}/slaves/${slaveId}/variables/export`,
    `${name}-variables.xlsx`,
  );

export function useApplyTemplate(templateId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (sns: string[]) =>
      http.post<TemplateApplyResult[]>(`/api/data-templates/${templateId}/devices`, { sns }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useUnapplyDevice() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (sn: string) => http.delete<null>(`/api/devices/${encodeURIComponent(sn)}/data-template`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useProductDefault() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ productKey, templateId }: { productKey: string; templateId: number | null }) =>
      templateId === null
        ? http.delete<null>(`/api/products/${encodeURIComponent(productKey)}/data-template`)
        : http.put<null>(`/api/products/${encodeURIComponent(productKey)}/data-template`, {
            template_id: templateId,
          }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

/** Devices to pick from in the apply dialog: the caller's list, searched by keyword. */
export function useDevicePick(keyword: string, open: boolean) {
  return useQuery({
    queryKey: ['devices', 'pick', keyword],
    queryFn: () =>
      http.list<DeviceListItem>('/api/devices', {
        current: 1,
        per_page: 20,
        ...(keyword ? { keyword } : {}),
      }),
    enabled: open,
    placeholderData: keepPreviousData,
  });
}
