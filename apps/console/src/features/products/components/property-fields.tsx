import { PROPERTY_CHARTTYPES, PROPERTY_DATATYPES, type ProductProperty } from '@cellhub/contract/products';
import { PROPERTY_KEY_RULE } from '@cellhub/contract/protocol';
import { Form, Grid, Input, InputNumber, Message, Select, type FormInstance } from '@arco-design/web-react';
import type { Translate } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';

const { Row, Col } = Grid;

export const PROPERTY_DEFAULTS: ProductProperty = {
  key: '',
  name: '',
  name_us: '',
  charttype: 'line',
  datatype: 'number',
  unit: '',
  cycles: 0,
};

/** An identifier of the thing model a property key may not take (its events' and services' keys). */
export interface ReservedKey {
  key: string;
  kind: 'event' | 'service';
}

/** The fields of one product property (seed section 3); `reserved` keys are refused as you type. */
export function PropertyFields({ t, reserved = [] }: { t: Translate; reserved?: ReservedKey[] }) {
  return (
    <Row gutter={24}>
      <Col span={12}>
        <Form.Item
          label={t('product.prop.key')}
          field="key"
          rules={[
            { required: true, message: t('product.field.required') },
            { match: PROPERTY_KEY_RULE, message: t('product.prop.key.rule') },
            {
              validator: (value: string | undefined, callback: (error?: string) => void) => {
                const hit = reserved.find((r) => r.key === (value ?? '').trim());
                callback(
                  hit
                    ? t(hit.kind === 'event' ? 'product.prop.eventKey' : 'product.prop.serviceKey')
                    : undefined,
                );
              },
            },
          ]}
        >
          <Input maxLength={64} placeholder="temperature" />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item
          label={t('product.prop.name')}
          field="name"
          rules={[{ required: true, message: t('product.field.required') }]}
        >
          <Input maxLength={64} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item label={t('product.prop.nameUs')} field="name_us">
          <Input maxLength={64} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item label={t('product.prop.unit')} field="unit">
          <Input maxLength={16} placeholder="°C" />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item label={t('product.prop.datatype')} field="datatype">
          <Select options={PROPERTY_DATATYPES.map((v) => ({ value: v, label: t(`product.type.${v}`) }))} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item label={t('product.prop.charttype')} field="charttype">
          <Select options={PROPERTY_CHARTTYPES.map((v) => ({ value: v, label: t(`product.chart.${v}`) }))} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item label={t('product.prop.cycles')} field="cycles">
          <InputNumber min={0} max={86400} precision={0} />
        </Form.Item>
      </Col>
    </Row>
  );
}

/** A refused property save: a taken key goes under the key field, anything else in a toast. */
export function showPropertyError(form: FormInstance<ProductProperty>, e: unknown, t: Translate): void {
  if (!(e instanceof ApiError)) return;
  if (e.code === 70002) {
    const why = Array.isArray(e.details) ? (e.details as { message?: string }[])[0]?.message : undefined;
    const message =
      why === 'event_key'
        ? t('product.prop.eventKey')
        : why === 'service_key'
          ? t('product.prop.serviceKey')
          : t('product.prop.exists');
    form.setFields({ key: { error: { message } } });
  } else if (e.code === 10113 && Array.isArray(e.details)) {
    for (const d of e.details as { field: string; message: string }[]) {
      form.setFields({ [d.field]: { error: { message: d.message } } });
    }
  } else if (e.httpStatus !== 403) Message.error(e.message);
}

/** Trims the texts the way the server's schema does, so what is saved is what is shown. */
export const cleanProperty = (v: ProductProperty): ProductProperty => ({
  ...PROPERTY_DEFAULTS,
  ...v,
  key: v.key.trim(),
  name: v.name.trim(),
  name_us: (v.name_us ?? '').trim(),
  unit: (v.unit ?? '').trim(),
  cycles: v.cycles ?? 0,
});
