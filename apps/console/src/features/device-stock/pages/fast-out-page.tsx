import type { ShipmentItem, ShipmentResult } from '@cellhub/contract/device-stock';
import { errorText } from '@cellhub/contract/errors';
import {
  Alert,
  Button,
  Card,
  Descriptions,
  Drawer,
  Form,
  Input,
  Select,
  Space,
  Table,
  Tabs,
  Typography,
  Upload,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconSend, IconUpload } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale, useLocaleState, type Translate } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import {
  checkSns,
  groupStockSns,
  useGroupOptions,
  useShip,
  useShipment,
  useShipments,
  type ShipmentParams,
} from '../api';
import { ScanInput, ScanTable, splitSns, useScanList } from '../components/scan-list';
import locale from '../locale';
import styles from './stock-pages.module.css';

function ShipForm({ t }: { t: Translate }) {
  const { locale: lang } = useLocaleState();
  const [form] = Form.useForm<{ customer: string; note?: string }>();
  const scan = useScanList(checkSns);
  const ship = useShip();
  const [result, setResult] = useState<ShipmentResult | null>(null);
  const [customerError, setCustomerError] = useState<string>();
  const groups = useGroupOptions();
  const [loadingGroup, setLoadingGroup] = useState(false);
  const pickGroup = (id: number | undefined) => {
    if (id === undefined) return;
    setLoadingGroup(true);
    // The group's in-stock devices join the list as scanned lines, each checked like a scan.
    void groupStockSns(id)
      .then(scan.add)
      .catch(() => undefined)
      .finally(() => setLoadingGroup(false));
  };

  const submit = async () => {
    const v = await form.validate();
    setCustomerError(undefined);
    try {
      const res = await ship.mutateAsync({ customer: v.customer, sns: scan.ready, note: v.note ?? '' });
      setResult(res);
      if (res.shipped > 0) scan.clear();
    } catch (err) {
      // An unknown or disabled account is said beside its field.
      if (err instanceof ApiError && (err.code === 10107 || err.code === 10103)) {
        setCustomerError(
          t(err.code === 10103 ? 'stock.ship.customer.disabled' : 'stock.ship.customer.unknown'),
        );
      }
    }
  };

  const failed = result?.lines.filter((l) => l.code !== 0) ?? [];
  return (
    <>
      <Form form={form} layout="vertical" className={styles.narrow}>
        <Form.Item
          label={t('stock.ship.customer')}
          field="customer"
          rules={[{ required: true, message: t('stock.ship.customer.required') }]}
          validateStatus={customerError ? 'error' : undefined}
          help={customerError}
        >
          <Input
            maxLength={64}
            placeholder={t('stock.ship.customer.placeholder')}
            onChange={() => setCustomerError(undefined)}
          />
        </Form.Item>
        <Form.Item label={t('stock.ship.scan')} extra={t('stock.ship.scan.hint')}>
          <ScanInput t={t} onAdd={scan.add} />
        </Form.Item>
        <Form.Item label={t('stock.ship.group')} extra={t('stock.ship.group.hint')}>
          <Select
            allowClear
            showSearch
            value={undefined}
            loading={groups.isLoading || loadingGroup}
            placeholder={t('stock.ship.group.placeholder')}
            options={groups.data ?? []}
            onChange={(v: number | undefined) => pickGroup(v)}
          />
        </Form.Item>
        <Form.Item label={t('stock.ship.note')} field="note">
          <Input maxLength={200} placeholder={t('stock.ship.note.placeholder')} />
        </Form.Item>
      </Form>
      <div className={styles.toolbar}>
        <Typography.Text>
          {t('stock.ship.count', { ready: scan.ready.length, total: scan.lines.length })}
        </Typography.Text>
        <Space>
          <Upload
            accept=".txt,.csv"
            autoUpload={false}
            showUploadList={false}
            onChange={(_list, file) => {
              void file.originFile?.text().then((text) =>
                // A list file: the first cell of each line.
                scan.add(
                  splitSns(
                    text
                      .split(/\r?\n/)
                      .map((l) => l.split(',')[0] ?? '')
                      .join('\n'),
                  ),
                ),
              );
            }}
          >
            <Button icon={<IconUpload />}>{t('stock.ship.import')}</Button>
          </Upload>
          <Button disabled={scan.lines.length === 0} onClick={scan.clear}>
            {t('stock.ship.clear')}
          </Button>
          <Button
            type="primary"
            icon={<IconSend />}
            disabled={scan.ready.length === 0}
            loading={ship.isPending}
            onClick={() => void submit()}
          >
            {t('stock.ship.submit', { count: scan.ready.length })}
          </Button>
        </Space>
      </div>
      {result && (
        <Alert
          className={styles.summary}
          type={result.failed === 0 ? 'success' : result.shipped === 0 ? 'error' : 'warning'}
          content={
            <>
              {t('stock.ship.summary', {
                shipped: result.shipped,
                failed: result.failed,
                customer: result.shipment?.customer ?? '',
              })}
              {failed.map((l) => (
                <div key={l.sn} className={styles.mono}>
                  {l.sn}: {t(`stock.ship.result.${l.result}`)} ({errorText(l.code, lang) ?? l.code})
                </div>
              ))}
            </>
          }
        />
      )}
      <ScanTable t={t} lines={scan.lines} onRemove={scan.remove} />
    </>
  );
}

