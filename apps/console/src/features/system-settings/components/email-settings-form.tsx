import type { SystemSettingsView } from '@cellhub/contract/system-settings';
import { Alert, Form, Grid, Input, InputNumber, Switch } from '@arco-design/web-react';
import type { Translate } from '../../../lib/i18n';
import type { ChannelBodies } from '../api';
import ChannelForm, { isSetIn } from './channel-form';
import { SecretInput } from './secret-input';

const { Row, Col } = Grid;

/** SMTP: host, port, SSL, account (also the sender address), sender name, password. */
export default function EmailSettingsForm({ view, t }: { view: SystemSettingsView; t: Translate }) {
  const [form] = Form.useForm<ChannelBodies['email']>();
  const passwordSet = isSetIn(view, 'email', 'password');
  return (
    <ChannelForm channel="email" view={view} t={t} form={form}>
      <Alert type="info" content={t('systemSetting.email.help')} style={{ marginBottom: 16 }} />
      <Row gutter={24}>
        <Col xs={24} md={12}>
          <Form.Item
            label={t('systemSetting.email.host')}
            field="host"
            rules={[{ required: true, message: t('systemSetting.email.host.required') }]}
          >
            <Input maxLength={253} placeholder="smtp.example.com" autoComplete="off" />
          </Form.Item>
        </Col>
        <Col xs={12} md={6}>
          <Form.Item label={t('systemSetting.email.port')} field="port">
            <InputNumber min={1} max={65535} precision={0} />
          </Form.Item>
        </Col>
        <Col xs={12} md={6}>
          <Form.Item
            label={t('systemSetting.email.ssl')}
            field="ssl"
            triggerPropName="checked"
            extra={t('systemSetting.email.ssl.help')}
          >
            <Switch
              onChange={(on: boolean) => {
                const port = form.getFieldValue('port');
                if (on && (port === 25 || port === 587)) form.setFieldValue('port', 465);
                if (!on && port === 465) form.setFieldValue('port', 25);
              }}
            />
          </Form.Item>
        </Col>
      </Row>
      <Row gutter={24}>
        <Col xs={24} md={12}>
          <Form.Item
            label={t('systemSetting.email.account')}
            field="account"
            rules={[
              { required: true, message: t('systemSetting.email.account.required') },
              { type: 'email', message: t('systemSetting.email.account.invalid') },
            ]}
          >
            <Input
              maxLength={254}
              placeholder={t('systemSetting.email.account.placeholder')}
              autoComplete="off"
            />
          </Form.Item>
        </Col>
        <Col xs={24} md={12}>
          <Form.Item label={t('systemSetting.email.nickname')} field="nickname">
            <Input maxLength={64} placeholder="Cellhub" />
          </Form.Item>
        </Col>
      </Row>
      <Row gutter={24}>
        <Col xs={24} md={12}>
          <Form.Item
            label={t('systemSetting.email.password')}
            field="password"
            extra={t('systemSetting.secretHelp')}
            // Left empty, the save keeps the stored password: only a first save must bring one.
            required={!passwordSet}
            rules={[
              {
                validator: (v: string | undefined, cb) =>
                  cb(!passwordSet && !v ? t('systemSetting.email.password.required') : undefined),
              },
            ]}
          >
            <SecretInput isSet={passwordSet} t={t} />
          </Form.Item>
        </Col>
      </Row>
    </ChannelForm>
  );
}
