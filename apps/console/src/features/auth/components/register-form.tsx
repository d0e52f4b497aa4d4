import { CAPTCHA_RULE, PASSWORD_RULE, PHONE_RULE, USERNAME_RULE } from '@cellhub/contract/auth';
import { Button, Form, Input, Message } from '@arco-design/web-react';
import { IconLock, IconMobile, IconSafe, IconUser } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { register, sendSmsCode } from '../api';
import locale from '../locale';
import AgreementCheckbox from './agreement-checkbox';
import SmsCodeInput from '../../../components/sms-code-input';
import styles from './login-form.module.css';

interface Values {
  username: string;
  password: string;
  password2: string;
  phone?: string;
  captcha?: string;
}

export default function RegisterForm() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const [agreed, setAgreed] = useState(false);
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(false);

  const submit = async (v: Values) => {
    setError('');
    if (!agreed) {
      setError(t('login.form.agreement.required'));
      return;
    }
    setLoading(true);
    try {
      const phone = v.phone?.trim();
      await register({
        username: v.username.trim(),
        password: v.password,
        password2: v.password2,
        ...(phone ? { phone, captcha: v.captcha?.trim() } : {}),
      });
      Message.success(t('register.success'));
      void navigate('/login', { replace: true });
    } catch (e) {
      const answered = e instanceof ApiError && e.answered;
      setError(answered ? e.message : t('login.form.login.errMsg'));
    } finally {
      setLoading(false);
    }
  };

  const sendCode = async () => {
    const { phone } = await form.validate(['phone']);
    if (!phone?.trim()) {
      form.setFields({ phone: { error: { message: t('login.form.phone.required') } } });
      throw new Error('phone required');
    }
    await sendSmsCode(phone.trim(), 'register');
    Message.success(t('login.form.captcha.sent'));
  };

  return (
    <div className={styles.wrapper}>
      <h1 className={styles.title}>{t('register.title')}</h1>
      <div className={styles.subtitle}>{t('register.subtitle')}</div>
      <div className={styles.error} role="alert">
        {error}
      </div>
      <Form form={form} layout="vertical" onSubmit={(v: Values) => void submit(v)} autoComplete="off">
        <Form.Item
          field="username"
          rules={[
            { required: true, message: t('register.username.required') },
            { match: USERNAME_RULE, message: t('register.username.rule') },
          ]}
        >
          <Input prefix={<IconUser />} placeholder={t('register.username.placeholder')} maxLength={32} />
        </Form.Item>
        <Form.Item
          field="password"
          // The rule is shown once, under the field; a refusal points at it instead of repeating it.
          extra={t('register.password.rule')}
          rules={[
            { required: true, message: t('register.password.required') },
            { match: PASSWORD_RULE, message: t('register.password.ruleError') },
          ]}
        >
          <Input.Password
            prefix={<IconLock />}
            placeholder={t('register.password.placeholder')}
            autoComplete="new-password"
            maxLength={64}
          />
        </Form.Item>
        <Form.Item
          field="password2"
          dependencies={['password']}
          rules={[
            { required: true, message: t('register.password2.required') },
            {
              validator: (value: string | undefined, cb) =>
                cb(
                  value && value !== form.getFieldValue('password')
                    ? t('register.password2.mismatch')
                    : undefined,
                ),
            },
          ]}
        >
          <Input.Password
            prefix={<IconLock />}
            placeholder={t('register.password2.placeholder')}
            autoComplete="new-password"
            maxLength={64}
          />
        </Form.Item>
        <Form.Item field="phone" rules={[{ match: PHONE_RULE, message: t('register.phone.rule') }]}>
          <Input prefix={<IconMobile />} placeholder={t('register.phone.placeholder')} maxLength={16} />
        </Form.Item>
        <Form.Item shouldUpdate noStyle>
          {(values: Partial<Values>) =>
            values.phone?.trim() ? (
              <Form.Item
                field="captcha"
                rules={[
                  { required: true, message: t('register.captcha.required') },
                  { match: CAPTCHA_RULE, message: t('register.captcha.rule') },
                ]}
              >
                <SmsCodeInput
                  prefix={<IconSafe />}
                  placeholder={t('register.captcha.placeholder')}
                  onSend={sendCode}
                />
              </Form.Item>
            ) : null
          }
        </Form.Item>
        <AgreementCheckbox
          checked={agreed}
          onChange={(v) => {
            setAgreed(v);
            if (v) setError('');
          }}
        />
        <Button
          type="primary"
          htmlType="submit"
          long
          loading={loading}
          className={styles.submit}
          data-testid="register-submit"
        >
          {t('register.submit')}
        </Button>
        <div className={styles.register}>
          <Button type="text" long onClick={() => void navigate('/login')}>
            {t('register.toLogin')}
          </Button>
        </div>
      </Form>
    </div>
  );
}