function ShipmentList({ t }: { t: Translate }) {
  const [params, setParams] = useState<ShipmentParams>({ current: 1, per_page: 10 });
  const [keyword, setKeyword] = useState('');
  const query = useShipments(params);
  const [open, setOpen] = useState<number>();
  const detail = useShipment(open);
  const columns: TableColumnProps<ShipmentItem>[] = [
    { title: t('stock.shipments.id'), dataIndex: 'id', width: 80 },
    { title: t('stock.shipments.customer'), dataIndex: 'customer' },
    { title: t('stock.shipments.count'), dataIndex: 'count', width: 100 },
    { title: t('stock.shipments.by'), dataIndex: 'created_by', width: 140 },
    { title: t('stock.shipments.note'), dataIndex: 'note', render: (v: string) => v || '-' },
    {
      title: t('stock.shipments.at'),
      dataIndex: 'createdat',
      width: 180,
      render: (v: string) => formatTime(v),
    },
    {
      title: t('stock.col.actions'),
      dataIndex: 'id',
      key: 'actions',
      width: 100,
      render: (id: number) => (
        <Button type="text" size="mini" onClick={() => setOpen(id)}>
          {t('stock.shipments.detail')}
        </Button>
      ),
    },
  ];
  return (
    <>
      <Space className={styles.toolbar}>
        <Input.Search
          allowClear
          style={{ width: 280 }}
          value={keyword}
          onChange={setKeyword}
          placeholder={t('stock.shipments.keyword')}
          onSearch={(v) => setParams((p) => ({ ...p, current: 1, keyword: v.trim() || undefined }))}
        />
      </Space>
      <Table<ShipmentItem>
        rowKey="id"
        columns={columns}
        data={query.data?.data ?? []}
        loading={query.isFetching}
        border={{ wrapper: false, cell: false }}
        noDataElement={<div className={styles.muted}>{t('stock.shipments.empty')}</div>}
        pagination={{
          current: params.current,
          pageSize: params.per_page,
          total: query.data?.total ?? 0,
          showTotal: true,
          onChange: (current, per_page) => setParams((p) => ({ ...p, current, per_page })),
        }}
      />
      <Drawer
        width={480}
        visible={open !== undefined}
        title={t('stock.shipments.detail.title', { id: open ?? '' })}
        footer={null}
        onCancel={() => setOpen(undefined)}
      >
        {detail.data && (
          <>
            <Descriptions
              column={1}
              data={[
                { label: t('stock.shipments.customer'), value: detail.data.customer },
                { label: t('stock.shipments.by'), value: detail.data.created_by },
                { label: t('stock.shipments.at'), value: formatTime(detail.data.createdat) },
                { label: t('stock.shipments.count'), value: detail.data.count },
                { label: t('stock.shipments.note'), value: detail.data.note || '-' },
              ]}
            />
            <Table
              rowKey="sn"
              size="small"
              pagination={detail.data.devices.length > 20 ? { pageSize: 20, size: 'small' } : false}
              columns={[
                { title: t('stock.col.sn'), dataIndex: 'sn' },
                { title: t('stock.col.product'), dataIndex: 'product_name' },
              ]}
              data={detail.data.devices}
            />
          </>
        )}
      </Drawer>
    </>
  );
}

/** /device-admin/fast-out-stock (admin): scan devices out of stock to a customer; the shipments so far. */
export default function FastOutPage() {
  const t = useLocale(locale);
  return (
    <PageContainer>
      <Card bordered={false} title={t('stock.ship.title')}>
        <Tabs defaultActiveTab="ship" destroyOnHide={false}>
          <Tabs.TabPane key="ship" title={t('stock.ship.tab')}>
            <ShipForm t={t} />
          </Tabs.TabPane>
          <Tabs.TabPane key="shipments" title={t('stock.shipments.tab')}>
            <ShipmentList t={t} />
          </Tabs.TabPane>
        </Tabs>
      </Card>
    </PageContainer>
  );
}
