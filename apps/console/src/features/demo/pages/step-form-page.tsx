import { Button, Card, DatePicker, Form, Input, Result, Select, Space, Steps } from '@arco-design/web-react';
import { useState } from 'react';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import DemoNotice from '../components/demo-notice';
import locale from '../locale';
import { ACTIVITY_NAME_RULE, AD_TEXT_MAX, PROMOTION_URL_RULE } from '../step-form-rules';
import styles from './demo.module.css';

export default function StepFormPage() {
  const t = useLocale(locale);
  const [step, setStep] = useState(1);
  const [form] = Form.useForm();

  const next = async () => {
    try {
      await form.validate();
      setStep((s) => s + 1);
    } catch {
      // The fields show what is missing.
    }
  };

  return (
    <PageContainer>
      <DemoNotice />
      <Card bordered={false} title={t('stepForm.title')}>
        <div className={styles.stepWrap}>
          <Steps current={step} style={{ width: 760 }}>
            <Steps.Step title={t('stepForm.step1')} description={t('stepForm.step1.desc')} />
            <Steps.Step title={t('stepForm.step2')} description={t('stepForm.step2.desc')} />
            <Steps.Step title={t('stepForm.step3')} description={t('stepForm.step3.desc')} />
          </Steps>
          {step < 3 ? (
            <Form
              form={form}
              style={{ width: 560, marginTop: 48 }}
              labelCol={{ span: 6 }}
              wrapperCol={{ span: 18 }}
            >
              {step === 1 ? (
                <>
                  <Form.Item
                    label={t('stepForm.name')}
                    field="name"
                    rules={[
                      { required: true, message: t('stepForm.required') },
                      { match: ACTIVITY_NAME_RULE, message: t('stepForm.name.rule') },
                    ]}
                  >
                    <Input placeholder={t('stepForm.name.placeholder')} />
                  </Form.Item>
                  <Form.Item
                    label={t('stepForm.channel')}
                    field="channel"
                    rules={[{ required: true, message: t('stepForm.required') }]}
                  >
                    <Select
                      options={[
                        { value: 'app', label: t('stepForm.channel.app') },
                        { value: 'site', label: t('stepForm.channel.site') },
                      ]}
                    />
                  </Form.Item>
                  <Form.Item
                    label={t('stepForm.time')}
                    field="time"
                    rules={[{ required: true, message: t('stepForm.required') }]}
                  >
                    <DatePicker.RangePicker style={{ width: '100%' }} />
                  </Form.Item>
                  <Form.Item
                    label={t('stepForm.url')}
                    field="url"
                    extra={t('stepForm.url.rule')}
                    rules={[
                      { required: true, message: t('stepForm.required') },
                      { match: PROMOTION_URL_RULE, message: t('stepForm.url.rule') },
                    ]}
                  >
                    <Input placeholder="http://" />
                  </Form.Item>
                </>
              ) : (
                <Form.Item
                  label={t('stepForm.ad')}
                  field="ad"
                  rules={[
                    { required: true, message: t('stepForm.required') },
                    { maxLength: AD_TEXT_MAX, message: t('stepForm.ad.rule') },
                  ]}
                >
                  <Input.TextArea
                    placeholder={t('stepForm.ad.placeholder')}
                    maxLength={{ length: AD_TEXT_MAX, errorOnly: true }}
                    showWordLimit
                    autoSize={{ minRows: 4 }}
                  />
                </Form.Item>
              )}
              <Form.Item wrapperCol={{ offset: 6 }}>
                <Space>
                  {step === 2 && <Button onClick={() => setStep(1)}>{t('stepForm.prev')}</Button>}
                  <Button type="primary" onClick={() => void next()}>
                    {t('stepForm.next')}
                  </Button>
                </Space>
              </Form.Item>
            </Form>
          ) : (
            <Result
              status="success"
              title={t('stepForm.done')}
              extra={
                <Button
                  type="primary"
                  onClick={() => {
                    form.resetFields();
                    setStep(1);
                  }}
                >
                  {t('stepForm.again')}
                </Button>
              }
            />
          )}
        </div>
      </Card>
    </PageContainer>
  );
}
