import { Button, Input } from '@arco-design/web-react';
import { useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import { useCountdown } from '../use-countdown';

interface Props {
  value?: string;
  onChange?: (v: string) => void;
  placeholder: string;
  /** Validates the phone field and asks for a code; resolves once it was sent. */
  onSend: () => Promise<void>;
}

export default function SmsCodeInput({ value, onChange, placeholder, onSend }: Props) {
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
      placeholder={placeholder}
      maxLength={6}
      autoComplete="one-time-code"
      inputMode="numeric"
      addAfter={
        <Button type="text" size="small" loading={sending} disabled={left > 0} onClick={send}>
          {left > 0
            ? t('userSetting.phoneChange.resend', { seconds: left })
            : t('userSetting.phoneChange.send')}
        </Button>
      }
    />
  );
}
