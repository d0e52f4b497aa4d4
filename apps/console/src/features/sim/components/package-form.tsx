import {
  MAX_AMOUNT_FEN,
  PACKAGE_CODE_RULE,
  PACKAGE_LOCKED_FIELDS,
  PACKAGE_TYPES,
  SIM_OPERATORS,
  VALIDITY_UNITS,
  type PackageCreateBody,
  type PackageItem,
  type PackageType,
  type SimOperator,
  type ValidityUnit,
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
import { IconLock } from '@arco-design/web-react/icon';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { editPageState, showFieldErrors } from '../../../components/form-states';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { usePackage, useSavePackage } from '../api';
import locale from '../locale';
import { fenFromYuan, formatMb } from '../sim-format';
import styles from '../pages/sim.module.css';

const { Row, Col } = Grid;

interface Values {
  name: string;
  code: string;
  operator: SimOperator;
  type: PackageType;
  validity_count: number;
  validity_unit: ValidityUnit;
  flow_mb: number;
  price: number;
  remark?: string;
  on_sale: boolean;
}

const DEFAULTS: Partial<Values> = {
  operator: 'china_mobile',
  type: 'monthly',
  validity_count: 1,
  validity_unit: 'month',
  on_sale: true,
};

type Locked = (typeof PACKAGE_LOCKED_FIELDS)[number];

/** The package's figures as the API takes them: the price typed in yuan goes out as whole fen. */
export function packageBody(v: Values): PackageCreateBody {
  return {
    name: v.name.trim(),
    code: v.code.trim(),
    operator: v.operator,
    type: v.type,
    validity_unit: v.validity_unit,
    validity_count: v.validity_count,
    flow_mb: v.flow_mb,
    price_fen: fenFromYuan(v.price),
    remark: v.remark?.trim() ?? '',
    on_sale: v.on_sale,
  };
}

/** Create (no id) or edit a package. A package in use keeps its code, operator, type, validity, flow and price. */
export default function PackageForm({ id }: { id?: number }) {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const existing = usePackage(id);
  const save = useSavePackage();
  const [locked60001, setLocked60001] = useState<string[]>();
  const flow = Form.useWatch('flow_mb', form) as number | undefined;
  const p = existing.data;
  const inUse = !!p && p.card_count + p.order_count > 0;

  useEffect(() => {
    if (!p) return;
    form.setFieldsValue({
      name: p.name,
      code: p.code,
      operator: p.operator,
      type: p.type,
      validity_count: p.validity_count,
      validity_unit: p.validity_unit,
      flow_mb: p.flow_mb,
      price: p.price_fen / 100,
      remark: p.remark,
      on_sale: p.on_sale,
    });
  }, [p, form]);

  const submit = async () => {
    const values = await form.validate();
    setLocked60001(undefined);
    const body = packageBody(values);
    try {
      const saved: PackageItem = await save.mutateAsync({
        id,
        // Unchanged locked fields are left out, so renaming a package in use never trips over them.
        body: p
          ? Object.fromEntries(
              Object.entries(body).filter(
                ([k, v]) => !(PACKAGE_LOCKED_FIELDS as readonly string[]).includes(k) || p[k as Locked] !== v,
              ),
            )
          : body,
      });
      Message.success(id ? t('sim.saved') : t('sim.created'));
      void navigate('/card-admin/package');
      return saved;
    } catch (e) {
      if (!(e instanceof ApiError)) return;
      if (e.code === 60001) {
        const fields = ((e.details as { fields?: string[] } | undefined)?.fields ?? []) as string[];
        setLocked60001(fields);
        for (const f of fields) {
          const field = f === 'price_fen' ? 'price' : f;
          form.setFields({ [field]: { error: { message: t('sim.package.lockedField') } } });
        }
      } else if (e.code === 60007) {
        form.setFields({ code: { error: { message: e.message } } });
      } else if (showFieldErrors(form, e, { field: (f) => (f === 'price_fen' ? 'price' : f) })) {
        return;
      } else if (e.httpStatus !== 403) {
        Message.error(e.message);
      }
    }
  };

  const state = editPageState({
    editing: Boolean(id),
    loading: existing.isLoading,
    failed: existing.isError,
    error: existing.error,
    notFound: t('sim.package.notFound'),
    back: { to: '/card-admin/package', label: t('sim.back') },
  });
  if (state) return state;

  // In use: the locked fields show their value with a lock (the server would answer 60001).
  const lock = inUse ? { disabled: true, suffix: <IconLock /> } : {};

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={id ? t('sim.package.editTitle') : t('sim.package.createTitle')}
        className={styles.formCard}
      >
        {inUse && p && (
          <Alert
            type="info"
            style={{ marginBottom: 16 }}
            data-testid="sim-package-in-use"
            content={t('sim.package.inUse', { cards: p.card_count, orders: p.order_count })}
          />
        )}
        {locked60001 && (
          <Alert
            type="error"
            style={{ marginBottom: 16 }}
            data-testid="sim-package-60001"
            title={t('sim.package.locked.title')}
            content={t('sim.package.locked.content', {
              fields: locked60001.map((f) => t(`sim.package.field.${f}`)).join(t('sim.listSep')),
            })}
          />
        )}
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
                label={t('sim.package.field.name')}
                field="name"
                rules={[{ required: true, message: t('sim.package.name.required') }]}
              >
                <Input maxLength={64} placeholder={t('sim.package.name.placeholder')} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('sim.package.field.code')}
                field="code"
                extra={inUse ? undefined : t('sim.package.code.hint')}
                rules={[
                  { required: true, message: t('sim.package.code.required') },
                  { match: PACKAGE_CODE_RULE, message: t('sim.package.code.rule') },
                ]}
              >
                <Input maxLength={32} {...lock} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('sim.package.field.operator')}
                field="operator"
                rules={[{ required: true }]}
              >
                <Select
                  disabled={inUse}
                  options={SIM_OPERATORS.map((o) => ({ value: o, label: t(`sim.operator.${o}`) }))}
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('sim.package.field.type')}
                field="type"
                extra={t('sim.package.type.hint')}
                rules={[{ required: true }]}
              >
                <Radio.Group type="button" disabled={inUse}>
                  {PACKAGE_TYPES.map((k) => (
                    <Radio key={k} value={k}>
                      {t(`sim.packageType.${k}`)}
                    </Radio>
                  ))}
                </Radio.Group>
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label={t('sim.package.field.validity')} required>
                <Space size={8}>
                  <Form.Item
                    field="validity_count"
                    noStyle
                    rules={[{ required: true, message: t('sim.package.validity.required') }]}
                  >
                    <InputNumber
                      min={1}
                      max={3650}
                      precision={0}
                      style={{ width: 120 }}
                      disabled={inUse}
                      aria-label={t('sim.package.field.validity_count')}
                    />
                  </Form.Item>
                  <Form.Item field="validity_unit" noStyle>
                    <Select
                      style={{ width: 110 }}
                      disabled={inUse}
                      aria-label={t('sim.package.field.validity_unit')}
                      options={VALIDITY_UNITS.map((u) => ({ value: u, label: t(`sim.unit.${u}`) }))}
                    />
                  </Form.Item>
                </Space>
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('sim.package.field.flow_mb')}
                field="flow_mb"
                extra={flow ? `= ${formatMb(flow)}` : t('sim.package.flow.hint')}
                rules={[{ required: true, message: t('sim.package.flow.required') }]}
              >
                <InputNumber
                  min={1}
                  max={100_000_000}
                  precision={0}
                  suffix="MB"
                  style={{ width: 220 }}
                  {...lock}
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('sim.package.field.price')}
                field="price"
                extra={t('sim.package.price.hint')}
                rules={[{ required: true, message: t('sim.package.price.required') }]}
              >
                <InputNumber
                  min={0}
                  max={MAX_AMOUNT_FEN / 100}
                  precision={2}
                  prefix="¥"
                  style={{ width: 220 }}
                  {...lock}
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('sim.package.field.on_sale')}
                field="on_sale"
                triggerPropName="checked"
                extra={t('sim.package.onSale.hint')}
              >
                <Switch />
              </Form.Item>
            </Col>
            <Col span={24}>
              <Form.Item label={t('sim.field.remark')} field="remark">
                <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
              </Form.Item>
            </Col>
          </Row>
          <Space className={styles.actions}>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {t('sim.save')}
            </Button>
            <Button onClick={() => void navigate('/card-admin/package')}>{t('sim.cancel')}</Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}
