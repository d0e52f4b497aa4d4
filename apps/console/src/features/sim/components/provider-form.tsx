import {
  SIM_OPERATORS,
  SIM_PROVIDER_KINDS,
  SIM_SECRET_MASK,
  type SimOperator,
  type SimProviderBody,
  type SimProviderItem,
  type SimProviderKind,
} from '@cellhub/contract/sim';
import {
  Alert,
  Button,
  Card,
  Form,
  Grid,
  Input,
  InputNumber,
  Message,
  Radio,
  Select,
  Space,
  Switch,
} from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { editPageState, showFieldErrors } from '../../../components/form-states';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useProvider, useSaveProvider } from '../api';
import locale from '../locale';
import styles from '../pages/sim.module.css';
import { ProviderTools } from './provider-tools';

const { Row, Col } = Grid;

interface Values {
  name: string;
  kind: SimProviderKind;
  operator: SimOperator;
  sync_interval_min: number;
  enabled: boolean;
  remark?: string;
  config: { appid?: string; username?: string; password?: string; base_url?: string };
}

const DEFAULTS: Partial<Values> = {
  kind: 'manual',
  operator: 'china_mobile',
  sync_interval_min: 60,
  enabled: true,
  config: {},
};

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The body of the chosen kind: only that kind's config fields; an empty secret keeps the stored one. */
export function providerBody(v: Values): SimProviderBody {
  const common = {
    name: v.name.trim(),
    operator: v.operator,
    sync_interval_min: v.sync_interval_min,
    enabled: v.enabled,
    remark: v.remark?.trim() ?? '',
  };
  const c = v.config ?? {};
  if (v.kind === 'onelink') {
    return {
      ...common,
      kind: 'onelink',
      config: { appid: str(c.appid).trim(), password: str(c.password), base_url: str(c.base_url).trim() },
    };
  }
  if (v.kind === '1nce') {
    return {
      ...common,
      kind: '1nce',
      config: {
        username: str(c.username).trim(),
        password: str(c.password),
        base_url: str(c.base_url).trim(),
      },
    };
  }
  return { ...common, kind: 'manual', config: {} };
}

