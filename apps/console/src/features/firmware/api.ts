import type {
  FirmwareCreateBody,
  FirmwareItem,
  FirmwareUpdateBody,
  FirmwareVersion,
  FirmwareVersionImportBody,
  FirmwareVersionUpdateBody,
} from '@cellhub/contract/firmware';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface FirmwareListParams {
  current: number;
  per_page: number;
  keyword?: string;
  product_key?: string;
  type?: 0 | 1;
}

const KEY = ['firmware'] as const;

export function useFirmwareList(params: FirmwareListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<FirmwareItem>('/api/firmware', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useFirmware(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'detail', id],
    // Silent: a missing or foreign record is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<FirmwareItem>(`/api/firmware/${id}`, { silent: true }),
    enabled: !!id,
  });
}

/** `enabled`: once the firmware itself is here, so a missing one is not also told by a failed version list. */
export function useFirmwareVersions(
  id: number,
  params: { current: number; per_page: number },
  enabled = true,
) {
  return useQuery({
    queryKey: [...KEY, 'versions', id, params],
    queryFn: () => http.list<FirmwareVersion>(`/api/firmware/${id}/versions`, { ...params }),
    placeholderData: keepPreviousData,
    enabled,
  });
}

export function useFirmwareVersion(id: number, versionId: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'version', id, versionId],
    queryFn: () => http.get<FirmwareVersion>(`/api/firmware/${id}/versions/${versionId}`, { silent: true }),
    enabled: !!versionId,
  });
}

function useInvalidate() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: KEY });
}

/** Form pages show refusals next to their fields, so saving is silent. */
export function useSaveFirmware() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: FirmwareCreateBody | FirmwareUpdateBody }) =>
      id
        ? http.put<FirmwareItem>(`/api/firmware/${id}`, body, { silent: true })
        : http.post<FirmwareItem>('/api/firmware', body, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useDeleteFirmware() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/firmware/${id}`),
    onSuccess: invalidate,
  });
}

export interface UploadFields {
  version: string;
  description: string;
  algorithm: 'md5' | 'sha256';
  checksum: string;
  latest: boolean;
}

/** Multipart upload: the text fields first (the server reads them before the file streams in), then the file. */
export function useUploadVersion() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({
      id,
      fields,
      file,
      onProgress,
      signal,
    }: {
      id: number;
      fields: UploadFields;
      file: File;
      onProgress: (loaded: number, total: number | undefined) => void;
      signal?: AbortSignal;
    }) => {
      const form = new FormData();
      form.append('version', fields.version);
      form.append('description', fields.description);
      form.append('algorithm', fields.algorithm);
      form.append('checksum', fields.checksum);
      form.append('latest', String(fields.latest));
      form.append('file', file, file.name);
      return http.post<FirmwareVersion>(`/api/firmware/${id}/versions`, form, {
        silent: true,
        onUploadProgress: onProgress,
        signal,
      });
    },
    onSuccess: invalidate,
  });
}

export function useImportVersion() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: FirmwareVersionImportBody }) =>
      http.post<FirmwareVersion>(`/api/firmware/${id}/versions/import`, body, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useUpdateVersion() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({
      id,
      versionId,
      body,
      silent = true,
    }: {
      id: number;
      versionId: number;
      body: FirmwareVersionUpdateBody;
      silent?: boolean;
    }) => http.put<FirmwareVersion>(`/api/firmware/${id}/versions/${versionId}`, body, { silent }),
    onSuccess: invalidate,
  });
}

export function useDeleteVersion() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, versionId }: { id: number; versionId: number }) =>
      http.delete<null>(`/api/firmware/${id}/versions/${versionId}`),
    onSuccess: invalidate,
  });
}
