import type { UserInfo } from '@cellhub/contract/auth';
import { Descriptions, Result } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import CertificationTag from './certification-tag';

export default function CertificationPanel({ info }: { info: UserInfo }) {
  const t = useLocale(locale);
  const pass = info.certification === 'pass';
  return (
    <div>
      <Result
        status={pass ? 'success' : 'info'}
        title={pass ? t('userSetting.cert.pass.title') : t('userSetting.cert.auditing.title')}
        subTitle={pass ? t('userSetting.cert.pass.desc') : t('userSetting.cert.auditing.desc')}
      />
      <Descriptions
        column={1}
        style={{ maxWidth: 420, margin: '0 auto' }}
        labelStyle={{ width: 140, textAlign: 'right', paddingRight: 24 }}
        data={[
          { label: t('userSetting.cert.type'), value: t('userSetting.cert.type.value') },
          { label: t('userSetting.cert.account'), value: info.username },
          {
            label: t('userSetting.cert.status'),
            value: <CertificationTag pass={pass} />,
          },
        ]}
      />
    </div>
  );
}
