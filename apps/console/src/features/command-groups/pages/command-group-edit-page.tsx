import { Button, Card, Form, Input, Message, Space } from '@arco-design/web-react';
import { useEffect } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import ProductSelect from '../../../components/product-select';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { showFieldErrors } from '../../../components/form-states';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useCommandGroup, useSaveCommandGroup } from '../api';
import locale from '../locale';

interface Values {
  product_key: string;
  name: string;
  description: string;
}

/** /product/command_group/create and /edit/:id: a group's product (fixed once created), name and description. */
export default function CommandGroupEditPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const params = useParams();
  const id = params.id ? Number(params.id) : undefined;
  const load = useCommandGroup(id !== undefined && isRecordId(id) ? id : undefined);
  const save = useSaveCommandGroup();
  const [form] = Form.useForm<Values>();
  const current = load.data;

  useEffect(() => {
    if (current)
      form.setFieldsValue({
        product_key: current.product_key,
        name: current.name,
        description: current.description,
      });
  }, [current, form]);

  const submit = async () => {
    const values = await form.validate().catch(() => undefined);
    if (!values) return;
    try {
      const body = { name: values.name, description: values.description ?? '' };
      const saved = await save.mutateAsync(
        id === undefined ? { body: { ...body, product_key: values.product_key } } : { id, body },
      );
      Message.success(t('cmdGroup.saved'));
      void navigate(`/product/command_group/detail/${saved.id}`);
    } catch (e) {
      if (showFieldErrors(form, e)) return;
      if (e instanceof ApiError && e.httpStatus !== 403) Message.error(e.message);
    }
  };

  const state = recordState(load, {
    skip: id === undefined,
    badId: id !== undefined && !isRecordId(id),
    back: '/product/command_group',
    backLabel: t('cmdGroup.back'),
    notFoundTitle: t('cmdGroup.notFound'),
  });
  if (state) return state;

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={id === undefined ? t('cmdGroup.form.createTitle') : t('cmdGroup.form.editTitle')}
        style={{ maxWidth: 720 }}
      >
        <Form<Values>
          form={form}
          layout="vertical"
          initialValues={{ description: '' }}
          onSubmit={() => void submit()}
        >
          <Form.Item
            label={t('cmdGroup.form.product')}
            field="product_key"
            extra={id === undefined ? undefined : t('cmdGroup.form.product.fixed')}
            rules={[{ required: true, message: t('cmdGroup.form.product.required') }]}
          >
            <ProductSelect
              disabled={id !== undefined}
              data-testid="cg-product"
              known={current ? [{ product_key: current.product_key, name: current.product_name }] : undefined}
            />
          </Form.Item>
          <Form.Item
            label={t('cmdGroup.form.name')}
            field="name"
            rules={[{ required: true, message: t('cmdGroup.form.name.required') }]}
          >
            <Input placeholder={t('cmdGroup.form.name.placeholder')} maxLength={64} data-testid="cg-name" />
          </Form.Item>
          <Form.Item label={t('cmdGroup.form.description')} field="description">
            <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
          </Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="cg-save">
              {t('common.save')}
            </Button>
            <Button onClick={() => void navigate('/product/command_group')}>{t('common.back')}</Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}
