/** OTA upgrade tasks: TanStack Query hooks over /api/ota/tasks (docs/ota.md) and the pickers the create form needs. */
import type { UsableFirmwareVersion } from '@cellhub/contract/firmware';
import type {
  OtaDeviceItem,
  OtaTaskAction,
  OtaTaskCreateBody,
  OtaTaskDetail,
  OtaTaskItem,
  OtaTaskPreview,
  OtaTaskPreviewBody,
  OtaTaskStatus,
} from '@cellhub/contract/ota';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface TaskListParams {
  current: number;
  per_page: number;
  keyword?: string;
  status?: OtaTaskStatus;
  product_key?: string;
}

export interface DeviceLogParams {
  current: number;
  per_page: number;
  keyword?: string;
  status?: number;
}

export const OTA_KEY = ['ota-tasks'] as const;
export const taskListKey = (params: TaskListParams) => [...OTA_KEY, 'list', params] as const;
export const taskKey = (id: number) => [...OTA_KEY, 'detail', id] as const;
export const deviceLogKey = (id: number, params?: DeviceLogParams) =>
  params ? ([...OTA_KEY, 'devices', id, params] as const) : ([...OTA_KEY, 'devices', id] as const);

export function useTaskList(params: TaskListParams) {
  return useQuery({
    queryKey: taskListKey(params),
    queryFn: () => http.list<OtaTaskItem>('/api/ota/tasks', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useTask(id: number) {
  return useQuery({
    queryKey: taskKey(id),
    // Silent: a missing or foreign task is told by the page's result page, not a toast on top of it.
    queryFn: () => http.get<OtaTaskDetail>(`/api/ota/tasks/${id}`, { silent: true }),
    enabled: Number.isInteger(id) && id > 0,
  });
}

export function useDeviceLog(id: number, params: DeviceLogParams) {
  return useQuery({
    queryKey: deviceLogKey(id, params),
    queryFn: () => http.list<OtaDeviceItem>(`/api/ota/tasks/${id}/devices`, { ...params }),
    enabled: Number.isInteger(id) && id > 0,
    placeholderData: keepPreviousData,
  });
}

/** What a create with these fields would target and download; undefined body: not asked yet. */
export function usePreview(body: OtaTaskPreviewBody | undefined) {
  return useQuery({
    queryKey: [...OTA_KEY, 'preview', body],
    queryFn: () => http.post<OtaTaskPreview>('/api/ota/tasks/preview', body),
    enabled: body !== undefined,
    // The fleet changes under it (devices come online, report versions); a summary a minute old is still honest.
    staleTime: 0,
    retry: false,
  });
}

export function useCreateTask() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: OtaTaskCreateBody) => http.post<OtaTaskDetail>('/api/ota/tasks', body),
    onSuccess: (task) => {
      qc.setQueryData(taskKey(task.id), task);
      return qc.invalidateQueries({ queryKey: [...OTA_KEY, 'list'] });
    },
  });
}

/** start, pause, cancel (each answers the task) and delete (answers null). */
export function useTaskAction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: number; action: OtaTaskAction }) =>
      action === 'delete'
        ? http.delete<null>(`/api/ota/tasks/${id}`)
        : http.post<OtaTaskDetail>(`/api/ota/tasks/${id}/${action}`),
    onSuccess: (task, { id, action }) => {
      if (action === 'delete') qc.removeQueries({ queryKey: taskKey(id) });
      else if (task) qc.setQueryData(taskKey(id), task);
      return Promise.all([
        qc.invalidateQueries({ queryKey: [...OTA_KEY, 'list'] }),
        action === 'delete' ? undefined : qc.invalidateQueries({ queryKey: deviceLogKey(id) }),
      ]);
    },
  });
}

/** Firmware versions of a product the caller may roll out (public firmware, or of a product they own). */
export function useUsableVersions(productKey: string | undefined) {
  return useQuery({
    queryKey: ['firmware', 'usable', productKey],
    queryFn: () =>
      http.list<UsableFirmwareVersion>('/api/firmware/versions/usable', {
        product_key: productKey,
        per_page: 100,
      }),
    enabled: !!productKey,
    staleTime: 30_000,
  });
}
