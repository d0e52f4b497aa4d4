import type { PlatformType } from '@cellhub/contract/platforms';
import {
  PRODUCT_DATAFORMATS,
  PRODUCT_NODETYPES,
  type ProductCreateBody,
  type ProductDetail,
} from '@cellhub/contract/products';
import { PRODUCT_KEY_RULE } from '@cellhub/contract/protocol';
import { Button, Card, Form, Grid, Input, InputNumber, Message, Select, Space } from '@arco-design/web-react';
import { useEffect, useMemo } from 'react';
import { useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { ResultPage, recordState } from '../../../components/result-page/result-page';
import { usePlatformOptions, useProduct, useSaveProduct } from '../api';
import locale from '../locale';
import styles from '../pages/product.module.css';

const { Row, Col } = Grid;
const CLOUD_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The cloud-side id a product needs per platform type (PRODUCT_PLATFORM_CONFIG_SCHEMAS). */
const CLOUD_FIELD: Partial<Record<PlatformType, { field: string; label: string; required: boolean }>> = {
  aliyun: { field: 'product_key', label: 'product.field.aliyunProductKey', required: true },
  tencent: { field: 'product_id', label: 'product.field.tencentProductId', required: true },
  netkit: { field: 'product_id', label: 'product.field.netkitProductId', required: false },
};

type Values = Omit<ProductCreateBody, 'iot_platform_id' | 'retention_days'> & {
  iot_platform_id?: number;
  /** Empty keeps the history for ever (null in the API). */
  retention_days?: number;
  iot_platform_config?: Record<string, string>;
};

const DEFAULTS: Values = {
  name: '',
  nodetype: 'direct',
  protocol: 'mqtt',
  dataformat: 'json',
  mqtt_interval: 60,
  property_interval: 60,
  config_post_size: 0,
};

function toValues(p: ProductDetail): Values {
  return {
    name: p.name,
    product_key: p.product_key,
    product_code: p.product_code,
    nodetype: p.nodetype,
    protocol: p.protocol,
    dataformat: p.dataformat,
    description: p.description,
    mqtt_interval: p.mqtt_interval,
    property_interval: p.property_interval,
    config_post_size: p.config_post_size,
    retention_days: p.retention_days ?? undefined,
    iot_platform_id: p.iot_platform_id ?? undefined,
    iot_platform_config: p.iot_platform_config as Record<string, string>,
  };
}

/** Create (no key) or edit a product; server refusals land under their fields. */
export default function ProductForm({ productKey }: { productKey?: string }) {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const existing = useProduct(productKey);
  const platforms = usePlatformOptions();
  const save = useSaveProduct();
  const platformId = Form.useWatch('iot_platform_id', form) as number | undefined;
  const platformType = useMemo(
    () => platforms.data?.find((p) => p.id === platformId)?.platform_type,
    [platforms.data, platformId],
  );
  const cloud = platformType ? CLOUD_FIELD[platformType] : undefined;

  useEffect(() => {
    if (existing.data) form.setFieldsValue(toValues(existing.data));
  }, [existing.data, form]);

  const submit = async () => {
    const values = await form.validate();
    const config: Record<string, string> = {};
    if (cloud && values.iot_platform_config?.[cloud.field]) {
      config[cloud.field] = values.iot_platform_config[cloud.field]!.trim();
    }
    const body = {
      name: values.name,
      product_code: values.product_code ?? '',
      nodetype: values.nodetype,
      protocol: values.protocol,
      dataformat: values.dataformat,
      description: values.description ?? '',
      mqtt_interval: values.mqtt_interval,
      property_interval: values.property_interval,
      config_post_size: values.config_post_size,
      retention_days: values.retention_days ?? null,
      iot_platform_id: values.iot_platform_id ?? null,
      iot_platform_config: config,
      ...(productKey ? {} : values.product_key?.trim() ? { product_key: values.product_key.trim() } : {}),
    };
    try {
      const saved = await save.mutateAsync({ productKey, body });
      Message.success(productKey ? t('product.saved') : t('product.created'));
      void navigate(`/product/detail/${saved.product_key}`);
    } catch (e) {
      if (!(e instanceof ApiError)) return;
      if (e.code === 70002) {
        form.setFields({ product_key: { error: { message: e.message } } });
      } else if (e.code === 10113 && Array.isArray(e.details)) {
        for (const d of e.details as { field: string; message: string }[]) {
          form.setFields({ [d.field]: { error: { message: d.message } } });
        }
      } else if (e.httpStatus !== 403) {
        Message.error(e.message);
      }
    }
  };

  const state = recordState(existing, { skip: !productKey, back: '/product/list', subject: productKey });
  if (state) return state;
  // A user with a device of the product reads it; only its owner (or an admin) may change it.
  if (existing.data?.access === 'view')
    return <ResultPage problem="forbidden" back={`/product/detail/${productKey}`} subject={productKey} />;

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={productKey ? t('product.form.editTitle') : t('product.form.createTitle')}
        className={styles.formCard}
      >
        <Form<Values>
          form={form}
          layout="vertical"
          initialValues={DEFAULTS}
          onSubmit={() => void submit()}
          scrollToFirstError
        >
          <h4>{t('product.form.basic')}</h4>
          <Row gutter={24}>
            <Col span={12}>
              <Form.Item
                label={t('product.field.name')}
                field="name"
                rules={[{ required: true, message: t('product.field.name.required') }]}
              >
                <Input maxLength={64} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('product.field.productKey')}
                field="product_key"
                extra={productKey ? undefined : t('product.field.productKey.help')}
                rules={[{ match: PRODUCT_KEY_RULE, message: t('product.field.productKey.rule') }]}
              >
                <Input disabled={!!productKey} maxLength={32} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label={t('product.field.productCode')} field="product_code">
                <Input maxLength={64} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label={t('product.field.nodetype')} field="nodetype">
                <Select
                  options={PRODUCT_NODETYPES.map((v) => ({ value: v, label: t(`product.nodetype.${v}`) }))}
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label={t('product.field.protocol')} field="protocol" rules={[{ required: true }]}>
                <Select
                  options={['mqtt', 'mqtt-ws', 'tcp', 'http'].map((v) => ({
                    value: v,
                    label: v.toUpperCase(),
                  }))}
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label={t('product.field.dataformat')} field="dataformat">
                <Select
                  options={PRODUCT_DATAFORMATS.map((v) => ({
                    value: v,
                    label: t(`product.dataformat.${v}`),
                  }))}
                />
              </Form.Item>
            </Col>
            <Col span={24}>
              <Form.Item label={t('product.field.description')} field="description">
                <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
              </Form.Item>
            </Col>
          </Row>
          <h4>{t('product.form.intervals')}</h4>
          <Row gutter={24}>
            <Col span={8}>
              <Form.Item label={t('product.field.mqttInterval')} field="mqtt_interval">
                <InputNumber min={0} max={86400} precision={0} />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item label={t('product.field.propertyInterval')} field="property_interval">
                <InputNumber min={0} max={86400} precision={0} />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item label={t('product.field.configPostSize')} field="config_post_size">
                <InputNumber min={0} max={1048576} precision={0} />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item
                label={t('product.field.retentionDays')}
                field="retention_days"
                extra={t('product.field.retentionDays.help')}
              >
                <InputNumber min={1} max={36500} precision={0} placeholder={t('product.retention.forever')} />
              </Form.Item>
            </Col>
          </Row>
          <h4>{t('product.form.platform')}</h4>
          <Row gutter={24}>
            <Col span={12}>
              <Form.Item label={t('product.field.platform')} field="iot_platform_id">
                <Select
                  allowClear
                  placeholder={t('product.field.platform.placeholder')}
                  loading={platforms.isLoading}
                  options={(platforms.data ?? []).map((p) => ({
                    value: p.id,
                    label: `${p.name} (${p.platform_type})`,
                  }))}
                />
              </Form.Item>
            </Col>
            {cloud && (
              <Col span={12}>
                <Form.Item
                  label={t(cloud.label)}
                  field={`iot_platform_config.${cloud.field}`}
                  rules={[
                    { required: cloud.required, message: t('product.field.required') },
                    { match: CLOUD_ID, message: t('product.field.cloudId.rule') },
                  ]}
                >
                  <Input maxLength={64} />
                </Form.Item>
              </Col>
            )}
          </Row>
          <Space className={styles.actions}>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {t('product.save')}
            </Button>
            <Button onClick={() => void navigate(-1)}>{t('product.cancel')}</Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}
