import type {
  ModelFile,
  SceneBody,
  SceneDetail,
  SceneFile,
  SceneImageResult,
  SceneFromModelBody,
  SceneItem,
  SceneModelBody,
  SceneModelDetail,
  SceneModelItem,
  SceneModelUpdateBody,
  SceneUpdateBody,
  SceneValues,
  SceneWriteResult,
} from '@cellhub/contract/scenes';
import type { DeviceItem } from '@cellhub/contract/devices';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { getToken } from '../../lib/auth';
import { buildUrl, http } from '../../lib/request';

export interface SceneListParams {
  current: number;
  per_page: number;
  keyword?: string;
}

const SCENES = ['scenes'] as const;
const MODELS = ['scene-models'] as const;

/** Scenes and models share list/detail/copy/delete/export/import routes under their base path. */
export type SceneArea = 'scene' | 'model';
export const basePath = (area: SceneArea) => (area === 'scene' ? '/api/scenes' : '/api/scene-models');
const keyOf = (area: SceneArea) => (area === 'scene' ? SCENES : MODELS);

export function useSceneList(params: SceneListParams) {
  return useQuery({
    queryKey: [...SCENES, 'list', params],
    queryFn: () => http.list<SceneItem>('/api/scenes', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useModelList(params: SceneListParams) {
  return useQuery({
    queryKey: [...MODELS, 'list', params],
    queryFn: () => http.list<SceneModelItem>('/api/scene-models', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useScene(id: number | undefined) {
  return useQuery({
    queryKey: [...SCENES, 'one', id],
    queryFn: () => http.get<SceneDetail>(`/api/scenes/${id}`, { silent: true }),
    enabled: id !== undefined,
    retry: false,
  });
}

export function useModel(id: number | undefined) {
  return useQuery({
    queryKey: [...MODELS, 'one', id],
    queryFn: () => http.get<SceneModelDetail>(`/api/scene-models/${id}`, { silent: true }),
    enabled: id !== undefined,
    retry: false,
  });
}

export function useCreateScene() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SceneBody) => http.post<SceneDetail>('/api/scenes', body, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: SCENES }),
  });
}

export function useSceneFromModel() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SceneFromModelBody) =>
      http.post<SceneDetail>('/api/scenes/from-model', body, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: SCENES }),
  });
}

export function useCreateModel() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SceneModelBody) =>
      http.post<SceneModelDetail>('/api/scene-models', body, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: MODELS }),
  });
}

/** Saves a scene's or a model's name, remark, slots or document. */
export function useUpdate(area: SceneArea, id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SceneUpdateBody | SceneModelUpdateBody) =>
      http.put<SceneDetail | SceneModelDetail>(`${basePath(area)}/${id}`, body, { silent: true }),
    onSuccess: (data) => {
      qc.setQueryData([...keyOf(area), 'one', id], data);
      void qc.invalidateQueries({ queryKey: [...keyOf(area), 'list'] });
    },
  });
}

export function useCopy(area: SceneArea) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: { id: number; name?: string }) =>
      http.post<{ id: number; name: string }>(`${basePath(area)}/${id}/copy`, name ? { name } : {}, {
        silent: true,
      }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keyOf(area) }),
  });
}

export function useDelete(area: SceneArea) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`${basePath(area)}/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: keyOf(area) }),
  });
}

/** Downloads the export file as `<name>.scene.json`. */
export async function exportFile(area: SceneArea, id: number, name: string): Promise<void> {
  const file = await http.get<SceneFile | ModelFile>(`${basePath(area)}/${id}/export`);
  const blob = new Blob([JSON.stringify(file, null, 2)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${name.replace(/[\\/:*?"<>|]+/g, '_') || 'scene'}.${area}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function useImport(area: SceneArea) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (file: unknown) =>
      http.post<{ id: number; name: string }>(`${basePath(area)}/import`, { file }, { silent: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keyOf(area) }),
  });
}

export const fetchSceneValues = (id: number) =>
  http.get<SceneValues>(`/api/scenes/${id}/values`, { silent: true });

export const writeWidget = (id: number, widgetId: string, value: number | boolean) =>
  http.post<SceneWriteResult>(
    `/api/scenes/${id}/widgets/${encodeURIComponent(widgetId)}/write`,
    { value },
    {
      silent: true,
    },
  );

/** The caller's devices for a select: keyword search, optionally of one product. */
export function useDeviceOptions(keyword: string, productKey?: string | null) {
  return useQuery({
    queryKey: ['scene-device-options', keyword, productKey],
    queryFn: () =>
      http.list<DeviceItem>('/api/devices', {
        current: 1,
        per_page: 30,
        keyword: keyword || undefined,
        product_key: productKey ?? undefined,
      }),
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });
}

/** Uploads an image for the scene's background or an image widget; answers its file id. */
export function uploadSceneImage(id: number, file: File): Promise<SceneImageResult> {
  const form = new FormData();
  form.append('file', file);
  return http.post<SceneImageResult>(`/api/scenes/${id}/images`, form, { silent: true });
}

/**
 * Object URLs of a scene's images (`GET /api/scenes/:id/images/:file` needs the bearer token, so an <image href>
 * cannot load it): each file is fetched once as a blob; URLs of files no longer listed, and all of them on
 * unmount, are revoked. A file that fails to load is left out (the widget draws its placeholder).
 */
export function useSceneImageUrls(
  sceneId: number | undefined,
  files: readonly string[],
): Record<string, string> {
  const [urls, setUrls] = useState<Record<string, string>>({});
  const live = useRef(new Map<string, string>());
  const key = [...new Set(files)].sort().join('\n');
  useEffect(() => {
    if (sceneId === undefined) return;
    const wanted = key ? key.split('\n') : [];
    const map = live.current;
    let changed = false;
    for (const [file, url] of map)
      if (!wanted.includes(file)) {
        URL.revokeObjectURL(url);
        map.delete(file);
        changed = true;
      }
    if (changed) setUrls(Object.fromEntries(map));
    let stop = false;
    for (const file of wanted) {
      if (map.has(file)) continue;
      const token = getToken();
      void fetch(buildUrl(`/api/scenes/${sceneId}/images/${encodeURIComponent(file)}`), {
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      })
        .then(async (res) => {
          if (!res.ok) return;
          const url = URL.createObjectURL(await res.blob());
          if (stop || map.has(file)) {
            URL.revokeObjectURL(url);
            return;
          }
          map.set(file, url);
          setUrls(Object.fromEntries(map));
        })
        .catch(() => undefined);
    }
    return () => {
      stop = true;
    };
  }, [sceneId, key]);
  // Revoke everything when the page goes.
  useEffect(() => {
    const map = live.current;
    return () => {
      for (const url of map.values()) URL.revokeObjectURL(url);
      map.clear();
    };
  }, []);
  return urls;
}

/** The image files a document shows: its background and its image widgets' files. */
export function sceneImageFiles(doc: {
  canvas: { background?: string | null };
  widgets: readonly { kind: string; file?: string }[];
}): string[] {
  const out: string[] = [];
  if (doc.canvas.background) out.push(doc.canvas.background);
  for (const w of doc.widgets) if (w.kind === 'image' && w.file) out.push(w.file);
  return out;
}
