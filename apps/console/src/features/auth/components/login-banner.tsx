import { Carousel } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import BannerIllustration from './banner-illustration';
import styles from './login-banner.module.css';

const SLIDES = [
  { title: 'login.banner.slogan1', sub: 'login.banner.sub1', art: 'fleet' },
  { title: 'login.banner.slogan2', sub: 'login.banner.sub2', art: 'rollout' },
  { title: 'login.banner.slogan3', sub: 'login.banner.sub3', art: 'sim' },
] as const;

export default function LoginBanner() {
  const t = useLocale(locale);
  return (
    <Carousel className={styles.carousel} animation="fade" autoPlay showArrow="hover" indicatorType="dot">
      {SLIDES.map((s) => (
        <div key={s.art} className={styles.slide}>
          <div className={styles.title}>{t(s.title)}</div>
          <div className={styles.sub}>{t(s.sub)}</div>
          <BannerIllustration kind={s.art} />
        </div>
      ))}
    </Carousel>
  );
}
