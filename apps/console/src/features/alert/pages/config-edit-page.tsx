import {
  ALERT_METHODS,
  ALERT_PUSH_MODES,
  type AlertMethod,
  type AlertPushMode,
  alertConfigProblem,
} from '@cellhub/contract/alerts';
import {
  Button,
  Card,
  Checkbox,
  Form,
  Grid,
  Input,
  InputNumber,
  Message,
  Radio,
  Select,
  Space,
  Spin,
  Switch,
} from '@arco-design/web-react';
import { useEffect } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useConfig, useSaveConfig, useTriggerOptions } from '../api';
import { ContactSelect } from '../components/contact-select';
import locale from '../locale';
import styles from './alert.module.css';

interface Values {
  name: string;
  enable: boolean;
  trigger_ids: number[];
  contact_ids: number[];
  methods: AlertMethod[];
  interval_s?: number;
  push_mode: AlertPushMode;
  remark: string;
}

const FORM_FIELDS = new Set(['trigger_ids', 'contact_ids', 'methods', 'interval_s']);
const FIELD_OF: Record<number, string> = { 11007: 'trigger_ids', 11010: 'interval_s', 11011: 'contact_ids' };

/** Create (/alert/config/create) and edit (/alert/config/edit/:id). */
export default function ConfigEditPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const params = useParams();
  const id = params.id ? Number(params.id) : undefined;
  const { data: current, isLoading } = useConfig(id);
  const triggers = useTriggerOptions();
  const save = useSaveConfig();
  const [form] = Form.useForm<Values>();

  useEffect(() => {
    if (!current) return;
    form.setFieldsValue({
      name: current.name,
      enable: current.enable === 1,
      trigger_ids: current.trigger_ids,
      contact_ids: current.contact_ids,
      methods: current.methods,
      interval_s: current.interval_s,
      push_mode: current.push_mode,
      remark: current.remark,
    });
  }, [current, form]);

  const fieldError = (field: string, message: string) =>
    form.setFields({ [field]: { error: { message } } } as Parameters<typeof form.setFields>[0]);
  const clearErrors = (fields: string[]) =>
    form.setFields(
      Object.fromEntries(fields.map((f) => [f, { error: null }])) as Parameters<typeof form.setFields>[0],
    );

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validate();
    } catch {
      return;
    }
    const body = {
      name: values.name,
      enable: values.enable ? (1 as const) : (0 as const),
      trigger_ids: values.trigger_ids ?? [],
      contact_ids: values.contact_ids ?? [],
      methods: values.methods ?? [],
      interval_s: values.interval_s ?? null,
      push_mode: values.push_mode,
      remark: values.remark ?? '',
    };
    const problem = alertConfigProblem(body);
    if (problem) {
      fieldError(
        problem.field,
        t(problem.code === 10113 ? `alert.rule.10113.${problem.field}` : `alert.rule.${problem.code}`),
      );
      return;
    }
    try {
      await save.mutateAsync({ id, body });
      Message.success(t('alert.saved'));
      navigate('/alert/config/list');
    } catch (e) {
      if (!(e instanceof ApiError) || e.httpStatus === 403) return;
      const detail = Array.isArray(e.details) ? (e.details as { field?: string }[])[0]?.field : undefined;
      const field = FIELD_OF[e.code] ?? detail;
      if (field && FORM_FIELDS.has(field)) fieldError(field, e.message);
      else Message.error(e.message);
    }
  };

  return (
    <PageContainer>
      <Card
        bordered={false}
        className={styles.formCard}
        title={id === undefined ? t('alert.config.createTitle') : t('alert.config.editTitle')}
      >
        <div className={styles.help}>{t('alert.config.help')}</div>
        <Spin loading={id !== undefined && isLoading} style={{ display: 'block' }}>
          <Form<Values>
            form={form}
            layout="vertical"
            initialValues={{
              enable: true,
              trigger_ids: [],
              contact_ids: [],
              methods: ['sms', 'email'],
              interval_s: 600,
              push_mode: 'once',
              remark: '',
            }}
            onSubmit={submit}
            onValuesChange={(changed) => clearErrors(Object.keys(changed))}
          >
            <Grid.Row gutter={24}>
              <Grid.Col span={16}>
                <Form.Item
                  label={t('alert.field.name')}
                  field="name"
                  rules={[{ required: true, message: t('alert.field.name.required') }]}
                >
                  <Input maxLength={64} />
                </Form.Item>
              </Grid.Col>
              <Grid.Col span={8}>
                <Form.Item label={t('alert.field.enable')} field="enable" triggerPropName="checked">
                  <Switch />
                </Form.Item>
              </Grid.Col>
            </Grid.Row>
            <Form.Item label={t('alert.field.triggers')} field="trigger_ids" required>
              <Select
                mode="multiple"
                allowClear
                loading={triggers.isFetching}
                placeholder={t('alert.field.triggers.placeholder')}
                filterOption={(input, option) =>
                  String((option.props as { children?: unknown }).children ?? '')
                    .toLowerCase()
                    .includes(input.toLowerCase())
                }
              >
                {(triggers.data?.data ?? []).map((tr) => (
                  <Select.Option key={tr.id} value={tr.id}>
                    {`${tr.name} · ${tr.sn ?? ''}`}
                  </Select.Option>
                ))}
              </Select>
            </Form.Item>
            <Form.Item label={t('alert.field.contacts')} field="contact_ids" required>
              <ContactSelect />
            </Form.Item>
            <Form.Item
              label={t('alert.field.methods')}
              field="methods"
              required
              extra={t('alert.field.methods.wechatHelp')}
            >
              <Checkbox.Group>
                {ALERT_METHODS.map((m) => (
                  <Checkbox key={m} value={m}>
                    {t(`alert.method.${m}`)}
                  </Checkbox>
                ))}
              </Checkbox.Group>
            </Form.Item>
            <Grid.Row gutter={24}>
              <Grid.Col span={8}>
                <Form.Item
                  label={t('alert.field.interval')}
                  field="interval_s"
                  required
                  extra={t('alert.field.interval.help')}
                >
                  <InputNumber min={1} max={604800} precision={0} />
                </Form.Item>
              </Grid.Col>
              <Grid.Col span={16}>
                <Form.Item label={t('alert.field.pushMode')} field="push_mode">
                  <Radio.Group type="button">
                    {ALERT_PUSH_MODES.map((m) => (
                      <Radio key={m} value={m}>
                        {t(`alert.pushMode.${m}`)}
                      </Radio>
                    ))}
                  </Radio.Group>
                </Form.Item>
              </Grid.Col>
            </Grid.Row>
            <Form.Item label={t('alert.field.remark')} field="remark">
              <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
            </Form.Item>
            <Space>
              <Button type="primary" htmlType="submit" loading={save.isPending}>
                {t('alert.save')}
              </Button>
              <Button onClick={() => navigate('/alert/config/list')}>{t('alert.back')}</Button>
            </Space>
          </Form>
        </Spin>
      </Card>
    </PageContainer>
  );
}
