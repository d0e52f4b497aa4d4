import type { LoginResult } from '@cellhub/contract/auth';
import { Button, Spin } from '@arco-design/web-react';
import { IconRefresh } from '@arco-design/web-react/icon';
import { QrBox } from '../../../components/qr-box';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import { useQrLogin, type QrPhase } from '../use-qr-login';
import styles from './login-form.module.css';

const OVERLAY_TEXT: Partial<Record<QrPhase, string>> = {
  expired: 'login.qr.expired',
  invalid: 'login.qr.invalid',
  failed: 'login.qr.failed',
  unavailable: 'login.qr.unavailable',
  not_configured: 'login.qr.notConfigured',
};

/** Loaded on demand: the QR encoder and polling stay out of the sign-in page's first download. */
export default function QrLoginPanel({ onSuccess }: { onSuccess: (r: LoginResult) => void }) {
  const t = useLocale(locale);
  const qr = useQrLogin(onSuccess);
  const overlay = OVERLAY_TEXT[qr.phase];

  return (
    <QrBox
      value={qr.qrUrl}
      dim={qr.phase === 'loading' || qr.phase === 'unavailable' || qr.phase === 'not_configured'}
      className={styles.qrPanel}
      tip={qr.phase === 'waiting' ? t('login.qr.tip') : '\u00a0'}
      overlay={
        overlay && (
          <>
            <span data-testid="qr-overlay">{t(overlay)}</span>
            {/* Nothing a refresh could change until an administrator sets WeChat up. */}
            {qr.phase !== 'not_configured' && (
              <Button type="primary" size="small" icon={<IconRefresh />} onClick={qr.refresh}>
                {t('login.qr.refresh')}
              </Button>
            )}
          </>
        )
      }
    >
      {qr.phase === 'loading' && <Spin tip={t('login.qr.loading')} />}
    </QrBox>
  );
}
