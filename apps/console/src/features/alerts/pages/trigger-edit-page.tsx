import {
  ALERT_TRIGGER_TYPES,
  ALERT_TYPE_VALUES,
  type AlertMethod,
  type AlertPushMode,
  type AlertTriggerType,
  alertTriggerProblem,
  isPresenceType,
} from '@cellhub/contract/alerts';
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
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { useDeviceProperties, useSaveTrigger, useTrigger } from '../api';
import { ContactSelect } from '../components/contact-select';
import { MethodsField, NameEnableRow, PushModeField, ruleFormErrors } from '../components/rule-form-kit';
import { DeviceSelect } from '../components/device-select';
import locale from '../locale';
import styles from './alert.module.css';
import { recordState, isRecordId } from '../../../components/result-page/result-page';

interface Values {
  name: string;
  enable: boolean;
  sn?: string;
  type: AlertTriggerType;
  key?: string;
  a?: number;
  b?: number;
  push_content: string;
  recovery_content: string;
  silence_s?: number;
  push_mode: AlertPushMode;
  methods: AlertMethod[];
  contact_ids: number[];
}

const DEFAULTS: Partial<Values> = {
  enable: true,
  type: 4,
  push_content: '',
  recovery_content: '',
  silence_s: 300,
  push_mode: 'once',
  methods: ['sms', 'email'],
  contact_ids: [],
};

/** Which field a server refusal belongs to. */
const FIELD_OF: Record<number, keyof Values> = {
  11000: 'sn',
  11001: 'sn',
  11002: 'b',
  11003: 'a',
  11004: 'a',
  11005: 'b',
  11010: 'silence_s',
  10117: 'sn',
  70003: 'key',
};

/** Fields a refusal can be shown next to; anything else is a toast. */
const FORM_FIELDS = new Set(['name', 'sn', 'key', 'a', 'b', 'silence_s', 'contact_ids', 'methods']);

