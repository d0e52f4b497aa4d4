import type { MapTileSettingsBody, MapTileSettingsView } from '@cellhub/contract/map-tiles';
import type {
  DeliveryItem,
  EmailSettingsBody,
  NotifyChannelName,
  SmsSettingsBody,
  SystemSettingsView,
  WechatSettingsBody,
} from '@cellhub/contract/system-settings';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

const KEY = ['system-settings'] as const;

export function useSystemSettings() {
  return useQuery({
    queryKey: KEY,
    queryFn: () => http.get<SystemSettingsView>('/api/system/settings'),
  });
}

export interface ChannelBodies {
  sms: SmsSettingsBody;
  email: EmailSettingsBody;
  wechat: WechatSettingsBody;
}

/** Silent: the form puts 10113 refusals under their fields. The answer (secrets masked) replaces the cache. */
export function useSaveChannel<C extends NotifyChannelName>(channel: C) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ChannelBodies[C]) =>
      http.put<SystemSettingsView>(`/api/system/settings/${channel}`, body, { silent: true }),
    onSuccess: (view) => queryClient.setQueryData(KEY, view),
  });
}

/** Silent: the dialog shows the provider's reason itself. */
export function useSendTest(channel: NotifyChannelName) {
  return useMutation({
    mutationFn: (to: string) =>
      http.post<DeliveryItem>(`/api/system/settings/${channel}/test`, { to }, { silent: true }),
  });
}

const MAP_KEY = ['system-settings', 'map'] as const;

export function useMapTileSettings() {
  return useQuery({
    queryKey: MAP_KEY,
    queryFn: () => http.get<MapTileSettingsView>('/api/system/settings/map'),
  });
}

/** Silent: 10113 refusals go under their fields. The device map's source is read again, so it draws the new one. */
export function useSaveMapTiles() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: MapTileSettingsBody) =>
      http.put<MapTileSettingsView>('/api/system/settings/map', body, { silent: true }),
    onSuccess: (view) => {
      queryClient.setQueryData(MAP_KEY, view);
      void queryClient.invalidateQueries({ queryKey: ['map-tiles'] });
    },
  });
}
