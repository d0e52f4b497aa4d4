import type { LoginResult } from '@cellhub/contract/auth';
import { Button, Spin } from '@arco-design/web-react';
import { IconRefresh } from '@arco-design/web-react/icon';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import { useQrLogin, type QrPhase } from '../use-qr-login';
import QrCodeSvg from './qr-code-svg';
import styles from './login-form.module.css';

const OVERLAY_TEXT: Partial<Record<QrPhase, string>> = {
  expired: 'login.qr.expired',
  invalid: 'login.qr.invalid',
  failed: 'login.qr.failed',
  unavailable: 'login.qr.unavailable',
};

/** Loaded on demand: the QR encoder and polling stay out of the sign-in page's first download. */
export default function QrLoginPanel({ onSuccess }: { onSuccess: (r: LoginResult) => void }) {
  const t = useLocale(locale);
  const qr = useQrLogin(onSuccess);
  const overlay = OVERLAY_TEXT[qr.phase];

  return (
    <div className={styles.qrPanel}>
      <div className={styles.qrBox} data-phase={qr.phase}>
        {qr.qrUrl ? (
          <QrCodeSvg value={qr.qrUrl} />
        ) : (
          qr.phase === 'loading' && <Spin tip={t('login.qr.loading')} />
        )}
        {overlay && (
          <div className={styles.qrOverlay} role="alert">
            <span>{t(overlay)}</span>
            <Button type="primary" size="small" icon={<IconRefresh />} onClick={qr.refresh}>
              {t('login.qr.refresh')}
            </Button>
          </div>
        )}
      </div>
      <div className={styles.qrTip}>{qr.phase === 'waiting' ? t('login.qr.tip') : '\u00a0'}</div>
    </div>
  );
}
