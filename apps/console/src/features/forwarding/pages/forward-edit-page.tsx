import {
  FORWARD_BATCH_MAX,
  FORWARD_KINDS,
  FORWARD_METHODS,
  type ForwardKind,
  type ForwardRuleBody,
  type ForwardRuleItem,
  renderTemplate,
  sampleMessage,
  unknownPlaceholders,
} from '@cellhub/contract/forwarding';
import {
  Alert,
  Button,
  Card,
  Checkbox,
  Form,
  Grid,
  Input,
  InputNumber,
  Message,
  Modal,
  Radio,
  Select,
  Space,
  Switch,
  Tabs,
  Typography,
} from '@arco-design/web-react';
import { IconDelete, IconPlus } from '@arco-design/web-react/icon';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import ProductSelect from '../../../components/product-select';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { showFieldErrors } from '../../../components/form-states';
import { SecretField } from '../../../components/secret-field';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useForwardRule, useSaveForwardRule } from '../api';
import { KIND_KEYS } from '../components/labels';
import locale from '../locale';

interface Values {
  name: string;
  enabled: boolean;
  product_key?: string;
  sns: string[];
  kinds: ForwardKind[];
  method: (typeof FORWARD_METHODS)[number];
  url: string;
  headers: { name: string; value: string }[];
  mqtt_url: string;
  username: string;
  password: string;
  topic: string;
  qos: 0 | 1 | 2;
  body_template: string;
  batch_max: number;
}

type TargetTab = 'http' | 'mqtt' | 'other';

const DEFAULTS: Partial<Values> = {
  enabled: true,
  sns: [],
  kinds: ['property'],
  method: 'POST',
  headers: [],
  username: '',
  password: '',
  topic: 'cellhub/{{product_key}}/{{sn}}/{{kind}}',
  qos: 1,
  body_template: '',
  batch_max: 1,
};

function valuesOf(rule: ForwardRuleItem): Partial<Values> {
  const t = rule.target;
  return {
    name: rule.name,
    enabled: rule.enabled,
    product_key: rule.product_key ?? undefined,
    sns: rule.sns,
    kinds: rule.kinds,
    body_template: t.body_template,
    ...(t.kind === 'http'
      ? { method: t.method, url: t.url, headers: t.headers, batch_max: t.batch_max }
      : { mqtt_url: t.url, username: t.username, topic: t.topic, qos: t.qos, password: '' }),
  };
}

function bodyOf(v: Values, tab: 'http' | 'mqtt', editing: boolean): ForwardRuleBody {
  const common = {
    name: v.name,
    enabled: v.enabled,
    product_key: v.product_key ?? null,
    sns: v.sns ?? [],
    kinds: v.kinds,
  };
  if (tab === 'http')
    return {
      ...common,
      target: {
        kind: 'http',
        method: v.method,
        url: v.url,
        headers: (v.headers ?? []).filter((h) => h?.name),
        body_template: v.body_template ?? '',
        batch_max: v.batch_max ?? 1,
      },
    };
  return {
    ...common,
    target: {
      kind: 'mqtt',
      url: v.mqtt_url,
      username: v.username ?? '',
      // Editing: empty keeps the saved password (the server never sends it back).
      ...(editing && !v.password ? {} : { password: v.password ?? '' }),
      topic: v.topic,
      qos: v.qos,
      body_template: v.body_template ?? '',
    },
  };
}

/** Server field names (`target.url`) to this form's (`url` / `mqtt_url`). */
function fieldOf(tab: 'http' | 'mqtt') {
  return (name: string) => {
    if (name === 'target.url') return tab === 'http' ? 'url' : 'mqtt_url';
    if (name.startsWith('target.')) return name.slice('target.'.length);
    if (name.startsWith('sns.')) return 'sns';
    return name;
  };
}

