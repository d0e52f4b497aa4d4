import type { WechatTicket } from '@cellhub/contract/auth';
import { Button, Message, Modal, Spin } from '@arco-design/web-react';
import { IconRefresh } from '@arco-design/web-react/icon';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { QrBox } from '../../../components/qr-box';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { USER_INFO_KEY } from '../../../lib/user';
import { createWechatBindTicket, pollWechatBindTicket } from '../api';
import locale from '../locale';

const POLL_MS = 2000;

const OVERLAY: Partial<Record<Phase, string>> = {
  expired: 'userSetting.wechat.expired',
  invalid: 'userSetting.wechat.invalid',
  failed: 'userSetting.wechat.failed',
  unavailable: 'userSetting.wechat.unavailable',
};

type Phase = 'loading' | 'waiting' | 'expired' | 'invalid' | 'failed' | 'unavailable';

const PHASE_BY_CODE: Record<number, Phase> = { 20122: 'expired', 20123: 'invalid', 20128: 'failed' };

/** Shows the bind QR code and asks the server every 2 s whether it was scanned and the account bound. */
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
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const poll = () => {
      // check() settles every failure itself: it asks again or shows why it stopped.
      const check = async () => {
        try {
          await pollWechatBindTicket(ticket.ticket);
          if (stopped) return;
          Message.success(t('userSetting.wechat.done'));
          await queryClient.invalidateQueries({ queryKey: USER_INFO_KEY });
          onClose();
        } catch (e) {
          if (stopped) return;
          const next = e instanceof ApiError ? PHASE_BY_CODE[e.code] : undefined;
          // Not scanned yet (20124) or a passing network failure: ask again.
          if (next) setPhase(next);
          else poll();
        }
      };
      timer = setTimeout(() => void check(), POLL_MS);
    };
    poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [visible, phase, ticket, queryClient, onClose, t]);

  const overlayKey = OVERLAY[phase];
  const overlay = overlayKey ? t(overlayKey) : '';

  return (
    <Modal
      title={t('userSetting.wechat.title')}
      visible={visible}
      onCancel={onClose}
      footer={null}
      unmountOnExit
    >
      <QrBox
        value={ticket && phase !== 'unavailable' ? ticket.qr_url : undefined}
        dim={phase === 'loading' || phase === 'unavailable'}
        tip={t('userSetting.wechat.tip')}
        overlay={
          overlay && (
            <>
              <span>{overlay}</span>
              <Button type="primary" size="small" icon={<IconRefresh />} onClick={refresh}>
                {t('userSetting.wechat.refresh')}
              </Button>
            </>
          )
        }
      >
        {phase === 'loading' && <Spin tip={t('userSetting.wechat.loading')} />}
      </QrBox>
    </Modal>
  );
}
