import type { DashboardWorkplace } from '@cellhub/contract/dashboard';
import type { OtaTaskEvent } from '@cellhub/contract/realtime';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useOtaTaskEvents } from '../../lib/realtime';

const WORKPLACE = ['dashboard', 'workplace'] as const;

/**
 * Applies one `ota.task` message to the Workplace's OTA block: the counts of a listed running task are patched in
 * place; a task that started, stopped or was deleted changes the list, which is read again (`refetch`).
 */
export function applyOtaEvent(
  old: DashboardWorkplace | undefined,
  e: OtaTaskEvent,
): { data: DashboardWorkplace | undefined; refetch: boolean } {
  if (!old) return { data: old, refetch: false };
  const i = old.ota.items.findIndex((t) => t.id === e.id);
  if (i < 0) return { data: old, refetch: e.status === 'running' && !e.deleted };
  if (e.deleted || e.status !== 'running') return { data: old, refetch: true };
  const items = [...old.ota.items];
  const { type: _type, at: _at, deleted: _deleted, ...counts } = e;
  items[i] = { ...items[i]!, ...counts };
  return { data: { ...old, ota: { ...old.ota, items } }, refetch: false };
}

/** Keeps the OTA block moving with the live stream; list changes are read again at most once a second. */
export function useLiveWorkplace() {
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return useOtaTaskEvents((e: OtaTaskEvent) => {
    let again = false;
    queryClient.setQueriesData<DashboardWorkplace>({ queryKey: WORKPLACE }, (old) => {
      const next = applyOtaEvent(old, e);
      again ||= next.refetch;
      return next.data;
    });
    if (again && timer.current === undefined) {
      timer.current = setTimeout(() => {
        timer.current = undefined;
        void queryClient.invalidateQueries({ queryKey: WORKPLACE });
      }, 1000);
    }
  });
}
