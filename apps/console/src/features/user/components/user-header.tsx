import type { UserInfo } from '@cellhub/contract/auth';
import { Avatar, Descriptions, Link } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import CertificationTag from './certification-tag';
import { formatTime } from '../../../lib/format-time';
import { maskPhone } from '../mask-phone';
import styles from '../pages/user-setting-page.module.css';

export default function UserHeader({ info, onEditPhone }: { info: UserInfo; onEditPhone: () => void }) {
  const t = useLocale(locale);
  const pass = info.certification === 'pass';
  const display = info.nickname || info.name || info.username;
  return (
    <div className={styles.header}>
      <Avatar size={100} className={styles.avatar}>
        {info.picture ? <img src={info.picture} alt={display} /> : display.slice(0, 1).toUpperCase()}
      </Avatar>
      <Descriptions
        className={styles.headerInfo}
        column={2}
        colon=" :"
        labelStyle={{ textAlign: 'right', width: 140, paddingRight: 8, color: 'var(--color-text-2)' }}
        valueStyle={{ width: 220 }}
        data={[
          { label: t('userSetting.username'), value: info.username },
          {
            label: t('userSetting.certification'),
            value: <CertificationTag pass={pass} />,
          },
          { label: t('userSetting.accountId'), value: info.accountId },
          {
            label: t('userSetting.phone'),
            value: (
              <span>
                {info.phone ? maskPhone(info.phone) : t('userSetting.phone.none')}
                <Link className={styles.editLink} onClick={onEditPhone}>
                  {t('userSetting.edit')}
                </Link>
              </span>
            ),
          },
          { label: t('userSetting.registrationDate'), value: formatTime(info.registrationDate) },
        ]}
      />
    </div>
  );
}
