import { Button, Input } from '@arco-design/web-react';
import { IconSafe } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import { useCountdown } from '../use-countdown';

interface Props {
  value?: string;
  onChange?: (v: string) => void;
  placeholder: string;
  error?: boolean;
  /** Validates the phone field and asks the server for a code; resolves when the code was sent. */
  onSend: () => Promise<void>;
}

/** A captcha input with its "send code" button and the 60 s wait before a new code may be requested. */
export default function SmsCodeInput({ value, onChange, placeholder, error, onSend }: Props) {
  const t = useLocale(locale);
  const [left, start] = useCountdown();
  const [sending, setSending] = useState(false);

  const send = async () => {
    setSending(true);
    try {
      await onSend();
      start(60);
    } catch {
      // The phone field or the request layer already says what went wrong.
    } finally {
      setSending(false);
    }
  };

  return (
    <Input
      value={value}
      onChange={onChange}
      status={error ? 'error' : undefined}
      prefix={<IconSafe />}
      placeholder={placeholder}
      maxLength={6}
      autoComplete="one-time-code"
      inputMode="numeric"
      addAfter={
        <Button type="text" size="small" loading={sending} disabled={left > 0} onClick={send}>
          {left > 0 ? t('login.form.captcha.resend', { seconds: left }) : t('login.form.captcha.send')}
        </Button>
      }
    />
  );
}
