import { type AlertMethod, type AlertPushMode, alertConfigProblem } from '@cellhub/contract/alerts';
import {
  Button,
  Card,
  Form,
  type FormInstance,
  Grid,
  Input,
  InputNumber,
  Message,
  Select,
  Space,
  Spin,
} from '@arco-design/web-react';
import { useEffect } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { useConfig, useSaveConfig, useTriggerOptions } from '../api';
import { ContactSelect } from '../components/contact-select';
import { MethodsField, NameEnableRow, PushModeField, ruleFormErrors } from '../components/rule-form-kit';
import locale from '../locale';
import styles from './alert.module.css';
import { recordState, isRecordId } from '../../../components/result-page/result-page';

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
  const load = useConfig(id);
  const { data: current, isLoading } = load;
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

  const { clearErrors, showProblem, showSaveError } = ruleFormErrors(form as unknown as FormInstance, t);

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
      showProblem(problem);
      return;
    }
    try {
      await save.mutateAsync({ id, body });
      Message.success(t('alert.saved'));
      void navigate('/alert/config/list');
    } catch (e) {
      showSaveError(e, FIELD_OF, FORM_FIELDS);
    }
  };

  const state = recordState(load, {
    skip: id === undefined,
    badId: id !== undefined && !isRecordId(id),
    back: '/alert/config/list',
  });
  if (state) return state;

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
            onSubmit={() => void submit()}
            onValuesChange={(changed) => clearErrors(Object.keys(changed))}
          >
            <NameEnableRow t={t} />
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
            <MethodsField t={t} required />
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
                <PushModeField t={t} />
              </Grid.Col>
            </Grid.Row>
            <Form.Item label={t('alert.field.remark')} field="remark">
              <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
            </Form.Item>
            <Space>
              <Button type="primary" htmlType="submit" loading={save.isPending}>
                {t('alert.save')}
              </Button>
              <Button onClick={() => void navigate('/alert/config/list')}>{t('alert.back')}</Button>
            </Space>
          </Form>
        </Spin>
      </Card>
    </PageContainer>
  );
}
