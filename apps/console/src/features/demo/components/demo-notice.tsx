import { Alert } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';

/** Every template screen says plainly that its figures are samples. */
export default function DemoNotice() {
  const t = useLocale(locale);
  return <Alert type="info" showIcon content={t('demo.notice')} />;
}