/** Create (no id) or edit a provider: the operator account and, for remote kinds, its API credentials. */
export default function ProviderForm({ id }: { id?: number }) {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const existing = useProvider(id);
  const save = useSaveProvider();
  const kind = (Form.useWatch('kind', form) as SimProviderKind | undefined) ?? 'manual';
  const [error, setError] = useState<string>();
  const secretSet = existing.data?.config.password === SIM_SECRET_MASK;
  const sameKind = existing.data?.kind === kind;

  useEffect(() => {
    const p = existing.data;
    if (!p) return;
    form.setFieldsValue({
      name: p.name,
      kind: p.kind,
      operator: p.operator,
      sync_interval_min: p.sync_interval_min,
      enabled: p.enabled,
      remark: p.remark,
      // The secret never comes back; the field stays empty and says whether one is stored.
      config: {
        appid: str(p.config.appid),
        username: str(p.config.username),
        base_url: str(p.config.base_url),
        password: '',
      },
    });
  }, [existing.data, form]);

  const submit = async () => {
    const values = await form.validate();
    setError(undefined);
    try {
      const saved: SimProviderItem = await save.mutateAsync({ id, body: providerBody(values) });
      Message.success(id ? t('sim.saved') : t('sim.created'));
      if (id) void existing.refetch();
      else void navigate(`/card-admin/provider/edit/${saved.id}`);
    } catch (e) {
      if (!(e instanceof ApiError)) return;
      if (showFieldErrors(form, e, { message: (m) => (m === 'required' ? t('sim.field.required') : m) })) {
        return;
      } else if (e.httpStatus !== 403) {
        setError(e.message);
      }
    }
  };

  const state = editPageState({
    editing: Boolean(id),
    loading: existing.isLoading,
    failed: existing.isError,
    error: existing.error,
    notFound: t('sim.provider.notFound'),
    back: { to: '/card-admin/provider', label: t('sim.back') },
  });
  if (state) return state;

  const remote = kind !== 'manual';
  const cardCount = existing.data?.card_count ?? 0;

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={id ? t('sim.provider.editTitle') : t('sim.provider.createTitle')}
        className={styles.formCard}
      >
        <Form<Values>
          form={form}
          layout="vertical"
          initialValues={DEFAULTS}
          onSubmit={() => void submit()}
          scrollToFirstError
        >
          <Row gutter={24}>
            <Col span={12}>
              <Form.Item
                label={t('sim.provider.name')}
                field="name"
                rules={[{ required: true, message: t('sim.provider.name.required') }]}
              >
                <Input maxLength={64} placeholder={t('sim.provider.name.placeholder')} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label={t('sim.field.operator')} field="operator" rules={[{ required: true }]}>
                <Select options={SIM_OPERATORS.map((o) => ({ value: o, label: t(`sim.operator.${o}`) }))} />
              </Form.Item>
            </Col>
            <Col span={24}>
              <Form.Item
                label={t('sim.provider.kind')}
                field="kind"
                extra={
                  cardCount > 0
                    ? t('sim.provider.kindLocked', { count: cardCount })
                    : t(`sim.provider.kind.${kind}.hint`)
                }
              >
                <Radio.Group type="button" disabled={cardCount > 0}>
                  {SIM_PROVIDER_KINDS.map((k) => (
                    <Radio key={k} value={k}>
                      {t(`sim.provider.kind.${k}`)}
                    </Radio>
                  ))}
                </Radio.Group>
              </Form.Item>
            </Col>
          </Row>
          {remote && (
            <>
              <div className={styles.sectionTitle}>{t('sim.provider.credentials')}</div>
              <Row gutter={24}>
                {kind === 'onelink' ? (
                  <Col span={12}>
                    <Form.Item
                      label={t('sim.provider.appid')}
                      field="config.appid"
                      rules={[
                        { required: true, message: t('sim.field.required') },
                        { match: /^[0-9A-Za-z]+$/, message: t('sim.provider.appid.rule') },
                      ]}
                    >
                      <Input maxLength={64} autoComplete="off" />
                    </Form.Item>
                  </Col>
                ) : (
                  <Col span={12}>
                    <Form.Item
                      label={t('sim.provider.username')}
                      field="config.username"
                      rules={[{ required: true, message: t('sim.field.required') }]}
                    >
                      <Input maxLength={128} autoComplete="off" />
                    </Form.Item>
                  </Col>
                )}
                <Col span={12}>
                  <Form.Item
                    label={
                      kind === 'onelink' ? t('sim.provider.onelinkPassword') : t('sim.provider.password')
                    }
                    field="config.password"
                    extra={secretSet && sameKind ? t('sim.secret.keepHint') : undefined}
                    rules={[{ required: !(secretSet && sameKind), message: t('sim.field.required') }]}
                  >
                    <Input.Password
                      maxLength={256}
                      autoComplete="new-password"
                      placeholder={secretSet && sameKind ? t('sim.secret.set') : t('sim.secret.unset')}
                      data-testid="sim-provider-secret"
                    />
                  </Form.Item>
                </Col>
                <Col span={24}>
                  <Form.Item
                    label={t('sim.provider.baseUrl')}
                    field="config.base_url"
                    extra={t('sim.provider.baseUrl.hint')}
                    rules={[{ match: /^(https?:\/\/\S+)?$/, message: t('sim.provider.baseUrl.rule') }]}
                  >
                    <Input maxLength={256} placeholder={t(`sim.provider.baseUrl.${kind}`)} />
                  </Form.Item>
                </Col>
                <Col span={12}>
                  <Form.Item
                    label={t('sim.provider.syncInterval')}
                    field="sync_interval_min"
                    extra={t('sim.provider.syncInterval.hint')}
                  >
                    <InputNumber
                      min={0}
                      max={10080}
                      precision={0}
                      suffix={t('sim.unit.minutes')}
                      style={{ width: 200 }}
                    />
                  </Form.Item>
                </Col>
              </Row>
            </>
          )}
          <Row gutter={24}>
            <Col span={12}>
              <Form.Item label={t('sim.provider.enabled')} field="enabled" triggerPropName="checked">
                <Switch />
              </Form.Item>
            </Col>
            <Col span={24}>
              <Form.Item label={t('sim.field.remark')} field="remark">
                <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
              </Form.Item>
            </Col>
          </Row>
          {error && <Alert type="error" content={error} style={{ marginBottom: 16 }} />}
          <Space className={styles.actions}>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {t('sim.save')}
            </Button>
            <Button onClick={() => void navigate('/card-admin/provider')}>{t('sim.cancel')}</Button>
          </Space>
        </Form>
      </Card>
      {id && existing.data && existing.data.kind !== 'manual' && (
        <Card bordered={false} title={t('sim.provider.tools')} className={styles.formCard}>
          <ProviderTools provider={existing.data} />
        </Card>
      )}
    </PageContainer>
  );
}
