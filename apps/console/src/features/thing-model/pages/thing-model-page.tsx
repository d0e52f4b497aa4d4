import {
  Alert,
  Button,
  Card,
  Empty,
  Form,
  Modal,
  Space,
  Table,
  Tabs,
  Tag,
  Typography,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconDownload, IconUpload } from '@arco-design/web-react/icon';
import type { ProductProperty } from '@cellhub/contract/products';
import {
  type ListDiff,
  type ModelEvent,
  type ModelParam,
  type ModelService,
  type ThingModelBody,
  type ThingModelDiff,
  thingModelBody,
} from '@cellhub/contract/thing-model';
import { useRef, useState } from 'react';
import { PageContainer } from '../../../components/page-container';
import ProductSelect from '../../../components/product-select';
import { useLocale } from '../../../lib/i18n';
import { toast } from '../../../lib/toast';
import { useImportModel, usePreviewImport, useThingModel } from '../api';
import locale from '../locale';

const LEVEL_COLOR = { info: 'arcoblue', warn: 'orange', error: 'red' } as const;

const paramList = (list: ModelParam[]) =>
  list.length === 0
    ? '-'
    : list.map((p) => `${p.key}: ${p.datatype}${p.unit ? ` (${p.unit})` : ''}`).join(', ');

/** /product/model — a product's thing model (admin): properties, events, services; JSON export and import. */
export default function ThingModelPage() {
  const t = useLocale(locale);
  const [productKey, setProductKey] = useState<string | undefined>();
  const model = useThingModel(productKey);
  const preview = usePreviewImport(productKey);
  const save = useImportModel(productKey);
  const file = useRef<HTMLInputElement>(null);
  const [pending, setPending] = useState<{ body: ThingModelBody; diff: ThingModelDiff } | undefined>();
  const [fileError, setFileError] = useState<string | undefined>();

  const exportJson = () => {
    if (!model.data) return;
    const { product_name: _name, ...rest } = model.data;
    const blob = new Blob([JSON.stringify(rest, null, 2)], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `${model.data.product_key}-thing-model.json`;
    a.click();
    URL.revokeObjectURL(a.href);
  };

  const onFile = async (f: File | undefined) => {
    if (!f) return;
    setFileError(undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await f.text());
    } catch {
      setFileError(t('model.badFile'));
      return;
    }
    const checked = thingModelBody.safeParse(parsed);
    if (!checked.success) {
      const issues = checked.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ');
      setFileError(`${t('model.badFile')}: ${issues}`);
      return;
    }
    const body = checked.data as ThingModelBody;
    const diff = await preview.mutateAsync(body).catch(() => undefined);
    if (diff) setPending({ body, diff });
  };

  const confirm = async () => {
    if (!pending) return;
    await save.mutateAsync(pending.body);
    setPending(undefined);
    toast('success', t('model.imported'));
  };

  const propertyColumns: TableColumnProps<ProductProperty>[] = [
    { title: t('model.col.key'), dataIndex: 'key' },
    { title: t('model.col.name'), dataIndex: 'name' },
    { title: t('model.col.nameUs'), dataIndex: 'name_us', render: (v: string) => v || '-' },
    { title: t('model.col.datatype'), dataIndex: 'datatype' },
    { title: t('model.col.unit'), dataIndex: 'unit', render: (v: string) => v || '-' },
  ];
  const eventColumns: TableColumnProps<ModelEvent>[] = [
    { title: t('model.col.key'), dataIndex: 'key' },
    { title: t('model.col.name'), dataIndex: 'name' },
    {
      title: t('model.col.level'),
      dataIndex: 'level',
      render: (v: ModelEvent['level']) => <Tag color={LEVEL_COLOR[v]}>{t(`model.level.${v}`)}</Tag>,
    },
    { title: t('model.col.output'), dataIndex: 'output', render: paramList },
  ];
  const serviceColumns: TableColumnProps<ModelService>[] = [
    { title: t('model.col.key'), dataIndex: 'key' },
    { title: t('model.col.name'), dataIndex: 'name' },
    { title: t('model.col.input'), dataIndex: 'input', render: paramList },
    { title: t('model.col.output'), dataIndex: 'output', render: paramList },
  ];

  return (
    <PageContainer>
      <Card bordered={false} title={t('model.title')}>
        <Space direction="vertical" size={16} style={{ width: '100%' }}>
          <Typography.Text type="secondary">{t('model.help')}</Typography.Text>
          <Space wrap style={{ width: '100%', justifyContent: 'space-between' }}>
            <Form.Item label={t('model.product')} style={{ marginBottom: 0 }}>
              <ProductSelect
                allowClear
                style={{ width: 300 }}
                placeholder={t('model.product.placeholder')}
                value={productKey}
                onChange={(v) => setProductKey(typeof v === 'string' ? v : undefined)}
                data-testid="model-product"
              />
            </Form.Item>
            <Space>
              <Button
                icon={<IconDownload />}
                disabled={!model.data}
                onClick={exportJson}
                data-testid="model-export"
              >
                {t('model.export')}
              </Button>
              <Button
                type="primary"
                icon={<IconUpload />}
                disabled={!productKey}
                loading={preview.isPending}
                onClick={() => file.current?.click()}
                data-testid="model-import"
              >
                {t('model.import')}
              </Button>
              <input
                ref={file}
                type="file"
                accept="application/json,.json"
                hidden
                data-testid="model-file"
                onChange={(e) => {
                  void onFile(e.target.files?.[0]);
                  e.target.value = '';
                }}
              />
            </Space>
          </Space>
          {fileError && (
            <Alert type="error" content={fileError} closable onClose={() => setFileError(undefined)} />
          )}
          {!productKey ? (
            <Empty description={t('model.pick')} />
          ) : (
            <Tabs defaultActiveTab="properties">
              <Tabs.TabPane
                key="properties"
                title={`${t('model.tab.properties')} (${model.data?.properties.length ?? 0})`}
              >
                <Table
                  rowKey="key"
                  loading={model.isLoading}
                  data={model.data?.properties ?? []}
                  columns={propertyColumns}
                  pagination={false}
                />
              </Tabs.TabPane>
              <Tabs.TabPane
                key="events"
                title={`${t('model.tab.events')} (${model.data?.events.length ?? 0})`}
              >
                <Table
                  rowKey="key"
                  loading={model.isLoading}
                  data={model.data?.events ?? []}
                  columns={eventColumns}
                  pagination={false}
                />
              </Tabs.TabPane>
              <Tabs.TabPane
                key="services"
                title={`${t('model.tab.services')} (${model.data?.services.length ?? 0})`}
              >
                <Table
                  rowKey="key"
                  loading={model.isLoading}
                  data={model.data?.services ?? []}
                  columns={serviceColumns}
                  pagination={false}
                />
              </Tabs.TabPane>
            </Tabs>
          )}
        </Space>
      </Card>
      <Modal
        title={t('model.preview.title')}
        visible={pending !== undefined}
        onCancel={() => setPending(undefined)}
        onOk={() => void confirm()}
        okText={t('model.preview.confirm')}
        okButtonProps={{ disabled: pending !== undefined && isEmpty(pending.diff), status: 'warning' }}
        confirmLoading={save.isPending}
      >
        {pending && <DiffView diff={pending.diff} t={t} />}
      </Modal>
    </PageContainer>
  );
}

