import type { ApplicationPlatform } from '@cellhub/contract/applications';
import { Tag } from '@arco-design/web-react';
import type { Translate } from '../../../lib/i18n';
import styles from './applications.module.css';

const PLATFORM_COLORS: Record<ApplicationPlatform, string> = {
  windows: 'arcoblue',
  android: 'green',
  ios: 'gray',
  linux: 'orange',
  'dtu-tool': 'purple',
  other: 'cyan',
};

/** Backgrounds of the letter icon shown when an application has no image (Arco's 6 shades). */
const FALLBACK_BG: Record<ApplicationPlatform, string> = {
  windows: 'rgb(var(--arcoblue-6))',
  android: 'rgb(var(--green-6))',
  ios: 'rgb(var(--gray-6))',
  linux: 'rgb(var(--orange-6))',
  'dtu-tool': 'rgb(var(--purple-6))',
  other: 'rgb(var(--cyan-6))',
};

/** The icon of an application: its uploaded image, or its first letter on the platform's colour. */
export function AppIcon({
  icon,
  name,
  platform,
  size = 40,
}: {
  icon: string;
  name: string;
  platform: ApplicationPlatform;
  size?: number;
}) {
  if (icon) {
    return <img className={styles.icon} src={icon} alt="" width={size} height={size} />;
  }
  return (
    <span
      className={styles.fallbackIcon}
      style={{ width: size, height: size, fontSize: size * 0.45, background: FALLBACK_BG[platform] }}
      aria-hidden
    >
      {Array.from(name.trim())[0]?.toUpperCase() ?? '?'}
    </span>
  );
}

export function PlatformTag({ platform, t }: { platform: ApplicationPlatform; t: Translate }) {
  return (
    <Tag color={PLATFORM_COLORS[platform]} size="small">
      {t(`application.platform.${platform}`)}
    </Tag>
  );
}
