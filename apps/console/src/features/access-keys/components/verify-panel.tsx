import type { AccessKeyVerifyChannel } from '@cellhub/contract/access-keys';
import { Alert, Button, Form, Message, Radio, Space } from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import SmsCodeInput from '../../../components/sms-code-input';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useUserInfo } from '../../../lib/user';
import { useSendVerifyCode, useVerifyAccessKey } from '../api';
import locale from '../locale';
import styles from './access-keys.module.css';

/**
 * Confirms a new key with a code sent to the signed-in user's own phone or email (whichever the account has; the
 * server sends it to the account's address, never to one typed here). `onVerified` runs once the server agrees.
 */
export function VerifyPanel({ accessKey, onVerified }: { accessKey: string; onVerified: () => void }) {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { data: me } = useUserInfo();
  const channels: AccessKeyVerifyChannel[] = [
    ...(me?.phone ? (['sms'] as const) : []),
    ...(me?.email ? (['email'] as const) : []),
  ];
  const [channel, setChannel] = useState<AccessKeyVerifyChannel | undefined>();
  const chosen = channel ?? channels[0];
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();
  const send = useSendVerifyCode();
  const verify = useVerifyAccessKey();

  // A new channel needs its own code.
  useEffect(() => setError(undefined), [chosen]);

  if (me && channels.length === 0)
    return (
      <Alert
        type="info"
        content={t('accessKey.verify.noChannel')}
        action={
          <Button size="small" type="primary" onClick={() => void navigate('/user/setting')}>
            {t('accessKey.verify.settings')}
          </Button>
        }
      />
    );

  const onSend = async () => {
    if (!chosen) throw new Error('no channel');
    const sent = await send.mutateAsync({ ak: accessKey, channel: chosen });
    Message.success(t(`accessKey.verify.sent.${chosen}`, { to: sent.to }));
  };

  const onVerify = async () => {
    setError(undefined);
    if (!/^\d{6}$/.test(code.trim())) {
      setError(t('accessKey.verify.code.required'));
      return;
    }
    try {
      await verify.mutateAsync({ ak: accessKey, code: code.trim() });
      Message.success(t('accessKey.verify.done'));
      setCode('');
      onVerified();
    } catch (e) {
      // A refused code is said here; a lost session has signed out already.
      if (e instanceof ApiError && e.httpStatus !== 403) setError(e.message);
    }
  };

  return (
    <Form layout="vertical" style={{ maxWidth: 560 }} data-testid="access-key-verify">
      <Form.Item label={t('accessKey.verify.channel')}>
        <Radio.Group value={chosen} onChange={(v: AccessKeyVerifyChannel) => setChannel(v)}>
          {me?.phone ? (
            <Radio value="sms">{t('accessKey.verify.channel.sms', { to: me.phone })}</Radio>
          ) : null}
          {me?.email ? (
            <Radio value="email">{t('accessKey.verify.channel.email', { to: me.email })}</Radio>
          ) : null}
        </Radio.Group>
      </Form.Item>
      <Form.Item label={t('accessKey.verify.code')} validateStatus={error ? 'error' : undefined} help={error}>
        <Space className={styles.verifyRow} align="start">
          <div className={styles.verifyInput}>
            <SmsCodeInput
              value={code}
              onChange={setCode}
              placeholder={t('accessKey.verify.code.placeholder')}
              error={!!error}
              onSend={onSend}
            />
          </div>
          <Button
            type="primary"
            loading={verify.isPending}
            onClick={() => void onVerify()}
            data-testid="access-key-verify-submit"
          >
            {t('accessKey.verify.submit')}
          </Button>
        </Space>
      </Form.Item>
    </Form>
  );
}
