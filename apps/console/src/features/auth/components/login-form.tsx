import type { LoginResult } from '@cellhub/contract/auth';
import { Button, Checkbox, Input, Link } from '@arco-design/web-react';
import { IconLock, IconMobile, IconSafe, IconUser } from '@arco-design/web-react/icon';
import { lazy, Suspense, useState, type FormEvent, type ReactNode } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { setToken } from '../../../lib/auth';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { toast } from '../../../lib/toast';
import { loginByPassword, loginByPhone, sendSmsCode } from '../api';
import locale from '../locale';
import { resolveRedirect } from '../redirect';
import AgreementCheckbox from './agreement-checkbox';
import { QrBox } from '../../../components/qr-box';
import SmsCodeInput from '../../../components/sms-code-input';
import styles from './login-form.module.css';

const QrLoginPanel = lazy(() => import('./qr-login-panel'));

/** Only the username is remembered: a password in local storage would outlive the session it belongs to. */
export const REMEMBER_KEY = 'cellhub-login-username';

type Mode = 'password' | 'phone' | 'qr';
type Field = 'username' | 'password' | 'phone' | 'captcha';

const MODES: Mode[] = ['password', 'phone', 'qr'];
// Seed section 5: every sign-in field must be filled in. The sign-in page keeps to this simple rule with plain
// state instead of a form library, which keeps its first download small; the server checks the rest.
const FIELDS: Record<Mode, Field[]> = {
  password: ['username', 'password'],
  phone: ['phone', 'captcha'],
  qr: [],
};
const REQUIRED_MESSAGE: Record<Field, string> = {
  username: 'login.form.username.required',
  password: 'login.form.password.required',
  phone: 'login.form.phone.required',
  captcha: 'login.form.captcha.required',
};

function FieldBox({ error, children }: { error?: string; children: ReactNode }) {
  return (
    <div className={styles.field}>
      {children}
      <div className={styles.fieldError} role={error ? 'alert' : undefined}>
        {error}
      </div>
    </div>
  );
}

