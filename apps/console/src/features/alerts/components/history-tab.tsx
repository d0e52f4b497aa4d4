import type { AlertHistoryItem, AlertHistoryStatus } from '@cellhub/contract/alerts';
import {
  Button,
  Divider,
  Form,
  Grid,
  Message,
  Select,
  Table,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { useState } from 'react';
import { ListSearchBar } from '../../../components/list-search-bar';
import { formatTime } from '../../../lib/format-time';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { conditionText, HISTORY_COLOR, triggerPropertyName, valueText } from '../alert-format';
import { type HistoryListParams, useAcknowledge, useHistoryList } from '../api';
import locale from '../locale';
import styles from '../pages/alert.module.css';

interface Filter {
  status?: AlertHistoryStatus;
  acknowledged?: number;
}

/** The alert history: raised and recovered alerts, newest first, acknowledged one by one or several at once. */
export function HistoryTab() {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const [form] = Form.useForm<Filter>();
  const [params, setParams] = useState<HistoryListParams>({ current: 1, per_page: 10 });
  const [selected, setSelected] = useState<number[]>([]);
  const { data, isFetching } = useHistoryList(params);
  const ack = useAcknowledge();

  const search = () => {
    const { status, acknowledged } = form.getFieldsValue();
    setParams((p) => ({ ...p, current: 1, status, acknowledged }));
  };

  const acknowledge = (ids: number[]) =>
    ack.mutateAsync(ids).then((n) => {
      Message.success(t('alert.history.acked', { n }));
      setSelected((s) => s.filter((id) => !ids.includes(id)));
    });

  const columns: TableColumnProps<AlertHistoryItem>[] = [
    {
      title: t('alert.history.col.trigger'),
      dataIndex: 'trigger_name',
      render: (v: string) => <span className={styles.nowrap}>{v}</span>,
    },
    {
      title: t('alert.trigger.col.device'),
      dataIndex: 'sn',
      render: (sn: string, row) => (
        <div className={styles.cellStack}>
          <span className={styles.mono}>{sn}</span>
          {row.device_name ? <span className={styles.muted}>{row.device_name}</span> : null}
        </div>
      ),
    },
    {
      title: t('alert.trigger.col.condition'),
      dataIndex: 'type',
      render: (_: unknown, row) => (
        <span className={styles.nowrap}>
          {conditionText(t, { type: row.type, a: row.a, b: row.b, property: triggerPropertyName(row, lang) })}
        </span>
      ),
    },
    {
      title: t('alert.history.status'),
      dataIndex: 'status',
      render: (status: AlertHistoryStatus) => (
        <Tag color={HISTORY_COLOR[status]} data-testid="alert-history-status">
          {t(`alert.history.status.${status}`)}
        </Tag>
      ),
    },
    {
      title: t('alert.history.col.raised'),
      dataIndex: 'raised_at',
      render: (v: string, row) => (
        <div className={styles.cellStack}>
          <span className={styles.nowrap}>{formatTime(v)}</span>
          <span className={styles.muted} data-testid="alert-raised-value">
            {valueText(t, row.type, row.raised_value)}
          </span>
        </div>
      ),
    },
    {
      title: t('alert.history.col.recovered'),
      dataIndex: 'recovered_at',
      render: (v: string | null, row) =>
        v ? (
          <div className={styles.cellStack}>
            <span className={styles.nowrap}>{formatTime(v)}</span>
            <span className={styles.muted} data-testid="alert-recovered-value">
              {row.recovered_value === null
                ? t('alert.history.closed')
                : valueText(t, row.type, row.recovered_value)}
            </span>
          </div>
        ) : (
          <span className={styles.muted}>-</span>
        ),
    },
    {
      title: <span className={styles.nowrap}>{t('alert.history.col.pushes')}</span>,
      dataIndex: 'push_count',
    },
    {
      title: t('alert.history.col.ack'),
      dataIndex: 'acknowledged_at',
      render: (v: string | null, row) =>
        v ? (
          <div className={styles.cellStack}>
            <span>{row.acknowledged_by ?? ''}</span>
            <span className={`${styles.muted} ${styles.nowrap}`}>{formatTime(v)}</span>
          </div>
        ) : (
          <Button type="text" size="small" onClick={() => void acknowledge([row.id])}>
            {t('alert.history.ack')}
          </Button>
        ),
    },
  ];

  return (
    <>
      <ListSearchBar
        form={form}
        labelCol={{ span: 8 }}
        wrapperCol={{ span: 16 }}
        labelAlign="left"
        onSearch={search}
      >
        <Grid.Row gutter={24}>
          <Grid.Col span={10}>
            <Form.Item label={t('alert.history.status')} field="status">
              <Select allowClear placeholder={t('alert.all')}>
                <Select.Option value="active">{t('alert.history.status.active')}</Select.Option>
                <Select.Option value="recovered">{t('alert.history.status.recovered')}</Select.Option>
              </Select>
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={10}>
            <Form.Item label={t('alert.history.acknowledged')} field="acknowledged">
              <Select allowClear placeholder={t('alert.all')}>
                <Select.Option value={0}>{t('alert.history.ack.no')}</Select.Option>
                <Select.Option value={1}>{t('alert.history.ack.yes')}</Select.Option>
              </Select>
            </Form.Item>
          </Grid.Col>
        </Grid.Row>
      </ListSearchBar>
      <Divider style={{ marginTop: 0 }} />
      <div className={styles.toolbar}>
        <Button
          type="primary"
          disabled={selected.length === 0}
          loading={ack.isPending}
          onClick={() => void acknowledge(selected)}
        >
          {t('alert.history.ackSelected', { n: selected.length })}
        </Button>
      </div>
      <Table<AlertHistoryItem>
        rowKey="id"
        loading={isFetching && !data}
        columns={columns}
        data={data?.data ?? []}
        noDataElement={<span className={styles.muted}>{t('alert.history.empty')}</span>}
        rowSelection={{
          type: 'checkbox',
          selectedRowKeys: selected,
          onChange: (keys) => setSelected(keys as number[]),
          checkboxProps: (row) => ({ disabled: row.acknowledged_at !== null }),
        }}
        pagination={listPagination(params, setParams, data?.total, (total) => t('alert.total', { total }))}
      />
    </>
  );
}
