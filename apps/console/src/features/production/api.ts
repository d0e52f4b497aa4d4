import type { HwGroupItem } from '@cellhub/contract/hardware';
import type { UsableFirmwareVersion } from '@cellhub/contract/firmware';
import type {
  ProductiveGroupAddLine,
  ProductiveGroupDevice,
  ProductiveGroupItem,
  ProductionDeviceItem,
  ProductionTaskBody,
  ProductionTaskItem,
  TaskLabels,
  TaskState,
  TestedState,
} from '@cellhub/contract/production';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export interface TaskListParams {
  current: number;
  per_page: number;
  keyword?: string;
  state?: TaskState;
}
export interface ProducedParams {
  current: number;
  per_page: number;
  keyword?: string;
  task_id?: number;
  tested?: TestedState;
  mismatch?: '0' | '1';
  shipped?: '0' | '1';
}

const KEY = ['production'] as const;

export function useTaskList(params: TaskListParams) {
  return useQuery({
    queryKey: [...KEY, 'tasks', params],
    queryFn: () => http.list<ProductionTaskItem>('/api/production/tasks', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useTask(id: number | undefined) {
  return useQuery({
    queryKey: [...KEY, 'task', id],
    queryFn: () => http.get<ProductionTaskItem>(`/api/production/tasks/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

/** The task's devices, once the task itself answered (a missing task says so once, on its result page). */
export function useTaskDevices(id: number, params: ProducedParams, enabled = true) {
  return useQuery({
    enabled,
    queryKey: [...KEY, 'task-devices', id, params],
    queryFn: () => http.list<ProductionDeviceItem>(`/api/production/tasks/${id}/devices`, { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useLabels(id: number, enabled: boolean) {
  return useQuery({
    queryKey: [...KEY, 'labels', id],
    queryFn: () => http.get<TaskLabels>(`/api/production/tasks/${id}/labels`),
    enabled,
  });
}

export function useProduced(params: ProducedParams) {
  return useQuery({
    queryKey: [...KEY, 'info', params],
    queryFn: () => http.list<ProductionDeviceItem>('/api/production/info', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useSaveTask() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: ProductionTaskBody }) =>
      id === undefined
        ? http.post<ProductionTaskItem>('/api/production/tasks', body)
        : http.put<ProductionTaskItem>(`/api/production/tasks/${id}`, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

/** start, finish or cancel. */
export function useTaskAction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: number; action: 'start' | 'finish' | 'cancel' }) =>
      http.post<ProductionTaskItem>(`/api/production/tasks/${id}/${action}`, undefined, {
        silent: action === 'start',
      }),
    onSettled: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteTask() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/production/tasks/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
}

/** Options of the task form (products come from components/product-select): hardware groups, firmware versions. */
export function useHwGroupOptions() {
  return useQuery({
    queryKey: ['hw', 'groups', 'options'],
    queryFn: () => http.list<HwGroupItem>('/api/hw/groups', { per_page: 100 }),
    staleTime: 30_000,
  });
}

export function useVersionOptions(productKey: string | undefined) {
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

// --- productive groups ---------------------------------------------------------------------------------------------

export interface GroupListParams {
  current: number;
  per_page: number;
  keyword?: string;
}

const GROUPS = [...KEY, 'groups'] as const;

export function useGroupList(params: GroupListParams) {
  return useQuery({
    queryKey: [...GROUPS, 'list', params],
    queryFn: () => http.list<ProductiveGroupItem>('/api/production/groups', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useGroup(id: number | undefined) {
  return useQuery({
    queryKey: [...GROUPS, 'one', id],
    queryFn: () => http.get<ProductiveGroupItem>(`/api/production/groups/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

/** The group's devices, once the group itself answered. */
export function useGroupDevices(id: number, params: GroupListParams, enabled = true) {
  return useQuery({
    enabled,
    queryKey: [...GROUPS, 'devices', id, params],
    queryFn: () => http.list<ProductiveGroupDevice>(`/api/production/groups/${id}/devices`, { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useSaveGroup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: { name: string; description?: string } }) =>
      id === undefined
        ? http.post<ProductiveGroupItem>('/api/production/groups', body)
        : http.put<ProductiveGroupItem>(`/api/production/groups/${id}`, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: GROUPS }),
  });
}

export function useDeleteGroup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/production/groups/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: GROUPS }),
  });
}

export function useAddToGroup(id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { task_id?: number; sns?: string }) =>
      http.post<ProductiveGroupAddLine[]>(`/api/production/groups/${id}/devices`, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: GROUPS }),
  });
}

export function useRemoveFromGroup(id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (sns: string[]) => http.post<null>(`/api/production/groups/${id}/devices/remove`, { sns }),
    onSuccess: () => qc.invalidateQueries({ queryKey: GROUPS }),
  });
}

/** Started tasks, for "add a task's devices". */
export function useTaskOptions() {
  return useQuery({
    queryKey: [...KEY, 'tasks', 'options'],
    queryFn: () => http.list<ProductionTaskItem>('/api/production/tasks', { per_page: 100 }),
    staleTime: 30_000,
    select: (res) => res.data.filter((t) => t.state !== 'draft').map((t) => ({ value: t.id, label: t.name })),
  });
}
