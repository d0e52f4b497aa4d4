import { FEATURE_KEY_RULE, FEATURE_PANELS, type FeaturePanel } from '@cellhub/contract/product-features';
import { Button, Card, Checkbox, Form, Input, Message, Space } from '@arco-design/web-react';
import { useEffect } from 'react';
import { useNavigate, useParams } from 'react-router';
import { showFieldErrors } from '../../../components/form-states';
import { PageContainer } from '../../../components/page-container';
import ProductSelect from '../../../components/product-select';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useFeature, useSaveFeature } from '../api';
import locale from '../locale';

interface Values {
  key: string;
  name: string;
  name_us: string;
  description: string;
  panels: FeaturePanel[];
  product_keys: string[];
}

/** /product/feature/create and /edit/:id: a feature, the panels it enables and the products that have it. */
export default function FeatureEditPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const params = useParams();
  const id = params.id ? Number(params.id) : undefined;
  const load = useFeature(id !== undefined && isRecordId(id) ? id : undefined);
  const save = useSaveFeature();
  const [form] = Form.useForm<Values>();
  const current = load.data;

  useEffect(() => {
    if (current)
      form.setFieldsValue({
        key: current.key,
        name: current.name,
        name_us: current.name_us,
        description: current.description,
        panels: current.panels,
        product_keys: current.products.map((p) => p.product_key),
      });
  }, [current, form]);

  const submit = async () => {
    const values = await form.validate().catch(() => undefined);
    if (!values) return;
    try {
      const saved = await save.mutateAsync({
        id,
        body: {
          key: values.key,
          name: values.name,
          name_us: values.name_us ?? '',
          description: values.description ?? '',
          panels: values.panels ?? [],
          product_keys: values.product_keys ?? [],
        },
      });
      Message.success(t('feature.saved'));
      void navigate(`/product/feature/detail/${saved.id}`);
    } catch (e) {
      if (showFieldErrors(form, e)) return;
      if (e instanceof ApiError && e.code === 70002)
        form.setFields({ key: { error: { message: t('feature.form.exists') } } });
      else if (e instanceof ApiError && e.httpStatus !== 403) Message.error(e.message);
    }
  };

  const state = recordState(load, {
    skip: id === undefined,
    badId: id !== undefined && !isRecordId(id),
    back: '/product/feature',
    backLabel: t('feature.back'),
    notFoundTitle: t('feature.notFound'),
  });
  if (state) return state;

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={id === undefined ? t('feature.form.createTitle') : t('feature.form.editTitle')}
        style={{ maxWidth: 760 }}
      >
        <Form<Values>
          form={form}
          layout="vertical"
          initialValues={{ name_us: '', description: '', panels: [], product_keys: [] }}
          onSubmit={() => void submit()}
        >
          <Form.Item
            label={t('feature.form.key')}
            field="key"
            extra={t('feature.form.key.rule')}
            rules={[
              { required: true, message: t('feature.form.key.rule') },
              { match: FEATURE_KEY_RULE, message: t('feature.form.key.rule') },
            ]}
          >
            <Input maxLength={32} style={{ maxWidth: 320 }} data-testid="feature-key" />
          </Form.Item>
          <Space size={16} style={{ width: '100%' }} align="start">
            <Form.Item
              label={t('feature.form.name')}
              field="name"
              style={{ width: 320 }}
              rules={[{ required: true, message: t('feature.form.name.required') }]}
            >
              <Input maxLength={64} data-testid="feature-name" />
            </Form.Item>
            <Form.Item label={t('feature.form.nameUs')} field="name_us" style={{ width: 320 }}>
              <Input maxLength={64} />
            </Form.Item>
          </Space>
          <Form.Item label={t('feature.form.description')} field="description">
            <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
          </Form.Item>
          <Form.Item label={t('feature.form.panels')} field="panels">
            <Checkbox.Group
              options={FEATURE_PANELS.map((p) => ({ label: t(`feature.panel.${p}`), value: p }))}
            />
          </Form.Item>
          <Form.Item label={t('feature.form.products')} field="product_keys">
            <ProductSelect multiple allowClear data-testid="feature-products" known={current?.products} />
          </Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="feature-save">
              {t('common.save')}
            </Button>
            <Button onClick={() => void navigate('/product/feature')}>{t('common.back')}</Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}
