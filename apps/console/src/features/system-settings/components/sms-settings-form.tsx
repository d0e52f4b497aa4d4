import {
  SMS_PROVIDERS,
  type SmsProviderName,
  type SystemSettingsView,
} from '@cellhub/contract/system-settings';
import { Alert, Form, Grid, Input, Select } from '@arco-design/web-react';
import type { Translate } from '../../../lib/i18n';
import type { ChannelBodies } from '../api';
import ChannelForm, { isSetIn } from './channel-form';
import { SecretInput } from './secret-input';

const { Row, Col } = Grid;
const TEMPLATES = [
  'template_verify_code',
  'template_alert_raise',
  'template_alert_recover',
  'template_sim_expiry',
  'template_sim_data_low',
] as const;
const TENCENT_REGIONS = ['ap-guangzhou', 'ap-beijing', 'ap-nanjing', 'ap-singapore'];

/** SMS: provider, keys, sign name, template codes; Tencent adds SmsSdkAppId and region. */
export default function SmsSettingsForm({ view, t }: { view: SystemSettingsView; t: Translate }) {
  const [form] = Form.useForm<ChannelBodies['sms']>();
  const provider = (Form.useWatch('provider', form) as SmsProviderName | undefined) ?? view.sms.provider;
  const cloud = provider === 'aliyun' || provider === 'tencent' ? provider : undefined;
  return (
    <ChannelForm channel="sms" view={view} t={t} form={form}>
      <Alert type="info" content={t('systemSetting.sms.help')} style={{ marginBottom: 16 }} />
      <Row gutter={24}>
        <Col xs={24} md={12}>
          <Form.Item label={t('systemSetting.sms.provider')} field="provider">
            <Select
              options={SMS_PROVIDERS.map((p) => ({ value: p, label: t(`systemSetting.sms.provider.${p}`) }))}
            />
          </Form.Item>
        </Col>
      </Row>
      {!cloud && (
        <Alert type="warning" content={t('systemSetting.sms.logHelp')} style={{ marginBottom: 16 }} />
      )}
      {cloud && (
        <>
          <Row gutter={24}>
            <Col xs={24} md={12}>
              <Form.Item label={t(`systemSetting.sms.access_key_id.${cloud}`)} field="access_key_id">
                <Input maxLength={128} autoComplete="off" />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item
                label={t(`systemSetting.sms.access_key_secret.${cloud}`)}
                field="access_key_secret"
                extra={t('systemSetting.secretHelp')}
              >
                <SecretInput isSet={isSetIn(view, 'sms', 'access_key_secret')} t={t} />
              </Form.Item>
            </Col>
          </Row>
          {cloud === 'tencent' && (
            <Row gutter={24}>
              <Col xs={24} md={12}>
                <Form.Item label={t('systemSetting.sms.sdk_app_id')} field="sdk_app_id">
                  <Input maxLength={20} placeholder="1400000000" />
                </Form.Item>
              </Col>
              <Col xs={24} md={12}>
                <Form.Item label={t('systemSetting.sms.region')} field="region">
                  <Select allowCreate allowClear options={TENCENT_REGIONS} placeholder="ap-guangzhou" />
                </Form.Item>
              </Col>
            </Row>
          )}
          <Row gutter={24}>
            <Col xs={24} md={12}>
              <Form.Item label={t('systemSetting.sms.sign_name')} field="sign_name">
                <Input maxLength={64} />
              </Form.Item>
            </Col>
          </Row>
          <Row gutter={24}>
            {TEMPLATES.map((field) => (
              <Col xs={24} md={8} key={field}>
                <Form.Item label={t(`systemSetting.sms.${field}`)} field={field}>
                  <Input maxLength={64} placeholder={t(`systemSetting.sms.template.${cloud}`)} />
                </Form.Item>
              </Col>
            ))}
          </Row>
        </>
      )}
    </ChannelForm>
  );
}
