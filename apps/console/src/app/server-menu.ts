/**
 * Menu from the server (seed section 4): POST /api/user/menu answers with the route names of the caller's role.
 * An info notice while loading, then success or error. On failure the menu stays empty, so the guard shows
 * not-found instead of asking again on every navigation; switching the setting off and on retries.
 */
import { Notification } from '@arco-design/web-react';
import { http } from '../lib/request';
import { translate } from '../lib/messages';
import { updateSettings } from '../lib/settings';

let inFlight: Promise<void> | undefined;
const NOTICE_ID = 'menu-from-server';

export function loadServerMenu(): Promise<void> {
  inFlight ??= (async () => {
    Notification.info({
      id: NOTICE_ID,
      content: translate('settings.menuFromServer.loading'),
      closable: true,
    });
    try {
      const names = await http.post<string[]>('/api/user/menu', undefined, { silent: true });
      updateSettings({ serverMenu: names });
      Notification.success({
        id: NOTICE_ID,
        content: translate('settings.menuFromServer.success'),
        closable: true,
      });
    } catch {
      updateSettings({ serverMenu: [] });
      Notification.error({
        id: NOTICE_ID,
        content: translate('settings.menuFromServer.error'),
        closable: true,
      });
    } finally {
      inFlight = undefined;
    }
  })();
  return inFlight;
}
