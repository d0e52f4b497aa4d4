import type { PublicDevice } from '@cellhub/contract/devices';
import { useEffect, useState } from 'react';
import { http } from '../../lib/request';

export interface PublicDeviceState {
  data?: PublicDevice;
  error?: unknown;
  isLoading: boolean;
}

/**
 * Public: no token needed. A plain effect rather than React Query, whose client lives in the signed-in shell so
 * public pages stay light. An open label page refreshes itself every 30 s.
 */
export function usePublicDevice(sn: string | undefined, refreshMs = 30_000): PublicDeviceState {
  const [state, setState] = useState<PublicDeviceState>({ isLoading: !!sn });
  useEffect(() => {
    if (!sn) return;
    const abort = new AbortController();
    const load = () =>
      http
        .get<PublicDevice>(`/api/public/devices/${encodeURIComponent(sn)}`, {
          silent: true,
          signal: abort.signal,
        })
        .then(
          (data) => setState({ data, isLoading: false }),
          (error: unknown) => {
            if (!abort.signal.aborted) setState((s) => ({ data: s.data, error, isLoading: false }));
          },
        );
    setState({ isLoading: true });
    void load();
    const timer = setInterval(() => void load(), refreshMs);
    return () => {
      abort.abort();
      clearInterval(timer);
    };
  }, [sn, refreshMs]);
  return state;
}
