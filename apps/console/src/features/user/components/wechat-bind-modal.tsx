import type { WechatTicket } from '@cellhub/contract/auth';
import { Button, Message, Modal, Spin } from '@arco-design/web-react';
import { IconRefresh } from '@arco-design/web-react/icon';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import { fetchUserInfo, USER_INFO_KEY } from '../../../lib/user';
import { createWechatBindTicket } from '../api';
import locale from '../locale';
import styles from '../pages/user-setting-page.module.css';

const QrCodeSvg = lazy(() => import('./qr-code-svg'));
const POLL_MS = 2000;

type Phase = 'loading' | 'waiting' | 'expired' | 'unavailable';

/**
 * Shows the bind QR code and watches the account until the server reports WeChat as bound, so it works whatever
 * way the messaging app confirms the ticket.
 */
export default function WechatBindModal({ visible, onClose }: { visible: boolean; onClose: () => void }) {
  const t = useLocale(locale);
  const queryClient = useQueryClient();
  const [ticket, setTicket] = useState<WechatTicket | null>(null);
  const [phase, setPhase] = useState<Phase>('loading');

  const refresh = useCallback(() => {
    setPhase('loading');
    setTicket(null);
    createWechatBindTicket().then(
      (tk) => {
        setTicket(tk);
        setPhase('waiting');
      },
      () => setPhase('unavailable'),
    );
  }, []);

  useEffect(() => {
    if (visible) refresh();
  }, [visible, refresh]);

  useEffect(() => {
    if (!visible || phase !== 'waiting' || !ticket) return;
    const expiresAt = Date.parse(ticket.expires_at);
    const timer = setInterval(async () => {
      if (Date.now() >= expiresAt) {
        setPhase('expired');
        return;
      }
      try {
        const info = await fetchUserInfo();
        if (info.wechat_bound) {
          queryClient.setQueryData(USER_INFO_KEY, info);
          Message.success(t('userSetting.wechat.done'));
          onClose();
        }
      } catch {
        // A failed check is simply retried on the next tick.
      }
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [visible, phase, ticket, queryClient, onClose, t]);

  const overlay =
    phase === 'expired'
      ? t('userSetting.wechat.expired')
      : phase === 'unavailable'
        ? t('userSetting.wechat.unavailable')
        : '';

  return (
    <Modal
      title={t('userSetting.wechat.title')}
      visible={visible}
      onCancel={onClose}
      footer={null}
      unmountOnExit
    >
      <div className={styles.qrPanel}>
        <div className={styles.qrBox}>
          {ticket && phase !== 'unavailable' ? (
            <Suspense fallback={<Spin />}>
              <QrCodeSvg value={ticket.qr_url} />
            </Suspense>
          ) : (
            phase === 'loading' && <Spin tip={t('userSetting.wechat.loading')} />
          )}
          {overlay && (
            <div className={styles.qrOverlay} role="alert">
              <span>{overlay}</span>
              <Button type="primary" size="small" icon={<IconRefresh />} onClick={refresh}>
                {t('userSetting.wechat.refresh')}
              </Button>
            </div>
          )}
        </div>
        <div className={styles.qrTip}>{t('userSetting.wechat.tip')}</div>
      </div>
    </Modal>
  );
}
