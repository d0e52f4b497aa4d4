import type { UserInfo } from '@cellhub/contract/auth';
import { Button, Message, Popconfirm, Tag } from '@arco-design/web-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useLocale } from '../../../lib/i18n';
import { USER_INFO_KEY } from '../../../lib/user';
import { unbindWechat } from '../api';
import locale from '../locale';
import { maskPhone } from '../mask-phone';
import styles from '../pages/user-setting-page.module.css';
import PasswordModal from './password-modal';
import PhoneModal from './phone-modal';
import WechatBindModal from './wechat-bind-modal';

type Dialog = 'password' | 'phone' | 'wechat' | null;

function Row({
  title,
  set,
  desc,
  action,
}: {
  title: string;
  set: ReactNode;
  desc: ReactNode;
  action: ReactNode;
}) {
  return (
    <div className={styles.securityRow}>
      <div className={styles.securityTitle}>{title}</div>
      <div className={styles.securityStatus}>{set}</div>
      <div className={styles.securityDesc}>{desc}</div>
      <div className={styles.securityAction}>{action}</div>
    </div>
  );
}

export default function SecuritySettings({
  info,
  dialog,
  setDialog,
}: {
  info: UserInfo;
  dialog: Dialog;
  setDialog: (d: Dialog) => void;
}) {
  const t = useLocale(locale);
  const queryClient = useQueryClient();
  const [unbinding, setUnbinding] = useState(false);
  const status = (ok: boolean) => (
    <Tag color={ok ? 'green' : 'gray'} size="small">
      {ok ? t('userSetting.security.set') : t('userSetting.security.unset')}
    </Tag>
  );

  const unbind = async () => {
    setUnbinding(true);
    try {
      await unbindWechat();
      Message.success(t('userSetting.security.unbound'));
      await queryClient.invalidateQueries({ queryKey: USER_INFO_KEY });
    } catch {
      // The request layer has shown why.
    } finally {
      setUnbinding(false);
    }
  };

  return (
    <div className={styles.security}>
      <Row
        title={t('userSetting.security.password')}
        set={status(true)}
        desc={t('userSetting.security.password.desc')}
        action={
          <Button type="text" onClick={() => setDialog('password')}>
            {t('userSetting.security.change')}
          </Button>
        }
      />
      <Row
        title={t('userSetting.security.phone')}
        set={status(!!info.phone)}
        desc={
          info.phone
            ? t('userSetting.security.phone.bound', { phone: maskPhone(info.phone) })
            : t('userSetting.security.phone.unbound')
        }
        action={
          <Button type="text" onClick={() => setDialog('phone')}>
            {info.phone ? t('userSetting.security.change') : t('userSetting.security.bind')}
          </Button>
        }
      />
      <Row
        title={t('userSetting.security.wechat')}
        set={status(info.wechat_bound)}
        desc={
          info.wechat_bound
            ? t('userSetting.security.wechat.bound')
            : t('userSetting.security.wechat.unbound')
        }
        action={
          info.wechat_bound ? (
            <Popconfirm title={t('userSetting.security.unbindConfirm')} onOk={unbind}>
              <Button type="text" status="danger" loading={unbinding}>
                {t('userSetting.security.unbind')}
              </Button>
            </Popconfirm>
          ) : (
            <Button type="text" onClick={() => setDialog('wechat')}>
              {t('userSetting.security.bind')}
            </Button>
          )
        }
      />
      <PasswordModal visible={dialog === 'password'} onClose={() => setDialog(null)} />
      <PhoneModal visible={dialog === 'phone'} onClose={() => setDialog(null)} currentPhone={info.phone} />
      <WechatBindModal visible={dialog === 'wechat'} onClose={() => setDialog(null)} />
    </div>
  );
}
