import { Card, Empty, Link } from '@arco-design/web-react';
import {
  IconCloudDownload,
  IconCommon,
  IconIdcard,
  IconMobile,
  IconNotification,
  IconPlusCircle,
} from '@arco-design/web-react/icon';
import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { useLocale } from '../../../lib/i18n';
import { useRole } from '../../../lib/user';
import locale from '../locale';
import styles from '../pages/workplace-page.module.css';

const SHORTCUTS: { key: string; icon: ReactNode; to: string }[] = [
  { key: 'addDevice', icon: <IconPlusCircle />, to: '/device/create' },
  { key: 'devices', icon: <IconMobile />, to: '/device/list' },
  { key: 'cards', icon: <IconIdcard />, to: '/card/list' },
  { key: 'ota', icon: <IconCloudDownload />, to: '/ota/task' },
  { key: 'alerts', icon: <IconNotification />, to: '/alert/device-trigger/list' },
  { key: 'products', icon: <IconCommon />, to: '/product/list' },
];

export function ShortcutsCard() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  return (
    <Card bordered={false} title={t('workplace.shortcuts')}>
      <div className={styles.shortcuts}>
        {SHORTCUTS.map((s) => (
          <button key={s.key} type="button" className={styles.shortcut} onClick={() => void navigate(s.to)}>
            <span className={styles.shortcutIcon}>{s.icon}</span>
            <span>{t(`workplace.shortcut.${s.key}`)}</span>
          </button>
        ))}
      </div>
    </Card>
  );
}

export function AnnouncementsCard() {
  const t = useLocale(locale);
  return (
    <Card bordered={false} title={t('workplace.announcements')}>
      <Empty description={t('workplace.announcements.empty')} />
    </Card>
  );
}

export function DocsCard() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const role = useRole();
  return (
    <Card bordered={false} title={t('workplace.docs')}>
      <div className={styles.docs}>
        <Link href="/api/docs" target="_blank" rel="noopener">
          {t('workplace.docs.api')}
        </Link>
        <Link onClick={() => void navigate('/user/setting')}>{t('workplace.docs.profile')}</Link>
        <Link onClick={() => void navigate('/user/setting?tab=security')}>
          {t('workplace.docs.security')}
        </Link>
        {role === 'admin' && (
          <Link onClick={() => void navigate('/system/users')}>{t('workplace.docs.users')}</Link>
        )}
      </div>
    </Card>
  );
}
