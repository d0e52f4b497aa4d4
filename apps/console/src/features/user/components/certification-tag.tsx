import { Tag } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';

export default function CertificationTag({ pass }: { pass: boolean }) {
  const t = useLocale(locale);
  return (
    <Tag color={pass ? 'green' : 'orange'} size="small">
      {pass ? t('userSetting.certification.pass') : t('userSetting.certification.auditing')}
    </Tag>
  );
}
