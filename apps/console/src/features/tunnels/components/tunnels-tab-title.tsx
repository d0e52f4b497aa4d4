import { useLocale } from '../../../lib/i18n';
import locale from '../locale';

/** The device page's tab title, in this feature's texts (its own file: the panel itself loads with the tab). */
export function TunnelsTabTitle() {
  const t = useLocale(locale);
  return <>{t('tunnels.tab')}</>;
}