/** Create (/alert/device-trigger/create) and edit (/alert/device-trigger/edit/:id) share this form. */
export default function TriggerEditPage() {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const navigate = useNavigate();
  const params = useParams();
  const id = params.id ? Number(params.id) : undefined;
  const load = useTrigger(id);
  const { data: current, isLoading } = load;
  const save = useSaveTrigger();
  const [form] = Form.useForm<Values>();
  const type = (Form.useWatch('type', form) as AlertTriggerType | undefined) ?? 4;
  const sn = Form.useWatch('sn', form) as string | undefined;
  const { data: properties } = useDeviceProperties(sn);
  const need = ALERT_TYPE_VALUES[type];
  const presence = isPresenceType(type);

  useEffect(() => {
    if (!current) return;
    form.setFieldsValue({
      name: current.name,
      enable: current.enable === 1,
      sn: current.sn ?? undefined,
      type: current.type,
      key: current.key ?? undefined,
      a: current.a ?? undefined,
      b: current.b ?? undefined,
      push_content: current.push_content,
      recovery_content: current.recovery_content,
      silence_s: current.silence_s,
      push_mode: current.push_mode,
      methods: current.methods,
      contact_ids: current.contact_ids,
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
      source: 'device' as const,
      sn: values.sn ?? null,
      scene_id: null,
      key: presence ? null : (values.key?.trim() ?? null) || null,
      type: values.type,
      a: need.a ? (values.a ?? null) : null,
      b: need.b ? (values.b ?? null) : null,
      push_content: values.push_content ?? '',
      recovery_content: values.recovery_content ?? '',
      silence_s: values.silence_s ?? 0,
      push_mode: values.push_mode,
      methods: values.methods ?? [],
      contact_ids: values.contact_ids ?? [],
    };
    // The seed's rules, checked here with the same function the server uses.
    const problem = alertTriggerProblem(body);
    if (problem) {
      showProblem(problem);
      return;
    }
    try {
      await save.mutateAsync({ id, body });
      Message.success(t('alert.saved'));
      void navigate('/alert/device-trigger/list');
    } catch (e) {
      showSaveError(e, FIELD_OF, FORM_FIELDS);
    }
  };

  const state = recordState(load, {
    skip: id === undefined,
    badId: id !== undefined && !isRecordId(id),
    back: '/alert/device-trigger/list',
  });
  if (state) return state;

  return (
    <PageContainer>
      <Card
        bordered={false}
        className={styles.formCard}
        title={id === undefined ? t('alert.trigger.createTitle') : t('alert.trigger.editTitle')}
      >
        <Spin loading={id !== undefined && isLoading} style={{ display: 'block' }}>
          <Form<Values>
            form={form}
            layout="vertical"
            initialValues={DEFAULTS}
            onSubmit={() => void submit()}
            // A rule's message (set on submit) goes away once its field is touched again.
            onValuesChange={(changed) => clearErrors(Object.keys(changed))}
          >
            <div className={styles.section}>{t('alert.form.basic')}</div>
            <NameEnableRow t={t} nameTestId="alert-trigger-name" />

            <div className={styles.section}>{t('alert.form.condition')}</div>
            <Grid.Row gutter={24}>
              <Grid.Col span={12}>
                <Form.Item label={t('alert.field.device')} field="sn" required>
                  <DeviceSelect placeholder={t('alert.field.device.placeholder')} />
                </Form.Item>
              </Grid.Col>
              <Grid.Col span={12}>
                <Form.Item label={t('alert.field.type')} field="type" required>
                  <Select data-testid="alert-trigger-type">
                    {ALERT_TRIGGER_TYPES.map((v) => (
                      <Select.Option key={v} value={v}>
                        {t(`alert.type.${v}`)}
                      </Select.Option>
                    ))}
                  </Select>
                </Form.Item>
              </Grid.Col>
            </Grid.Row>
            {presence ? null : (
              <Grid.Row gutter={24}>
                <Grid.Col span={12}>
                  <Form.Item label={t('alert.field.key')} field="key" required>
                    <Select
                      showSearch
                      allowCreate
                      allowClear
                      placeholder={t('alert.field.key.placeholder')}
                      data-testid="alert-trigger-key"
                    >
                      {(properties ?? []).map((p) => (
                        <Select.Option key={p.key} value={p.key}>
                          {(lang === 'en-US' && p.name_us) || p.name} ({p.key}){p.unit ? ` ${p.unit}` : ''}
                        </Select.Option>
                      ))}
                    </Select>
                  </Form.Item>
                </Grid.Col>
                {need.a ? (
                  <Grid.Col span={6}>
                    <Form.Item label={t('alert.field.a')} field="a" required>
                      <InputNumber data-testid="alert-trigger-a" style={{ width: '100%' }} />
                    </Form.Item>
                  </Grid.Col>
                ) : null}
                {need.b ? (
                  <Grid.Col span={6}>
                    <Form.Item label={t('alert.field.b')} field="b" required>
                      <InputNumber data-testid="alert-trigger-b" style={{ width: '100%' }} />
                    </Form.Item>
                  </Grid.Col>
                ) : null}
              </Grid.Row>
            )}

            <div className={styles.section}>{t('alert.form.push')}</div>
            <Form.Item
              label={t('alert.field.pushContent')}
              field="push_content"
              extra={t('alert.field.content.help')}
            >
              <Input.TextArea maxLength={500} autoSize={{ minRows: 2, maxRows: 5 }} />
            </Form.Item>
            <Form.Item label={t('alert.field.recoveryContent')} field="recovery_content">
              <Input.TextArea maxLength={500} autoSize={{ minRows: 2, maxRows: 5 }} />
            </Form.Item>
            <Grid.Row gutter={24}>
              <Grid.Col span={8}>
                <Form.Item
                  label={t('alert.field.silence')}
                  field="silence_s"
                  extra={t('alert.field.silence.help')}
                >
                  <InputNumber min={0} max={604800} precision={0} />
                </Form.Item>
              </Grid.Col>
              <Grid.Col span={16}>
                <PushModeField t={t} />
              </Grid.Col>
            </Grid.Row>
            <MethodsField t={t} />
            <Form.Item
              label={t('alert.field.contacts')}
              field="contact_ids"
              extra={t('alert.field.contacts.unverified')}
            >
              <ContactSelect />
            </Form.Item>
            <Space>
              <Button
                type="primary"
                htmlType="submit"
                loading={save.isPending}
                data-testid="alert-trigger-save"
              >
                {t('alert.save')}
              </Button>
              <Button onClick={() => void navigate('/alert/device-trigger/list')}>{t('alert.back')}</Button>
            </Space>
          </Form>
        </Spin>
      </Card>
    </PageContainer>
  );
}
