import type { SystemSettingsView } from '@cellhub/contract/system-settings';
import { Alert, Form, Grid, Input } from '@arco-design/web-react';
import type { Translate } from '../../../lib/i18n';
import type { ChannelBodies } from '../api';
import ChannelForm, { isSetIn } from './channel-form';
import { SecretInput } from './secret-input';

const { Row, Col } = Grid;

/** The messaging app (WeChat official account): AppID, AppSecret, template message id. */
export default function WechatSettingsForm({ view, t }: { view: SystemSettingsView; t: Translate }) {
  const [form] = Form.useForm<ChannelBodies['wechat']>();
  return (
    <ChannelForm channel="wechat" view={view} t={t} form={form}>
      <Alert type="info" content={t('systemSetting.wechat.help')} style={{ marginBottom: 16 }} />
      <Row gutter={24}>
        <Col xs={24} md={12}>
          <Form.Item label={t('systemSetting.wechat.appid')} field="appid">
            <Input maxLength={64} placeholder="wx0123456789abcdef" autoComplete="off" />
          </Form.Item>
        </Col>
        <Col xs={24} md={12}>
          <Form.Item
            label={t('systemSetting.wechat.secret')}
            field="secret"
            extra={t('systemSetting.secretHelp')}
          >
            <SecretInput isSet={isSetIn(view, 'wechat', 'secret')} t={t} />
          </Form.Item>
        </Col>
      </Row>
      <Row gutter={24}>
        <Col xs={24} md={12}>
          <Form.Item label={t('systemSetting.wechat.template_id')} field="template_id">
            <Input maxLength={128} autoComplete="off" />
          </Form.Item>
        </Col>
      </Row>
    </ChannelForm>
  );
}
