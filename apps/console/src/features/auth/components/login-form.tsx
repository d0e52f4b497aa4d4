import type { LoginResult } from '@cellhub/contract/auth';
import { Button, Checkbox, Form, Input, Link, Message, Tabs } from '@arco-design/web-react';
import { IconLock, IconMobile, IconUser } from '@arco-design/web-react/icon';
import { lazy, Suspense, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { setToken } from '../../../lib/auth';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { loginByPassword, loginByPhone, sendSmsCode } from '../api';
import locale from '../locale';
import { resolveRedirect } from '../redirect';
import AgreementCheckbox from './agreement-checkbox';
import SmsCodeInput from './sms-code-input';
import styles from './login-form.module.css';

const QrLoginPanel = lazy(() => import('./qr-login-panel'));

/** Only the username is remembered: a password in local storage would outlive the session it belongs to. */
export const REMEMBER_KEY = 'cellhub-login-username';

type Mode = 'password' | 'phone' | 'qr';

export default function LoginForm() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const [passwordForm] = Form.useForm<{ username: string; password: string }>();
  const [phoneForm] = Form.useForm<{ phone: string; captcha: string }>();
  const [mode, setMode] = useState<Mode>('password');
  const [agreed, setAgreed] = useState(false);
  const [remember, setRemember] = useState(() => localStorage.getItem(REMEMBER_KEY) !== null);
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(false);

  const signedIn = (r: LoginResult) => {
    // The query cache lives in the signed-in shell, which clears it on sign-out and expiry; the sign-in page
    // stays free of it to keep its download small.
    setToken(r.token, r.uid);
    Message.success(t('login.form.login.success'));
    navigate(resolveRedirect(search), { replace: true });
  };

  const submit = async () => {
    setError('');
    const form = mode === 'phone' ? phoneForm : passwordForm;
    try {
      await form.validate();
    } catch {
      return;
    }
    if (!agreed) {
      setError(t('login.form.agreement.required'));
      return;
    }
    setLoading(true);
    try {
      if (mode === 'phone') {
        const { phone, captcha } = phoneForm.getFieldsValue();
        signedIn(await loginByPhone({ phone: phone!.trim(), captcha: captcha!.trim() }));
      } else {
        const { username, password } = passwordForm.getFieldsValue();
        const result = await loginByPassword({ username: username!.trim(), password: password! });
        if (remember) localStorage.setItem(REMEMBER_KEY, username!.trim());
        else localStorage.removeItem(REMEMBER_KEY);
        signedIn(result);
      }
    } catch (e) {
      // A refused sign-in says why; anything else (network down, server error) can only be retried.
      const answered = e instanceof ApiError && e.httpStatus > 0 && e.httpStatus < 500;
      setError(answered ? e.message : t('login.form.login.errMsg'));
    } finally {
      setLoading(false);
    }
  };

  const sendCode = async () => {
    const { phone } = await phoneForm.validate(['phone']);
    await sendSmsCode((phone ?? '').trim(), 'login');
    Message.success(t('login.form.captcha.sent'));
  };

  const switchMode = (key: string) => {
    setMode(key as Mode);
    setError('');
  };

  const agreement = (
    <AgreementCheckbox
      checked={agreed}
      onChange={(v) => {
        setAgreed(v);
        if (v) setError('');
      }}
    />
  );

  return (
    <div className={styles.wrapper}>
      <h1 className={styles.title}>{t('login.form.title')}</h1>
      <div className={styles.subtitle}>{t('login.form.subtitle')}</div>
      <Tabs activeTab={mode} onChange={switchMode} className={styles.tabs} size="large">
        <Tabs.TabPane key="password" title={t('login.tab.password')} />
        <Tabs.TabPane key="phone" title={t('login.tab.phone')} />
        <Tabs.TabPane key="qr" title={t('login.tab.qr')} />
      </Tabs>
      <div className={styles.error} role="alert">
        {error}
      </div>

      {mode === 'password' && (
        <Form
          form={passwordForm}
          layout="vertical"
          onSubmit={submit}
          initialValues={{ username: localStorage.getItem(REMEMBER_KEY) ?? '' }}
          autoComplete="on"
        >
          <Form.Item
            field="username"
            rules={[{ required: true, message: t('login.form.username.required') }]}
          >
            <Input
              prefix={<IconUser />}
              placeholder={t('login.form.username.placeholder')}
              autoComplete="username"
              maxLength={64}
            />
          </Form.Item>
          <Form.Item
            field="password"
            rules={[{ required: true, message: t('login.form.password.required') }]}
          >
            <Input.Password
              prefix={<IconLock />}
              placeholder={t('login.form.password.placeholder')}
              autoComplete="current-password"
              maxLength={128}
            />
          </Form.Item>
          <div className={styles.actions}>
            <Checkbox checked={remember} onChange={setRemember}>
              {t('login.form.rememberUsername')}
            </Checkbox>
            <Link
              onClick={() => {
                switchMode('phone');
                Message.info(t('login.form.forgetPassword.tip'));
              }}
            >
              {t('login.form.forgetPassword')}
            </Link>
          </div>
          {agreement}
          <Button type="primary" htmlType="submit" long loading={loading} className={styles.submit}>
            {t('login.form.login')}
          </Button>
        </Form>
      )}

      {mode === 'phone' && (
        <Form form={phoneForm} layout="vertical" onSubmit={submit}>
          <Form.Item field="phone" rules={[{ required: true, message: t('login.form.phone.required') }]}>
            <Input
              prefix={<IconMobile />}
              placeholder={t('login.form.phone.placeholder')}
              autoComplete="tel"
              maxLength={16}
            />
          </Form.Item>
          <Form.Item field="captcha" rules={[{ required: true, message: t('login.form.captcha.required') }]}>
            <SmsCodeInput placeholder={t('login.form.captcha.placeholder')} onSend={sendCode} />
          </Form.Item>
          {agreement}
          <Button type="primary" htmlType="submit" long loading={loading} className={styles.submit}>
            {t('login.form.login')}
          </Button>
        </Form>
      )}

      {mode === 'qr' && (
        <div>
          {agreed ? (
            <Suspense fallback={<div className={styles.qrPanel} />}>
              <QrLoginPanel onSuccess={signedIn} />
            </Suspense>
          ) : (
            <div className={styles.qrPanel}>
              <div className={styles.qrBox}>
                <div className={styles.qrHint}>{t('login.form.agreement.required')}</div>
              </div>
            </div>
          )}
          {agreement}
        </div>
      )}

      <div className={styles.register}>
        <Button type="text" long onClick={() => navigate('/register')}>
          {t('login.form.register')}
        </Button>
      </div>
    </div>
  );
}