const isEmpty = (d: ThingModelDiff) =>
  [d.properties, d.events, d.services].every(
    (l) => l.added.length + l.removed.length + l.changed.length === 0,
  );

function DiffView({ diff, t }: { diff: ThingModelDiff; t: (k: string) => string }) {
  if (isEmpty(diff)) return <Typography.Text>{t('model.preview.none')}</Typography.Text>;
  const section = (title: string, l: ListDiff) => (
    <div key={title} style={{ marginBottom: 12 }} data-testid={`model-diff-${title}`}>
      <Typography.Text bold>{title}</Typography.Text>
      <div>
        {l.added.map((k) => (
          <Tag key={`a${k}`} color="green" style={{ margin: 2 }}>
            + {k}
          </Tag>
        ))}
        {l.changed.map((k) => (
          <Tag key={`c${k}`} color="orange" style={{ margin: 2 }}>
            ~ {k}
          </Tag>
        ))}
        {l.removed.map((k) => (
          <Tag key={`r${k}`} color="red" style={{ margin: 2 }}>
            − {k}
          </Tag>
        ))}
        {l.added.length + l.changed.length + l.removed.length === 0 && '-'}
      </div>
    </div>
  );
  return (
    <div>
      <Typography.Paragraph type="secondary">
        <Tag color="green">{t('model.preview.added')}</Tag>{' '}
        <Tag color="orange">{t('model.preview.changed')}</Tag>{' '}
        <Tag color="red">{t('model.preview.removed')}</Tag>
      </Typography.Paragraph>
      {section(t('model.tab.properties'), diff.properties)}
      {section(t('model.tab.events'), diff.events)}
      {section(t('model.tab.services'), diff.services)}
    </div>
  );
}
