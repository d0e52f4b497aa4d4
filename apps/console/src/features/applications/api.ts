import type {
  ApplicationCreateBody,
  ApplicationDownloadLink,
  ApplicationItem,
  ApplicationPlatform,
  ApplicationUpdateBody,
  ApplicationVersion,
  ApplicationVersionUpdateBody,
} from '@cellhub/contract/applications';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { buildUrl, http } from '../../lib/request';

export interface ApplicationListParams {
  current: number;
  per_page: number;
  keyword?: string;
  platform?: ApplicationPlatform;
}

const KEY = ['applications'] as const;

export function useApplicationList(params: ApplicationListParams) {
  return useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => http.list<ApplicationItem>('/api/applications', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useApplication(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'detail', id],
    // Silent: a missing record is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<ApplicationItem>(`/api/applications/${id}`, { silent: true }),
    enabled: !!id,
  });
}

export function useApplicationVersions(
  id: number,
  params: { current: number; per_page: number },
  enabled = true,
) {
  return useQuery({
    queryKey: [...KEY, 'versions', id, params],
    queryFn: () => http.list<ApplicationVersion>(`/api/applications/${id}/versions`, { ...params }),
    placeholderData: keepPreviousData,
    enabled,
  });
}

function useInvalidate() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: KEY });
}

/** Form pages show refusals next to their fields, so saving is silent. */
export function useSaveApplication() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: ApplicationCreateBody | ApplicationUpdateBody }) =>
      id
        ? http.put<ApplicationItem>(`/api/applications/${id}`, body, { silent: true })
        : http.post<ApplicationItem>('/api/applications', body as ApplicationCreateBody, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useDeleteApplication() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/applications/${id}`),
    onSuccess: invalidate,
  });
}

export interface UploadFields {
  version: string;
  notes_zh: string;
  notes_en: string;
  latest: boolean;
  force_update: boolean;
}

/** Multipart upload: the text fields first (the server reads them before the package streams in), then the file. */
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
      form.append('notes_zh', fields.notes_zh);
      form.append('notes_en', fields.notes_en);
      form.append('latest', String(fields.latest));
      form.append('force_update', String(fields.force_update));
      form.append('file', file, file.name);
      return http.post<ApplicationVersion>(`/api/applications/${id}/versions`, form, {
        silent: true,
        onUploadProgress: onProgress,
        signal,
      });
    },
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
      body: ApplicationVersionUpdateBody;
      silent?: boolean;
    }) => http.put<ApplicationVersion>(`/api/applications/${id}/versions/${versionId}`, body, { silent }),
    onSuccess: invalidate,
  });
}

export function useDeleteVersion() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, versionId }: { id: number; versionId: number }) =>
      http.delete<null>(`/api/applications/${id}/versions/${versionId}`),
    onSuccess: invalidate,
  });
}

/**
 * Downloads a version through a signed link (10 minutes): the browser fetches the package itself, with its own
 * progress and resume, instead of holding a package of hundreds of MB in memory as a blob.
 */
export async function downloadVersion(v: ApplicationVersion): Promise<void> {
  const link = await http.post<ApplicationDownloadLink>(
    `/api/applications/${v.application_id}/versions/${v.id}/link`,
    undefined,
    { silent: true },
  );
  const a = document.createElement('a');
  a.href = buildUrl(link.url);
  a.download = v.filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
}
