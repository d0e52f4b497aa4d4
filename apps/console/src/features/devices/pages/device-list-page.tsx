import type { DeviceListItem } from '@cellhub/contract/devices';
import type { DeviceEvent } from '@cellhub/contract/realtime';
import {
  Badge,
  Button,
  Card,
  Divider,
  Dropdown,
  Empty,
  Form,
  Grid,
  Input,
  Menu,
  Message,
  Popconfirm,
  Result,
  Select,
  Space,
  Table,
  Tag,
  Tooltip,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconDownload, IconPlus } from '@arco-design/web-react/icon';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ListSearchBar } from '../../../components/list-search-bar';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { useDeviceEvents } from '../../../lib/realtime';
import { useRole } from '../../../lib/user';
import {
  deviceListKey,
  EXPORT_LIMIT,
  fetchForExport,
  useDeleteDevice,
  useDeviceList,
  useProductOptions,
  useUnbindDevice,
  type DeviceFilter,
  type DeviceListParams,
} from '../api';
import { ColumnPicker } from '../components/column-picker';
import {
  ADMIN_COLUMNS,
  cellText,
  DEVICE_COLUMNS,
  formatValues,
  loadColumns,
  saveColumns,
  type DeviceColumn,
} from '../device-columns';
import { download, exportFileName, toCsv, toXlsx, type ExportFormat } from '../export-devices';
import { applyDeviceEvent } from '../live-rows';
import locale from '../locale';
import styles from './device-pages.module.css';

const LIVE_TYPES = ['device.online', 'device.properties', 'device.info', 'device.config'] as const;

