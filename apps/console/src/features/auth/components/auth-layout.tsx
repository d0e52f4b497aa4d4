import { Button } from '@arco-design/web-react';
import { IconLanguage } from '@arco-design/web-react/icon';
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import locale from '../locale';
import styles from '../pages/login-page.module.css';
import { Logo } from '../../../components/logo';
import { whenIdle } from '../../../lib/idle';

const LoginBanner = lazy(() => import('./login-banner'));

/** The same query as the stylesheet's: below it the banner is hidden, so its slides are never fetched. */
const WIDE = '(min-width: 901px)';

/**
 * The banner (a carousel and its drawings) is decoration: it loads once the form is on screen and usable, so it
 * never delays signing in.
 */
function useBannerWanted(): boolean {
  const [wanted, setWanted] = useState(false);
  useEffect(() => {
    const media = window.matchMedia(WIDE);
    let cancel = () => {};
    const check = () => {
      if (!media.matches) return;
      cancel = whenIdle(() => setWanted(true));
      media.removeEventListener('change', check);
    };
    check();
    if (!media.matches) media.addEventListener('change', check);
    return () => {
      cancel();
      media.removeEventListener('change', check);
    };
  }, []);
  return wanted;
}

/** The split screen shared by sign-in and registration: the banner on the left, the form on the right. */
export default function AuthLayout({ children }: { children: ReactNode }) {
  const t = useLocale(locale);
  const { locale: current, setLocale } = useLocaleState();
  const bannerWanted = useBannerWanted();
  return (
    <div className={styles.container}>
      <div className={styles.banner}>
        <div className={styles.logo}>
          <Logo size={32} />
          <span>Cellhub</span>
        </div>
        <div className={styles.bannerInner}>
          {bannerWanted && (
            <Suspense fallback={null}>
              <LoginBanner />
            </Suspense>
          )}
        </div>
      </div>
      <div className={styles.content}>
        <div className={styles.lang}>
          <Button
            type="text"
            icon={<IconLanguage />}
            onClick={() => void setLocale(current === 'zh-CN' ? 'en-US' : 'zh-CN')}
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
