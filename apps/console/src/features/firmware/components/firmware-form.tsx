import type { FirmwareCreateBody, FirmwareItem } from '@cellhub/contract/firmware';
import { Button, Card, Form, Grid, Input, Message, Radio, Space, Switch } from '@arco-design/web-react';
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useFirmware, useSaveFirmware } from '../api';
import locale from '../locale';
import styles from '../pages/firmware.module.css';
import ProductSelect from '../../../components/product-select';
import { recordState, isRecordId } from '../../../components/result-page/result-page';

const { Row, Col } = Grid;

type Values = Required<Omit<FirmwareCreateBody, 'type'>> & { type: 0 | 1 };

const DEFAULTS: Partial<Values> = { type: 0, public: false, objname: '', description: '' };

const toValues = (f: FirmwareItem): Values => ({
  name: f.name,
  product_key: f.product_key,
  type: f.type,
  objname: f.objname,
  description: f.description,
  public: f.public,
});

/** Create (no id) or edit a firmware; server refusals land under their fields. */
export default function FirmwareForm({ id }: { id?: number }) {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const existing = useFirmware(id);
  const save = useSaveFirmware();
  const productLocked = !!existing.data && existing.data.version_count > 0;

  useEffect(() => {
    if (existing.data) form.setFieldsValue(toValues(existing.data));
  }, [existing.data, form]);

  const submit = async () => {
    const values = await form.validate();
    const body = {
      name: values.name.trim(),
      product_key: values.product_key,
      type: values.type,
      objname: (values.objname ?? '').trim(),
      description: (values.description ?? '').trim(),
      public: !!values.public,
    };
    try {
      const saved = await save.mutateAsync({ id, body });
      Message.success(id ? t('firmware.saved') : t('firmware.created'));
      void navigate(`/firmware/detail/${saved.id}`);
    } catch (e) {
      if (!(e instanceof ApiError)) return;
      if ((e.code === 10113 || e.code === 70003) && Array.isArray(e.details)) {
        for (const d of e.details as { field: string; message: string }[]) {
          form.setFields({ [d.field]: { error: { message: d.message } } });
        }
      } else if (e.httpStatus !== 403) {
        Message.error(e.message);
      }
    }
  };

  const state = recordState(existing, {
    skip: id === undefined,
    badId: id !== undefined && !isRecordId(id),
    back: '/firmware/list',
  });
  if (state) return state;

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={id ? t('firmware.form.editTitle') : t('firmware.form.createTitle')}
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
                label={t('firmware.field.name')}
                field="name"
                rules={[{ required: true, message: t('firmware.field.name.required') }]}
              >
                <Input maxLength={64} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('firmware.field.product')}
                field="product_key"
                rules={[{ required: true, message: t('firmware.field.product.required') }]}
                extra={productLocked ? t('firmware.field.product.locked') : undefined}
              >
                <ProductSelect
                  placeholder={t('firmware.field.product.placeholder')}
                  disabled={productLocked}
                  known={
                    existing.data
                      ? [{ product_key: existing.data.product_key, name: existing.data.product_name }]
                      : undefined
                  }
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label={t('firmware.field.type')} field="type">
                <Radio.Group type="button">
                  <Radio value={0}>{t('firmware.type.0')}</Radio>
                  <Radio value={1}>{t('firmware.type.1')}</Radio>
                </Radio.Group>
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('firmware.field.objname')}
                field="objname"
                extra={t('firmware.field.objname.help')}
              >
                <Input maxLength={64} placeholder="mcu" />
              </Form.Item>
            </Col>
            <Col span={24}>
              <Form.Item
                label={t('firmware.field.public')}
                field="public"
                triggerPropName="checked"
                extra={t('firmware.field.public.help')}
              >
                <Switch />
              </Form.Item>
            </Col>
            <Col span={24}>
              <Form.Item label={t('firmware.field.description')} field="description">
                <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
              </Form.Item>
            </Col>
          </Row>
          <Space className={styles.actions}>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {t('firmware.save')}
            </Button>
            <Button onClick={() => void navigate(-1)}>{t('firmware.cancel')}</Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}
