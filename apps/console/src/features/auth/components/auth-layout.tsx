import { Button } from '@arco-design/web-react';
import { IconLanguage } from '@arco-design/web-react/icon';
import type { ReactNode } from 'react';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import locale from '../locale';
import styles from '../pages/login-page.module.css';
import LoginBanner from './login-banner';
import { Logo } from '../../../components/logo';

/** The split screen shared by sign-in and registration: the banner on the left, the form on the right. */
export default function AuthLayout({ children }: { children: ReactNode }) {
  const t = useLocale(locale);
  const { locale: current, setLocale } = useLocaleState();
  return (
    <div className={styles.container}>
      <div className={styles.banner}>
        <div className={styles.logo}>
          <Logo size={32} />
          <span>Cellhub</span>
        </div>
        <div className={styles.bannerInner}>
          <LoginBanner />
        </div>
      </div>
      <div className={styles.content}>
        <div className={styles.lang}>
          <Button
            type="text"
            icon={<IconLanguage />}
            onClick={() => setLocale(current === 'zh-CN' ? 'en-US' : 'zh-CN')}
          >
            {current === 'zh-CN' ? 'English' : '中文'}
          </Button>
        </div>
        {children}
        <div className={styles.footer}>{t('login.footer')}</div>
      </div>
    </div>
  );
}
