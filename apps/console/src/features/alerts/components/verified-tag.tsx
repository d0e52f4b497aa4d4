import { Tag } from '@arco-design/web-react';
import { IconCheckCircleFill, IconExclamationCircle } from '@arco-design/web-react/icon';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';

export function VerifiedTag({ verified }: { verified: boolean }) {
  const t = useLocale(locale);
  return verified ? (
    <Tag size="small" color="green" icon={<IconCheckCircleFill />} data-testid="alert-verified">
      {t('alert.contact.verified')}
    </Tag>
  ) : (
    <Tag size="small" color="orange" icon={<IconExclamationCircle />} data-testid="alert-unverified">
      {t('alert.contact.unverified')}
    </Tag>
  );
}
