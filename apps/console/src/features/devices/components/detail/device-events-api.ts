/** A device's thing model and its event occurrences (any viewer of the device), live from the event stream. */
import type { DeviceEventItem, ThingModel } from '@cellhub/contract/thing-model';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../../lib/request';
import { type RealtimeClient, realtimeClient, useDeviceEvents } from '../../../../lib/realtime';

export const LEVEL_COLOR = { info: 'arcoblue', warn: 'orange', error: 'red' } as const;
/** The same levels as chart colours (Arco's blue, orange and red 6). */
export const LEVEL_HEX = { info: '#165DFF', warn: '#FF7D00', error: '#F53F3F' } as const;

/** The device's product's thing model, read through the device (`GET /api/devices/:sn/thing-model`). */
export function useDeviceModel(sn: string) {
  return useQuery({
    queryKey: ['device-events', sn, 'model'],
    queryFn: () =>
      http.get<ThingModel>(`/api/devices/${encodeURIComponent(sn)}/thing-model`, { silent: true }),
    retry: false,
    staleTime: 60_000,
  });
}

export interface OccurrenceQuery {
  from?: string;
  to?: string;
  per_page?: number;
}

/** Occurrences newest first; `enabled` false waits (e.g. for the chart's range). */
export function useEventOccurrences(sn: string, q: OccurrenceQuery, enabled = true) {
  return useQuery({
    queryKey: ['device-events', sn, 'list', q],
    queryFn: () =>
      http.list<DeviceEventItem>(
        `/api/devices/${encodeURIComponent(sn)}/events`,
        { per_page: q.per_page ?? 20, ...(q.from ? { from: q.from } : {}), ...(q.to ? { to: q.to } : {}) },
        { silent: true },
      ),
    enabled,
    retry: false,
  });
}

/** Re-reads the device's occurrence lists when it reports an event. */
export function useLiveOccurrences(sn: string, client?: RealtimeClient) {
  const queryClient = useQueryClient();
  useDeviceEvents(
    { sns: [sn], types: ['device.event'] },
    (e) => {
      if (e.type === 'device.event' && e.sn === sn)
        void queryClient.invalidateQueries({ queryKey: ['device-events', sn, 'list'] });
    },
    client ?? realtimeClient(),
  );
}