function TemplatePreview({
  template,
  tab,
  batched,
}: {
  template: string;
  tab: 'http' | 'mqtt';
  /** The rule batches: a body is a JSON array of the messages' bodies (shown with one). */
  batched: boolean;
}) {
  const t = useLocale(locale);
  const [kind, setKind] = useState<ForwardKind>('property');
  const bad = unknownPlaceholders(template ?? '');
  const preview = useMemo(() => {
    const one = renderTemplate(
      template ?? '',
      sampleMessage(kind, 1, undefined, Date.UTC(2026, 0, 1, 8)),
      'json',
    );
    const out = batched ? `[${one}]` : one;
    try {
      return JSON.stringify(JSON.parse(out), null, 2);
    } catch {
      return out;
    }
  }, [template, kind, batched]);
  return (
    <div data-testid="forward-preview">
      <Space style={{ marginBottom: 8 }}>
        <Typography.Text type="secondary">
          {t('forward.form.preview')} ({tab.toUpperCase()}) · {t('forward.form.previewKind')}
        </Typography.Text>
        <Select size="mini" value={kind} onChange={setKind} style={{ width: 120 }}>
          {FORWARD_KINDS.map((k) => (
            <Select.Option key={k} value={k}>
              {t(KIND_KEYS[k])}
            </Select.Option>
          ))}
        </Select>
      </Space>
      {bad.length > 0 && (
        <Alert type="error" content={bad.map((b) => `{{${b}}}`).join(' ')} style={{ marginBottom: 8 }} />
      )}
      <pre
        style={{
          margin: 0,
          padding: 12,
          maxHeight: 320,
          overflow: 'auto',
          fontSize: 12,
          background: 'var(--color-fill-2)',
          color: 'var(--color-text-1)',
          borderRadius: 4,
          whiteSpace: 'pre-wrap',
          wordBreak: 'break-all',
        }}
      >
        {preview}
      </pre>
    </div>
  );
}

