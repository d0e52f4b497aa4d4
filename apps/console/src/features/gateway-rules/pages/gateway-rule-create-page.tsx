import { Alert, Button, Card, Form, Input, Message, Space } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { showFieldErrors } from '../../../components/form-states';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useCreateGatewayRule, useGatewayCandidates } from '../api';
import { CandidateSelect } from '../components/candidate-select';
import { GATEWAY_RULES_BASE } from '../device-link';
import locale from '../locale';

interface Values {
  name: string;
  gateway_sn: string;
}

/** /rule-setting/gate-way/create — a rule's name and its gateway device (gateway-type devices only). */
export default function GatewayRuleCreatePage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const save = useCreateGatewayRule();
  const [form] = Form.useForm<Values>();
  const any = useGatewayCandidates('gateway', '');
  const none = any.isSuccess && any.data.length === 0;

  const submit = async () => {
    const values = await form.validate().catch(() => undefined);
    if (!values) return;
    try {
      const made = await save.mutateAsync({ name: values.name.trim(), gateway_sn: values.gateway_sn });
      Message.success(t('gwRule.created'));
      void navigate(`${GATEWAY_RULES_BASE}/detail/${made.id}`);
    } catch (e) {
      if (showFieldErrors(form, e)) return;
      if (e instanceof ApiError && e.httpStatus !== 403) Message.error(e.message);
    }
  };

  return (
    <PageContainer>
      <Card bordered={false} title={t('gwRule.form.title')} style={{ maxWidth: 720 }}>
        {none ? (
          <Alert type="warning" content={t('gwRule.form.gateway.none')} style={{ marginBottom: 16 }} />
        ) : null}
        <Form<Values> form={form} layout="vertical" onSubmit={() => void submit()}>
          <Form.Item
            label={t('gwRule.form.name')}
            field="name"
            rules={[{ required: true, message: t('gwRule.form.name.required') }]}
          >
            <Input placeholder={t('gwRule.form.name.placeholder')} maxLength={64} data-testid="gw-name" />
          </Form.Item>
          <Form.Item
            label={t('gwRule.form.gateway')}
            field="gateway_sn"
            extra={t('gwRule.form.gateway.extra')}
            rules={[{ required: true, message: t('gwRule.form.gateway.required') }]}
          >
            <CandidateSelect
              nodetype="gateway"
              placeholder={t('gwRule.form.gateway.placeholder')}
              onlineText={t('gwRule.online')}
              offlineText={t('gwRule.offline')}
              testId="gw-gateway"
            />
          </Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="gw-save">
              {t('common.save')}
            </Button>
            <Button onClick={() => void navigate(`${GATEWAY_RULES_BASE}/list`)}>{t('common.back')}</Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}
