import type { ProductDetail, ProductProperty } from '@cellhub/contract/products';
import {
  Button,
  Empty,
  Form,
  Message,
  Modal,
  Popconfirm,
  Space,
  Table,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { Translate } from '../../../lib/i18n';
import { useDeleteProperty, useSaveProperty } from '../api';
import styles from '../pages/product.module.css';
import { cleanProperty, PropertyFields, showPropertyError } from './property-fields';

export default function PropertiesTab({ product, t }: { product: ProductDetail; t: Translate }) {
  const navigate = useNavigate();
  const [editing, setEditing] = useState<ProductProperty | null>(null);
  const [form] = Form.useForm<ProductProperty>();
  const save = useSaveProperty();
  const remove = useDeleteProperty();

  const open = (p: ProductProperty) => {
    setEditing(p);
    form.setFieldsValue(p);
  };

  const submit = async () => {
    if (!editing) return;
    const values = cleanProperty(await form.validate());
    try {
      await save.mutateAsync({ productKey: product.product_key, key: editing.key, property: values });
      Message.success(t('product.prop.saved'));
      setEditing(null);
    } catch (e) {
      showPropertyError(form, e, t);
    }
  };

  // A reader (access 'view': a user with a device of the product) sees the properties, without the actions.
  const manage = product.access === 'manage';
  const columns: TableColumnProps<ProductProperty>[] = [
    {
      title: t('product.prop.key'),
      dataIndex: 'key',
      render: (v: string) => <span className={styles.mono}>{v}</span>,
    },
    { title: t('product.prop.name'), dataIndex: 'name' },
    { title: t('product.prop.nameUs'), dataIndex: 'name_us' },
    {
      title: t('product.prop.datatype'),
      dataIndex: 'datatype',
      render: (v: string) => <Tag size="small">{t(`product.type.${v}`)}</Tag>,
    },
    { title: t('product.prop.unit'), dataIndex: 'unit' },
    {
      title: t('product.prop.charttype'),
      dataIndex: 'charttype',
      render: (v: string) => t(`product.chart.${v}`),
    },
    { title: t('product.prop.cycles'), dataIndex: 'cycles' },
  ];
  if (manage)
    columns.push({
      title: t('product.col.operations'),
      dataIndex: 'operations',
      render: (_: unknown, row) => (
        <Space size={0}>
          <Button type="text" size="small" onClick={() => open(row)}>
            {t('product.edit')}
          </Button>
          <Popconfirm
            title={t('product.delete.confirm')}
            onOk={() =>
              remove.mutateAsync({ productKey: product.product_key, key: row.key }).then(
                () => Message.success(t('product.prop.deleted')),
                () => undefined,
              )
            }
          >
            <Button type="text" size="small" status="danger">
              {t('product.delete')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    });

  return (
    <>
      {manage && (
        <div className={styles.toolbar}>
          <Button
            type="primary"
            icon={<IconPlus />}
            onClick={() => void navigate(`/product/property/add/${product.product_key}`)}
          >
            {t('product.prop.add')}
          </Button>
        </div>
      )}
      <Table<ProductProperty>
        rowKey="key"
        columns={columns}
        data={product.properties}
        pagination={false}
        noDataElement={<Empty description={t('product.prop.empty')} />}
      />
      <Modal
        title={t('product.prop.editTitle')}
        visible={!!editing}
        onOk={() => void submit()}
        onCancel={() => setEditing(null)}
        confirmLoading={save.isPending}
        okText={t('product.save')}
        cancelText={t('product.cancel')}
        style={{ width: 640 }}
        unmountOnExit
      >
        <Form<ProductProperty> form={form} layout="vertical">
          <PropertyFields t={t} />
        </Form>
      </Modal>
    </>
  );
}
