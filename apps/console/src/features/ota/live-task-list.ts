import type { OtaTaskItem } from '@cellhub/contract/ota';
import type { OtaTaskEvent } from '@cellhub/contract/realtime';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useOtaTaskEvents } from '../../lib/realtime';
import type { ListResult } from '../../lib/request';
import { taskListKey, type TaskListParams } from './api';
import { applyTaskEvent } from './ota-format';

/**
 * Keeps the task list page at `params` moving while tasks run, and says how the live connection is.
 *
 * Counts change many times a second during a rollout; the row is patched from the message. A change of state
 * (start and end times come with it) or a deletion reads the page again, at most once a second.
 */
export function useLiveTaskList(params: TaskListParams) {
  const queryClient = useQueryClient();
  const refetchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(refetchTimer.current), []);
  return useOtaTaskEvents((e: OtaTaskEvent) => {
    let again = false;
    queryClient.setQueryData(taskListKey(params), (old: ListResult<OtaTaskItem> | undefined) => {
      const next = applyTaskEvent(old, e);
      again = next.refetch;
      return next.list;
    });
    if (again && refetchTimer.current === undefined) {
      refetchTimer.current = setTimeout(() => {
        refetchTimer.current = undefined;
        void queryClient.invalidateQueries({ queryKey: taskListKey(params) });
      }, 1000);
    }
  });
}