export default function DeviceListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const isAdmin = useRole() === 'admin';
  const [form] = Form.useForm<DeviceFilter>();
  const [params, setParams] = useState<DeviceListParams>({ current: 1, per_page: 10 });
  const { data, isFetching, isError, refetch } = useDeviceList(params);
  const products = useProductOptions();
  const unbind = useUnbindDevice();
  const remove = useDeleteDevice();
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<DeviceColumn[]>(() => loadColumns());
  const [exporting, setExporting] = useState<string | null>(null);

  const rows = useMemo(() => data?.data ?? [], [data]);
  const sns = useMemo(() => rows.map((r) => r.sn), [rows]);
  const live = useDeviceEvents(sns.length ? { sns, types: LIVE_TYPES } : null, (e: DeviceEvent) => {
    queryClient.setQueryData(deviceListKey(params), (old: typeof data) => applyDeviceEvent(old, e));
  });

  const available = DEVICE_COLUMNS.filter((c) => isAdmin || !ADMIN_COLUMNS.includes(c));
  const visible = shown.filter((c) => available.includes(c));

  const search = () => {
    const v = form.getFieldsValue();
    setParams((p) => ({
      ...p,
      current: 1,
      keyword: v.keyword?.trim() || undefined,
      product_key: v.product_key || undefined,
      online: v.online || undefined,
    }));
  };

  const onlineText = (o: 0 | 1) => (o ? t('device.online') : t('device.offline'));

  const runExport = async (format: ExportFormat) => {
    const filter: DeviceFilter = {
      keyword: params.keyword,
      product_key: params.product_key,
      online: params.online,
    };
    setExporting(t('device.export.progress', { loaded: 0, total: data?.total ?? 0 }));
    try {
      const {
        rows: all,
        total,
        totalExact,
      } = await fetchForExport(filter, (loaded, of) =>
        setExporting(t('device.export.progress', { loaded, total: of })),
      );
      if (all.length === 0) {
        Message.info(t('device.export.empty'));
        return;
      }
      const table = {
        headers: visible.map((c) => t(`device.col.${c}`)),
        rows: all.map((r) => visible.map((c) => cellText(r, c, onlineText))),
      };
      download(await (format === 'csv' ? toCsv(table) : toXlsx(table)), exportFileName(format));
      if (total > all.length) {
        Message.warning({
          content: totalExact
            ? t('device.export.truncated', { total, limit: EXPORT_LIMIT })
            : t('device.export.truncatedMany', { limit: EXPORT_LIMIT }),
          duration: 8000,
        });
      } else Message.success(t('device.export.done', { count: all.length }));
    } catch {
      // The request layer has shown why.
    } finally {
      setExporting(null);
    }
  };

  const detailUrl = (r: DeviceListItem) =>
    `/device/detail/${encodeURIComponent(r.product_key)}/${encodeURIComponent(r.sn)}`;

  const render: Partial<Record<DeviceColumn, TableColumnProps<DeviceListItem>['render']>> = {
    sn: (_, r) => (
      <Link to={detailUrl(r)} className={styles.mono}>
        {r.sn}
      </Link>
    ),
    online: (_, r) =>
      r.online ? (
        <Badge status="success" text={t('device.online')} />
      ) : (
        <Badge status="default" text={t('device.offline')} />
      ),
    owner: (_, r) => r.owner ?? <Tag size="small">{t('device.stock')}</Tag>,
    last_values: (_, r) => {
      const text = formatValues(r.last_values);
      return text ? (
        <Tooltip content={text}>
          <span className={styles.values}>{text}</span>
        </Tooltip>
      ) : (
        <span className={styles.muted}>-</span>
      );
    },
    lastcommunicationat: (_, r) =>
      r.lastcommunicationat ? (
        <span className={styles.nowrap}>{formatTime(r.lastcommunicationat)}</span>
      ) : (
        <span className={styles.muted}>{t('device.never')}</span>
      ),
    config_version: (_, r) => (
      <span className={r.config_version_different ? styles.warn : undefined}>
        {r.config_version}/{r.expect_config_version}
      </span>
    ),
  };

  const columns: TableColumnProps<DeviceListItem>[] = [
    ...visible.map((c): TableColumnProps<DeviceListItem> => ({
      title: t(`device.col.${c}`),
      dataIndex: c,
      ellipsis: c === 'description' || c === 'address',
      render:
        render[c] ??
        ((_: unknown, r: DeviceListItem) => {
          const text = cellText(r, c, onlineText);
          return text === '' ? <span className={styles.muted}>-</span> : text;
        }),
    })),
    {
      title: t('device.col.operations'),
      dataIndex: 'operations',
      fixed: 'right',
      render: (_: unknown, r) => (
        <Space size={0} className={styles.nowrap}>
          <Button type="text" size="small" onClick={() => void navigate(detailUrl(r))}>
            {t('device.action.detail')}
          </Button>
          {r.uid !== null && (
            <Popconfirm
              title={t('device.unbind.confirm')}
              content={t('device.unbind.hint')}
              onOk={() =>
                unbind.mutateAsync(r.sn).then(
                  () => Message.success(t('device.unbind.done')),
                  () => undefined,
                )
              }
            >
              <Button type="text" size="small" status="warning">
                {t('device.action.unbind')}
              </Button>
            </Popconfirm>
          )}
          {isAdmin && (
            <Popconfirm
              title={t('device.delete.confirm')}
              content={t('device.delete.hint')}
              onOk={() =>
                remove.mutateAsync(r.sn).then(
                  () => Message.success(t('device.delete.done')),
                  () => undefined,
                )
              }
            >
              <Button type="text" size="small" status="danger">
                {t('device.action.delete')}
              </Button>
            </Popconfirm>
          )}
        </Space>
      ),
    },
  ];

  const empty = (
    <Empty
      description={
        <Space direction="vertical" size={8}>
          <span>{t('device.empty')}</span>
          <span className={styles.muted}>{t('device.empty.hint')}</span>
          <Space>
            <Button type="primary" size="small" onClick={() => void navigate('/device/create')}>
              {t('device.action.create')}
            </Button>
            <Button size="small" onClick={() => void navigate('/device/bind')}>
              {t('device.action.bind')}
            </Button>
          </Space>
        </Space>
      }
    />
  );

  return (
    <PageContainer>
      <Card bordered={false} title={t('device.list.title')}>
        <ListSearchBar form={form} labelAlign="left" onSearch={search}>
          <Grid.Row gutter={24}>
            <Grid.Col span={8}>
              <Form.Item label={t('device.filter.keyword')} field="keyword">
                <Input
                  placeholder={t('device.filter.keyword.placeholder')}
                  allowClear
                  maxLength={64}
                  onPressEnter={search}
                />
              </Form.Item>
            </Grid.Col>
            <Grid.Col span={8}>
              <Form.Item label={t('device.filter.product')} field="product_key">
                <Select
                  placeholder={t('device.filter.all')}
                  allowClear
                  showSearch
                  loading={products.isLoading}
                  options={products.data ?? []}
                  filterOption={(input, option) =>
                    String((option.props as { children?: unknown }).children ?? '')
                      .toLowerCase()
                      .includes(input.toLowerCase())
                  }
                />
              </Form.Item>
            </Grid.Col>
            <Grid.Col span={8}>
              <Form.Item label={t('device.filter.online')} field="online">
                <Select
                  placeholder={t('device.filter.all')}
                  allowClear
                  options={[
                    { label: t('device.online'), value: '1' },
                    { label: t('device.offline'), value: '0' },
                  ]}
                />
              </Form.Item>
            </Grid.Col>
          </Grid.Row>
        </ListSearchBar>
        <Divider style={{ marginTop: 0 }} />
        <div className={styles.toolbar}>
          <Space>
            <Button type="primary" icon={<IconPlus />} onClick={() => void navigate('/device/create')}>
              {t('device.action.create')}
            </Button>
            <Button onClick={() => void navigate('/device/bind')}>{t('device.action.bind')}</Button>
          </Space>
          <Space>
            {sns.length > 0 &&
              (live === 'open' ? (
                <Badge status="processing" text={t('device.live.open')} />
              ) : live === 'reconnecting' ? (
                <Badge status="warning" text={t('device.live.off')} />
              ) : null)}
            <Dropdown
              droplist={
                <Menu onClickMenuItem={(key) => void runExport(key as ExportFormat)}>
                  <Menu.Item key="csv">{t('device.export.csv')}</Menu.Item>
                  <Menu.Item key="xlsx">{t('device.export.xlsx')}</Menu.Item>
                </Menu>
              }
              disabled={exporting !== null}
            >
              <Button icon={<IconDownload />} loading={exporting !== null}>
                {exporting ?? t('device.export')}
              </Button>
            </Dropdown>
            <ColumnPicker all={available} value={visible} onChange={(c) => setShown(saveColumns(c))} t={t} />
          </Space>
        </div>
        {isError && !data ? (
          <Result
            status="error"
            title={t('device.loadError')}
            extra={
              <Button type="primary" onClick={() => void refetch()}>
                {t('device.retry')}
              </Button>
            }
          />
        ) : (
          <Table<DeviceListItem>
            rowKey="sn"
            loading={isFetching && !data}
            columns={columns}
            data={rows}
            noDataElement={empty}
            scroll={{ x: 'max-content' }}
            pagination={{
              ...listPagination(params, setParams, data?.total, (total) =>
                // A large fleet is counted up to a cap past this page: the total is then "at least".
                data?.totalExact === false
                  ? t('device.totalAtLeast', { total: total.toLocaleString() })
                  : t('device.total', { total }),
              ),
              sizeOptions: [10, 20, 50, 100],
            }}
          />
        )}
      </Card>
    </PageContainer>
  );
}
