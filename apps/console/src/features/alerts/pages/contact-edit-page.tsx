import { PHONE_RULE } from '@cellhub/contract/auth';
import type { AlertContactItem, AlertVerifyChannel } from '@cellhub/contract/alerts';
import { Button, Card, Divider, Form, Input, Message, Space, Spin } from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import SmsCodeInput from '../../../components/sms-code-input';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useContact, useSaveContact, useSendContactCode, useVerifyContact } from '../api';
import { VerifiedTag } from '../components/verified-tag';
import locale from '../locale';
import styles from './alert.module.css';
import { recordState, isRecordId } from '../../../components/result-page/result-page';

interface Values {
  name: string;
  phone: string;
  email: string;
  remark: string;
}

const EMAIL_RULE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Create (/alert/contact/create) and edit (/alert/contact/edit/:id) with the phone and email verification. */
export default function ContactEditPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const params = useParams();
  const id = params.id ? Number(params.id) : undefined;
  const load = useContact(id);
  const { data: current, isLoading } = load;
  const save = useSaveContact();
  const [form] = Form.useForm<Values>();
  const phone = (Form.useWatch('phone', form) as string | undefined) ?? '';
  const email = (Form.useWatch('email', form) as string | undefined) ?? '';

  useEffect(() => {
    if (current)
      form.setFieldsValue({
        name: current.name,
        phone: current.phone,
        email: current.email,
        remark: current.remark,
      });
  }, [current, form]);

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validate();
    } catch {
      return;
    }
    const body = {
      name: values.name,
      phone: values.phone?.trim() ?? '',
      email: values.email?.trim() ?? '',
      remark: values.remark ?? '',
    };
    if (!body.phone && !body.email) {
      form.setFields({ phone: { error: { message: t('alert.field.phoneOrEmail') } } });
      return;
    }
    try {
      const saved = await save.mutateAsync({ id, body });
      Message.success(t('alert.saved'));
      // A new contact goes on to its verification.
      if (id === undefined) void navigate(`/alert/contact/edit/${saved.id}`, { replace: true });
    } catch (e) {
      if (!(e instanceof ApiError) || e.httpStatus === 403) return;
      const field = Array.isArray(e.details) ? (e.details as { field?: string }[])[0]?.field : undefined;
      if (field === 'phone' || field === 'email' || field === 'name')
        form.setFields({ [field]: { error: { message: e.message } } });
      else Message.error(e.message);
    }
  };

  const state = recordState(load, {
    skip: id === undefined,
    badId: id !== undefined && !isRecordId(id),
    back: '/alert/contact/list',
  });
  if (state) return state;

  return (
    <PageContainer>
      <Card
        bordered={false}
        className={styles.formCard}
        title={id === undefined ? t('alert.contact.createTitle') : t('alert.contact.editTitle')}
      >
        <Spin loading={id !== undefined && isLoading} style={{ display: 'block' }}>
          <Form<Values>
            form={form}
            layout="vertical"
            initialValues={{ name: '', phone: '', email: '', remark: '' }}
            onSubmit={() => void submit()}
          >
            <Form.Item
              label={t('alert.field.name')}
              field="name"
              rules={[{ required: true, message: t('alert.field.name.required') }]}
            >
              <Input maxLength={64} data-testid="alert-contact-name" />
            </Form.Item>
            <Form.Item
              label={t('alert.field.phone')}
              field="phone"
              rules={[
                {
                  validator: (v: string | undefined, cb) =>
                    cb(v && !PHONE_RULE.test(v.trim()) ? t('alert.field.phone.rule') : undefined),
                },
              ]}
            >
              <Input maxLength={20} data-testid="alert-contact-phone" />
            </Form.Item>
            <Form.Item
              label={t('alert.field.email')}
              field="email"
              rules={[
                {
                  validator: (v: string | undefined, cb) =>
                    cb(v && !EMAIL_RULE.test(v.trim()) ? t('alert.field.email.rule') : undefined),
                },
              ]}
            >
              <Input maxLength={254} data-testid="alert-contact-email" />
            </Form.Item>
            <Form.Item label={t('alert.field.remark')} field="remark">
              <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
            </Form.Item>
            <Space>
              <Button
                type="primary"
                htmlType="submit"
                loading={save.isPending}
                data-testid="alert-contact-save"
              >
                {t('alert.save')}
              </Button>
              <Button onClick={() => void navigate('/alert/contact/list')}>{t('alert.back')}</Button>
            </Space>
          </Form>
        </Spin>

        <Divider />
        <div className={styles.section}>{t('alert.verify.title')}</div>
        <div className={styles.help}>{t('alert.verify.help')}</div>
        {current ? (
          <Space direction="vertical" size={16} style={{ width: '100%' }}>
            {current.phone ? (
              <VerifyRow contact={current} channel="sms" unsaved={phone.trim() !== current.phone} />
            ) : null}
            {current.email ? (
              <VerifyRow
                contact={current}
                channel="email"
                unsaved={email.trim().toLowerCase() !== current.email}
              />
            ) : null}
          </Space>
        ) : (
          <div className={styles.muted}>{t('alert.verify.saveFirst')}</div>
        )}
      </Card>
    </PageContainer>
  );
}

/** One address: its verified tag, and (until verified) the code input with "send code" and "verify". */
function VerifyRow({
  contact,
  channel,
  unsaved,
}: {
  contact: AlertContactItem;
  channel: AlertVerifyChannel;
  unsaved: boolean;
}) {
  const t = useLocale(locale);
  const send = useSendContactCode();
  const verify = useVerifyContact();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();
  const address = channel === 'sms' ? contact.phone : contact.email;
  const verified = channel === 'sms' ? contact.phone_verified : contact.email_verified;

  const onSend = async () => {
    const sent = await send.mutateAsync({ id: contact.id, channel });
    Message.success(t(`alert.verify.sent.${channel}`, { to: sent.to }));
  };

  const onVerify = async () => {
    setError(undefined);
    try {
      await verify.mutateAsync({ id: contact.id, channel, code });
      Message.success(t('alert.verify.done'));
      setCode('');
    } catch (e) {
      if (e instanceof ApiError && e.httpStatus !== 403) setError(e.message);
    }
  };

  return (
    <div data-testid={`alert-verify-${channel}`}>
      <div className={styles.verifyRow}>
        <span style={{ minWidth: 96 }}>
          {t(channel === 'sms' ? 'alert.field.phone' : 'alert.field.email')}
        </span>
        <span>{address}</span>
        <VerifiedTag verified={verified} />
      </div>
      {verified || unsaved ? (
        unsaved ? (
          <div className={styles.muted} style={{ marginTop: 8 }}>
            {t('alert.verify.changed')}
          </div>
        ) : null
      ) : (
        <div className={styles.verifyRow} style={{ marginTop: 8 }}>
          <div className={styles.verifyInput}>
            <SmsCodeInput
              value={code}
              onChange={setCode}
              placeholder={t('alert.verify.code.placeholder')}
              error={!!error}
              onSend={onSend}
            />
          </div>
          <Button type="primary" loading={verify.isPending} onClick={() => void onVerify()}>
            {t('alert.verify.submit')}
          </Button>
          {error ? <span style={{ color: 'rgb(var(--danger-6))' }}>{error}</span> : null}
        </div>
      )}
    </div>
  );
}
