import type { ProductProperty } from '@cellhub/contract/products';
import { Button, Card, Descriptions, Form, Message, Space } from '@arco-design/web-react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { ResultPage, recordState } from '../../../components/result-page/result-page';
import { useLocale } from '../../../lib/i18n';
import { useProduct, useSaveProperty } from '../api';
import {
  cleanProperty,
  PROPERTY_DEFAULTS,
  PropertyFields,
  showPropertyError,
} from '../components/property-fields';
import locale from '../locale';
import styles from './product.module.css';

export default function PropertyAddPage() {
  const t = useLocale(locale);
  const { productKey = '' } = useParams();
  const navigate = useNavigate();
  const product = useProduct(productKey);
  const save = useSaveProperty();
  const [form] = Form.useForm<ProductProperty>();

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
          <PropertyFields t={t} />
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
