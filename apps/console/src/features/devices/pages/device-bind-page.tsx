import type { DeviceDetail } from '@cellhub/contract/devices';
import { Button, Card, Form, Input, Message, Result, Typography } from '@arco-design/web-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useBindDevice } from '../api';
import locale from '../locale';
import styles from './device-pages.module.css';

export default function DeviceBindPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<{ sn: string; secret: string }>();
  const bind = useBindDevice();
  const [bound, setBound] = useState<DeviceDetail | null>(null);

  const submit = async () => {
    const v = await form.validate();
    try {
      setBound(await bind.mutateAsync(v));
    } catch (err) {
      if (!(err instanceof ApiError)) return;
      // 10117 covers both a wrong sn and a wrong secret: said once, beside the fields, with no toast on top.
      if (err.code === 10117)
        form.setFields({ secret: { error: { message: t('device.bind.failed.unknown') } } });
      // 403 (signed out) has been handled by the request layer.
      else if (err.httpStatus !== 403) Message.error(err.message);
    }
  };

  return (
    <PageContainer>
      <Card bordered={false} title={t('device.bind.title')}>
        {bound ? (
          <Result
            status="success"
            title={t('device.bind.done', { sn: bound.sn })}
            extra={[
              <Button
                key="open"
                type="primary"
                onClick={() =>
                  void navigate(
                    `/device/detail/${encodeURIComponent(bound.product_key)}/${encodeURIComponent(bound.sn)}`,
                  )
                }
              >
                {t('device.bind.open')}
              </Button>,
              <Button
                key="again"
                onClick={() => {
                  form.resetFields();
                  setBound(null);
                }}
              >
                {t('device.bind.another')}
              </Button>,
            ]}
          />
        ) : (
          <div className={styles.narrow}>
            <Typography.Paragraph type="secondary">{t('device.bind.intro')}</Typography.Paragraph>
            <Form form={form} layout="vertical" onSubmit={() => void submit()}>
              <Form.Item
                label={t('device.bind.sn')}
                field="sn"
                rules={[{ required: true, message: t('device.bind.sn.required') }]}
              >
                <Input placeholder={t('device.bind.sn.placeholder')} maxLength={64} className={styles.mono} />
              </Form.Item>
              <Form.Item
                label={t('device.bind.secret')}
                field="secret"
                rules={[{ required: true, message: t('device.bind.secret.required') }]}
              >
                <Input.Password
                  placeholder={t('device.bind.secret.placeholder')}
                  maxLength={128}
                  autoComplete="off"
                  className={styles.mono}
                />
              </Form.Item>
              <Form.Item>
                <Button type="primary" htmlType="submit" loading={bind.isPending}>
                  {t('device.bind.submit')}
                </Button>
              </Form.Item>
            </Form>
          </div>
        )}
      </Card>
    </PageContainer>
  );
}