export default function LoginForm() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const [mode, setMode] = useState<Mode>('password');
  const [values, setValues] = useState<Record<Field, string>>(() => ({
    username: localStorage.getItem(REMEMBER_KEY) ?? '',
    password: '',
    phone: '',
    captcha: '',
  }));
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [agreed, setAgreed] = useState(false);
  const [remember, setRemember] = useState(() => localStorage.getItem(REMEMBER_KEY) !== null);
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(false);

  const set = (field: Field) => (v: string) => {
    setValues((s) => ({ ...s, [field]: v }));
    setErrors((e) => (e[field] ? { ...e, [field]: undefined } : e));
  };

  /** Marks the empty ones of `fields`; true when all are filled. */
  const validate = (fields: Field[]) => {
    const found: Partial<Record<Field, string>> = {};
    for (const f of fields) if (!values[f].trim()) found[f] = t(REQUIRED_MESSAGE[f]);
    setErrors((e) => ({ ...e, ...Object.fromEntries(fields.map((f) => [f, found[f]])) }));
    return Object.keys(found).length === 0;
  };

  const signedIn = (r: LoginResult) => {
    // The query cache lives in the signed-in shell, which clears it on sign-out and expiry; the sign-in page
    // stays free of it to keep its download small.
    setToken(r.token, r.uid);
    toast('success', t('login.form.login.success'));
    void navigate(resolveRedirect(search), { replace: true });
  };

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    setError('');
    if (!validate(FIELDS[mode])) return;
    if (!agreed) {
      setError(t('login.form.agreement.required'));
      return;
    }
    setLoading(true);
    try {
      if (mode === 'phone') {
        signedIn(await loginByPhone({ phone: values.phone.trim(), captcha: values.captcha.trim() }));
      } else {
        const username = values.username.trim();
        const result = await loginByPassword({ username, password: values.password });
        if (remember) localStorage.setItem(REMEMBER_KEY, username);
        else localStorage.removeItem(REMEMBER_KEY);
        signedIn(result);
      }
    } catch (err) {
      // A refused sign-in says why; anything else (network down, server error) can only be retried.
      const answered = err instanceof ApiError && err.answered;
      setError(answered ? err.message : t('login.form.login.errMsg'));
    } finally {
      setLoading(false);
    }
  };

  const sendCode = async () => {
    if (!validate(['phone'])) throw new Error('phone required');
    await sendSmsCode(values.phone.trim(), 'login');
    toast('success', t('login.form.captcha.sent'));
  };

  const switchMode = (next: Mode) => {
    setMode(next);
    setError('');
    setErrors({});
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

  const submitButton = (
    <Button
      type="primary"
      htmlType="submit"
      long
      loading={loading}
      className={styles.submit}
      data-testid="login-submit"
    >
      {t('login.form.login')}
    </Button>
  );

  return (
    <div className={styles.wrapper}>
      <h1 className={styles.title}>{t('login.form.title')}</h1>
      <div className={styles.subtitle}>{t('login.form.subtitle')}</div>
      <div role="tablist" className={styles.tabs}>
        {MODES.map((m) => (
          <button
            key={m}
            type="button"
            role="tab"
            aria-selected={mode === m}
            className={mode === m ? `${styles.tab} ${styles.tabActive}` : styles.tab}
            onClick={() => switchMode(m)}
          >
            {t(`login.tab.${m}`)}
          </button>
        ))}
      </div>
      <div className={styles.error} role="alert">
        {error}
      </div>

      {mode === 'password' && (
        <form onSubmit={(e) => void submit(e)} autoComplete="on" noValidate>
          <FieldBox error={errors.username}>
            <Input
              value={values.username}
              onChange={set('username')}
              status={errors.username ? 'error' : undefined}
              prefix={<IconUser />}
              placeholder={t('login.form.username.placeholder')}
              autoComplete="username"
              data-testid="login-username"
              maxLength={64}
            />
          </FieldBox>
          <FieldBox error={errors.password}>
            <Input.Password
              value={values.password}
              onChange={set('password')}
              status={errors.password ? 'error' : undefined}
              prefix={<IconLock />}
              placeholder={t('login.form.password.placeholder')}
              autoComplete="current-password"
              maxLength={128}
              data-testid="login-password"
            />
          </FieldBox>
          <div className={styles.actions}>
            <Checkbox checked={remember} onChange={setRemember}>
              {t('login.form.rememberUsername')}
            </Checkbox>
            <Link
              onClick={() => {
                switchMode('phone');
                toast('info', t('login.form.forgetPassword.tip'));
              }}
            >
              {t('login.form.forgetPassword')}
            </Link>
          </div>
          {agreement}
          {submitButton}
        </form>
      )}

      {mode === 'phone' && (
        <form onSubmit={(e) => void submit(e)} noValidate>
          <FieldBox error={errors.phone}>
            <Input
              value={values.phone}
              onChange={set('phone')}
              status={errors.phone ? 'error' : undefined}
              prefix={<IconMobile />}
              placeholder={t('login.form.phone.placeholder')}
              autoComplete="tel"
              maxLength={16}
              data-testid="login-phone"
            />
          </FieldBox>
          <FieldBox error={errors.captcha}>
            <SmsCodeInput
              value={values.captcha}
              onChange={set('captcha')}
              error={!!errors.captcha}
              prefix={<IconSafe />}
              placeholder={t('login.form.captcha.placeholder')}
              onSend={sendCode}
            />
          </FieldBox>
          {agreement}
          {submitButton}
        </form>
      )}

      {mode === 'qr' && (
        <div>
          {agreed ? (
            <Suspense fallback={<div className={styles.qrPanel} />}>
              <QrLoginPanel onSuccess={signedIn} />
            </Suspense>
          ) : (
            <QrBox className={styles.qrPanel} tip={'\u00a0'}>
              <div className={styles.qrHint}>{t('login.form.agreement.required')}</div>
            </QrBox>
          )}
          {agreement}
        </div>
      )}

      <div className={styles.register}>
        <Button type="text" long onClick={() => void navigate('/register')}>
          {t('login.form.register')}
        </Button>
      </div>
    </div>
  );
}