/** /data-transmit/forward/create and /data-transmit/forward/edit/:id. */
export default function ForwardEditPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const params = useParams();
  const id = params.id ? Number(params.id) : undefined;
  const load = useForwardRule(id !== undefined && isRecordId(id) ? id : undefined);
  const save = useSaveForwardRule();
  const [form] = Form.useForm<Values>();
  const [tab, setTab] = useState<TargetTab>('http');
  const [created, setCreated] = useState<{ id: number; secret: string } | undefined>();
  const current = load.data;
  const template = Form.useWatch('body_template', form) as string | undefined;
  const batchMax = Form.useWatch('batch_max', form) as number | undefined;

  useEffect(() => {
    if (current) {
      form.setFieldsValue(valuesOf(current));
      setTab(current.target.kind);
    }
  }, [current, form]);

  const submit = async () => {
    if (tab === 'other') return;
    const values = await form.validate().catch(() => undefined);
    if (!values) return;
    try {
      const saved = await save.mutateAsync({ id, body: bodyOf(values, tab, id !== undefined) });
      Message.success(t('forward.saved'));
      const secret = (saved as { secret?: string }).secret;
      if (secret) setCreated({ id: saved.id, secret });
      else void navigate(`/data-transmit/forward/detail/${saved.id}`);
    } catch (e) {
      if (showFieldErrors(form, e, { field: fieldOf(tab) })) return;
      if (e instanceof ApiError && Array.isArray(e.details)) {
        const d = (e.details as { field?: string; message?: string }[])[0];
        if (d?.field && d.message) {
          form.setFields({ [fieldOf(tab)(d.field)]: { error: { message: `${e.message}: ${d.message}` } } });
          return;
        }
      }
      if (e instanceof ApiError && e.httpStatus !== 403) Message.error(e.message);
    }
  };

  const state = recordState(load, {
    skip: id === undefined,
    badId: id !== undefined && !isRecordId(id),
    back: '/data-transmit/forward/list',
    backLabel: t('forward.back'),
    notFoundTitle: t('forward.notFound'),
  });
  if (state) return state;

  const bodyField = (
    <Form.Item label={t('forward.form.body')} field="body_template" extra={t('forward.form.body.extra')}>
      <Input.TextArea
        autoSize={{ minRows: 4, maxRows: 14 }}
        maxLength={8192}
        style={{ fontFamily: 'var(--font-mono, monospace)' }}
        placeholder='{"device": "{{sn}}", "values": {{data}}}'
        data-testid="forward-body"
      />
    </Form.Item>
  );

  return (
    <PageContainer>
      <Form<Values> form={form} layout="vertical" initialValues={DEFAULTS} onSubmit={() => void submit()}>
        <Grid.Row gutter={16}>
          <Grid.Col xs={24} lg={14}>
            <Card
              bordered={false}
              title={id === undefined ? t('forward.form.createTitle') : t('forward.form.editTitle')}
            >
              <Grid.Row gutter={16}>
                <Grid.Col span={16}>
                  <Form.Item
                    label={t('forward.form.name')}
                    field="name"
                    rules={[{ required: true, message: t('forward.form.name.required') }]}
                  >
                    <Input maxLength={64} data-testid="forward-name" />
                  </Form.Item>
                </Grid.Col>
                <Grid.Col span={8}>
                  <Form.Item label={t('forward.form.enabled')} field="enabled" triggerPropName="checked">
                    <Switch />
                  </Form.Item>
                </Grid.Col>
              </Grid.Row>
              <Typography.Title heading={6}>{t('forward.form.filters')}</Typography.Title>
              <Grid.Row gutter={16}>
                <Grid.Col span={10}>
                  <Form.Item label={t('forward.form.product')} field="product_key">
                    <ProductSelect allowClear labels="name" placeholder={t('forward.form.product.any')} />
                  </Form.Item>
                </Grid.Col>
                <Grid.Col span={14}>
                  <Form.Item label={t('forward.form.sns')} field="sns" extra={t('forward.form.sns.extra')}>
                    <Select
                      mode="multiple"
                      allowCreate
                      allowClear
                      placeholder={t('forward.form.sns.placeholder')}
                      notFoundContent={null}
                    />
                  </Form.Item>
                </Grid.Col>
              </Grid.Row>
              <Form.Item
                label={t('forward.form.kinds')}
                field="kinds"
                rules={[
                  { required: true, type: 'array', minLength: 1, message: t('forward.form.kinds.required') },
                ]}
              >
                <Checkbox.Group options={FORWARD_KINDS.map((k) => ({ label: t(KIND_KEYS[k]), value: k }))} />
              </Form.Item>
              <Typography.Title heading={6}>{t('forward.form.target')}</Typography.Title>
              <Tabs activeTab={tab} onChange={(k) => setTab(k as TargetTab)} type="card-gutter">
                <Tabs.TabPane
                  key="http"
                  title={t('forward.form.http')}
                  disabled={id !== undefined && tab !== 'http'}
                >
                  {tab === 'http' && (
                    <>
                      <Grid.Row gutter={16}>
                        <Grid.Col span={6}>
                          <Form.Item label={t('forward.form.method')} field="method">
                            <Select options={[...FORWARD_METHODS]} />
                          </Form.Item>
                        </Grid.Col>
                        <Grid.Col span={18}>
                          <Form.Item
                            label={t('forward.form.url')}
                            field="url"
                            extra={t('forward.form.url.extra')}
                            rules={[{ required: true, message: t('forward.form.url.required') }]}
                          >
                            <Input
                              placeholder="https://example.com/cellhub/webhook"
                              maxLength={2048}
                              data-testid="forward-url"
                            />
                          </Form.Item>
                        </Grid.Col>
                      </Grid.Row>
                      <Form.Item label={t('forward.form.headers')}>
                        <Form.List field="headers">
                          {(fields, { add, remove }) => (
                            <Space direction="vertical" style={{ width: '100%' }}>
                              {fields.map((f, i) => (
                                <div key={f.key} style={{ display: 'flex', gap: 8, width: '100%' }}>
                                  <Form.Item field={`${f.field}.name`} noStyle>
                                    <Input
                                      placeholder={t('forward.form.headers.name')}
                                      style={{ flex: '0 0 35%' }}
                                      maxLength={64}
                                    />
                                  </Form.Item>
                                  <Form.Item field={`${f.field}.value`} noStyle>
                                    <Input
                                      placeholder={t('forward.form.headers.value')}
                                      style={{ flex: 1 }}
                                      maxLength={1024}
                                    />
                                  </Form.Item>
                                  <Button
                                    icon={<IconDelete />}
                                    aria-label={`${t('forward.form.headers.name')} ${i + 1}`}
                                    onClick={() => remove(i)}
                                  />
                                </div>
                              ))}
                              <Button
                                type="dashed"
                                icon={<IconPlus />}
                                onClick={() => add({ name: '', value: '' })}
                              >
                                {t('forward.form.headers.add')}
                              </Button>
                            </Space>
                          )}
                        </Form.List>
                      </Form.Item>
                      {bodyField}
                      <Form.Item
                        label={t('forward.form.batch')}
                        field="batch_max"
                        extra={t('forward.form.batch.extra')}
                      >
                        <InputNumber
                          min={1}
                          max={FORWARD_BATCH_MAX}
                          precision={0}
                          style={{ width: 160 }}
                          data-testid="forward-batch"
                        />
                      </Form.Item>
                    </>
                  )}
                </Tabs.TabPane>
                <Tabs.TabPane
                  key="mqtt"
                  title={t('forward.form.mqtt')}
                  disabled={id !== undefined && tab !== 'mqtt'}
                >
                  {tab === 'mqtt' && (
                    <>
                      <Form.Item
                        label={t('forward.form.mqttUrl')}
                        field="mqtt_url"
                        extra={t('forward.form.url.extra')}
                        rules={[{ required: true, message: t('forward.form.url.required') }]}
                      >
                        <Input placeholder={t('forward.form.mqttUrl.placeholder')} maxLength={2048} />
                      </Form.Item>
                      <Grid.Row gutter={16}>
                        <Grid.Col span={12}>
                          <Form.Item label={t('forward.form.username')} field="username">
                            <Input maxLength={256} autoComplete="off" />
                          </Form.Item>
                        </Grid.Col>
                        <Grid.Col span={12}>
                          <Form.Item
                            label={t('forward.form.password')}
                            field="password"
                            extra={id !== undefined ? t('forward.form.password.keep') : undefined}
                          >
                            <Input.Password maxLength={256} autoComplete="new-password" />
                          </Form.Item>
                        </Grid.Col>
                      </Grid.Row>
                      <Grid.Row gutter={16}>
                        <Grid.Col span={16}>
                          <Form.Item
                            label={t('forward.form.topic')}
                            field="topic"
                            rules={[{ required: true, message: t('forward.form.topic.required') }]}
                          >
                            <Input maxLength={512} />
                          </Form.Item>
                        </Grid.Col>
                        <Grid.Col span={8}>
                          <Form.Item label={t('forward.form.qos')} field="qos">
                            <Radio.Group type="button" options={[0, 1, 2]} />
                          </Form.Item>
                        </Grid.Col>
                      </Grid.Row>
                      {bodyField}
                    </>
                  )}
                </Tabs.TabPane>
                <Tabs.TabPane key="other" title={t('forward.form.kafka')} disabled={id !== undefined}>
                  <Alert type="info" content={t('forward.form.kafka.none')} />
                </Tabs.TabPane>
              </Tabs>
              <Space style={{ marginTop: 16 }}>
                <Button type="primary" htmlType="submit" loading={save.isPending} disabled={tab === 'other'}>
                  {t('common.save')}
                </Button>
                <Button onClick={() => void navigate(-1)}>{t('common.cancel')}</Button>
              </Space>
            </Card>
          </Grid.Col>
          <Grid.Col xs={24} lg={10}>
            <Card bordered={false} title={t('forward.form.preview')}>
              <TemplatePreview
                template={template ?? ''}
                tab={tab === 'mqtt' ? 'mqtt' : 'http'}
                batched={tab !== 'mqtt' && (batchMax ?? 1) > 1}
              />
            </Card>
          </Grid.Col>
        </Grid.Row>
      </Form>
      <Modal
        title={t('forward.secret.title')}
        visible={created !== undefined}
        closable={false}
        maskClosable={false}
        escToExit={false}
        footer={
          <Button
            type="primary"
            onClick={() => created && void navigate(`/data-transmit/forward/detail/${created.id}`)}
          >
            {t('forward.secret.done')}
          </Button>
        }
      >
        <Alert type="warning" content={t('forward.secret.once')} style={{ marginBottom: 12 }} />
        {created && <SecretField secret={created.secret} testId="forward-secret" />}
      </Modal>
    </PageContainer>
  );
}
