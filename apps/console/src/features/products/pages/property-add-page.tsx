import type { ProductProperty } from '@cellhub/contract/products';
import { Button, Card, Descriptions, Form, Message, Select, Space } from '@arco-design/web-react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { ResultPage, recordState } from '../../../components/result-page/result-page';
import { useLocale } from '../../../lib/i18n';
import { useRole } from '../../../lib/user';
import { useProduct, useProductModel, useSaveProperty } from '../api';
import {
  cleanProperty,
  PROPERTY_DEFAULTS,
  PropertyFields,
  showPropertyError,
} from '../components/property-fields';
import locale from '../locale';
import { modelCandidates, reservedKeys } from '../model-definitions';
import styles from './product.module.css';

export default function PropertyAddPage() {
  const t = useLocale(locale);
  const { productKey = '' } = useParams();
  const navigate = useNavigate();
  const product = useProduct(productKey);
  const save = useSaveProperty();
  const [form] = Form.useForm<ProductProperty>();
  // The thing model (read by admins): its parameters can prefill the form, its event and service keys are taken.
  const model = useProductModel(productKey, useRole() === 'admin');
  const reserved = model.data ? reservedKeys(model.data) : [];
  const candidates = model.data
    ? modelCandidates(
        model.data,
        (product.data?.properties ?? []).map((p) => p.key),
      )
    : [];
  const prefill = (key: string) => {
    const c = candidates.find((x) => x.key === key);
    if (!c) return;
    form.setFieldsValue({ key: c.key, name: c.name, unit: c.unit, datatype: c.datatype });
    void form.validate(['key']).catch(() => undefined);
  };

  const submit = async () => {
    const values = cleanProperty(await form.validate());
    try {
      await save.mutateAsync({ productKey, property: values });
      Message.success(t('product.prop.saved'));
      void navigate(`/product/detail/${productKey}?tab=properties`);
    } catch (e) {
      showPropertyError(form, e, t);
    }
  };

  const state = recordState(product, { back: '/product/list', subject: productKey });
  if (state) return state;
  if (product.data?.access === 'view')
    return <ResultPage problem="forbidden" back={`/product/detail/${productKey}`} subject={productKey} />;

  return (
    <PageContainer>
      <Card bordered={false} title={t('product.propertyAdd.title')} className={styles.formCard}>
        <Descriptions
          column={2}
          style={{ marginBottom: 16 }}
          data={[
            { label: t('product.propertyAdd.product'), value: product.data?.name ?? '' },
            { label: t('product.col.productKey'), value: productKey },
          ]}
        />
        <Form<ProductProperty>
          form={form}
          layout="vertical"
          initialValues={PROPERTY_DEFAULTS}
          onSubmit={() => void submit()}
        >
          {model.data ? (
            <Form.Item label={t('product.prop.fromModel')} extra={t('product.prop.fromModel.help')}>
              <Select
                showSearch
                allowClear
                placeholder={t('product.prop.fromModel.placeholder')}
                notFoundContent={t('product.prop.fromModel.empty')}
                onChange={(v: string | undefined) => v && prefill(v)}
                data-testid="property-from-model"
                options={candidates.map((c) => ({
                  value: c.key,
                  label: `${c.name} (${c.key}) · ${t(`product.prop.fromModel.${c.kind}`)} ${c.owner} · ${c.paramType}${c.unit ? `, ${c.unit}` : ''}`,
                }))}
              />
            </Form.Item>
          ) : null}
          <PropertyFields t={t} reserved={reserved} />
          <Space className={styles.actions}>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {t('product.save')}
            </Button>
            <Button onClick={() => void navigate(`/product/detail/${productKey}?tab=properties`)}>
              {t('product.back')}
            </Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}
