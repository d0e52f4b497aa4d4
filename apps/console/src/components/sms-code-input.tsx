import { Button, Input } from '@arco-design/web-react';
import { useState, type ReactNode } from 'react';
import { useLocale, type PageLocale } from '../lib/i18n';
import { useCountdown } from '../lib/use-countdown';

// Its own two texts travel with it, so every screen that asks for an SMS code words the button the same way.
const locale: PageLocale = {
  'zh-CN': { 'smsCode.send': '获取验证码', 'smsCode.resend': '{seconds} 秒后重发' },
  'en-US': { 'smsCode.send': 'Send code', 'smsCode.resend': 'Resend in {seconds}s' },
};

/** Seconds before a new code may be requested; the server refuses earlier requests anyway. */
const RESEND_SECONDS = 60;

interface Props {
  value?: string;
  onChange?: (v: string) => void;
  placeholder: string;
  error?: boolean;
  prefix?: ReactNode;
  /** Validates the phone field and asks the server for a code; resolves when the code was sent. */
  onSend: () => Promise<void>;
}

/** A captcha input with its "send code" button and the wait before a new code may be requested. */
export default function SmsCodeInput({ value, onChange, placeholder, error, prefix, onSend }: Props) {
  const t = useLocale(locale);
  const [left, start] = useCountdown();
  const [sending, setSending] = useState(false);

  const send = async () => {
    setSending(true);
    try {
      await onSend();
      start(RESEND_SECONDS);
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
      prefix={prefix}
      placeholder={placeholder}
      maxLength={6}
      autoComplete="one-time-code"
      inputMode="numeric"
      addAfter={
        <Button type="text" size="small" loading={sending} disabled={left > 0} onClick={() => void send()}>
          {left > 0 ? t('smsCode.resend', { seconds: left }) : t('smsCode.send')}
        </Button>
      }
    />
  );
}
