import type { AccessKeyCreated } from '@cellhub/contract/access-keys';
import { Button, Card, Form, Message, Result, Space, Steps } from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useCreateAccessKey } from '../api';
import { KeyFields, showKeyFieldErrors } from '../components/key-fields';
import { SecretOnce } from '../components/secret-once';
import { VerifyPanel } from '../components/verify-panel';
import { emptyKeyForm, keyBody, type KeyFormValues } from '../key-form';
import locale from '../locale';
import styles from '../components/access-keys.module.css';

/**
 * /accesskey/create in three steps: the form; the secret, shown this once (the page keeps it in memory only, so a
 * reload or leaving loses it for good); the verification with a code. A key left unverified can be verified later
 * from the list or its page.
 */
export default function AccessKeyCreatePage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<KeyFormValues>();
  const create = useCreateAccessKey();
  const [step, setStep] = useState<0 | 1 | 2 | 3>(0);
  const [created, setCreated] = useState<AccessKeyCreated | null>(null);
  const accessKey = created?.access_key;

  // While the secret is on screen, a reload or a closed tab loses it for good: the browser asks first.
  useEffect(() => {
    if (step !== 1) return;
    const ask = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [step]);

  const submit = async () => {
    let values: KeyFormValues;
    try {
      values = await form.validate();
    } catch {
      return;
    }
    try {
      const result = await create.mutateAsync(keyBody(values));
      setCreated(result);
      setStep(1);
    } catch (e) {
      if (showKeyFieldErrors(form, e, t)) return;
      if (e instanceof ApiError && e.httpStatus !== 403) Message.error(e.message);
    }
  };

  const toDetail = () => accessKey && void navigate(`/accesskey/detail/${accessKey}`);

  return (
    <PageContainer>
      <Card bordered={false} title={t('accessKey.form.createTitle')}>
        <Steps current={step + 1} style={{ maxWidth: 780, margin: '8px auto 32px' }}>
          <Steps.Step title={t('accessKey.step.info')} description={t('accessKey.step.info.desc')} />
          <Steps.Step title={t('accessKey.step.secret')} description={t('accessKey.step.secret.desc')} />
          <Steps.Step title={t('accessKey.step.verify')} description={t('accessKey.step.verify.desc')} />
        </Steps>
        <div className={styles.formCard} style={{ margin: '0 auto' }}>
          {step === 0 && (
            <Form<KeyFormValues>
              form={form}
              layout="vertical"
              initialValues={emptyKeyForm()}
              onSubmit={() => void submit()}
            >
              <KeyFields form={form} />
              <Space>
                <Button
                  type="primary"
                  htmlType="submit"
                  loading={create.isPending}
                  data-testid="access-key-submit"
                >
                  {t('accessKey.form.submit')}
                </Button>
                <Button onClick={() => void navigate('/accesskey/list')}>{t('accessKey.form.cancel')}</Button>
              </Space>
            </Form>
          )}
          {step === 1 && created && (
            <SecretOnce
              accessKey={created.access_key}
              secret={created.secret}
              action={{
                label: t('accessKey.secret.next'),
                onClick: () => {
                  // The secret leaves memory here: the next steps need only the key.
                  setCreated({ ...created, secret: '' });
                  setStep(2);
                },
              }}
            />
          )}
          {step === 2 && accessKey && (
            <Space direction="vertical" size={16} style={{ width: '100%' }}>
              <div className={styles.muted}>{t('accessKey.verify.help')}</div>
              <VerifyPanel accessKey={accessKey} onVerified={() => setStep(3)} />
              <Button type="text" onClick={toDetail} style={{ padding: 0 }}>
                {t('accessKey.verify.later')}
              </Button>
            </Space>
          )}
          {step === 3 && accessKey && (
            <Result
              status="success"
              title={t('accessKey.verify.doneTitle')}
              subTitle={t('accessKey.verify.done')}
              extra={
                <Space>
                  <Button onClick={() => void navigate('/accesskey/list')}>{t('accessKey.toList')}</Button>
                  <Button type="primary" onClick={toDetail}>
                    {t('accessKey.toDetail')}
                  </Button>
                </Space>
              }
            />
          )}
        </div>
      </Card>
    </PageContainer>
  );
}
